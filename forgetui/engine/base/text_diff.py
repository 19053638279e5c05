"""A unified diff of two texts, bounded: a front end shows the first MAX_DIFF_LINES lines and
how many more there are, and a pair of texts too long to compare quickly gets one line saying
so instead (difflib's matcher is quadratic at worst, and a read must stay quick)."""

from __future__ import annotations

from dataclasses import dataclass

MAX_DIFF_LINES = 400  # diff lines kept; the rest are counted
MAX_COMPARED_LINES = 20_000  # per side: beyond it, no diff is computed


@dataclass(frozen=True)
class TextDiff:
    """A unified diff's lines (no line ends), capped; or, in `note`, why there is none."""

    lines: tuple[str, ...] = ()
    more: int = 0  # diff lines past the cap
    added: int = 0
    removed: int = 0
    note: str | None = None

    @property
    def changed(self) -> bool:
        return bool(self.added or self.removed)

    def counts(self) -> str:
        """`+3 -1`: what the whole diff adds and removes, the capped part included."""
        return f"+{self.added} -{self.removed}"

    def text(self) -> str:
        """The diff as plain text, a line saying how many were left off, or the note."""
        if self.note is not None:
            return self.note + "\n"
        shown = list(self.lines)
        if self.more:
            shown.append(more_lines(self.more))
        return "".join(f"{line}\n" for line in shown)


def more_lines(count: int) -> str:
    return f"… {count} more line{'s' if count != 1 else ''}"


def text_diff(
    before: str, after: str, from_name: str, to_name: str, limit: int = MAX_DIFF_LINES
) -> TextDiff:
    """`before` -> `after` as a unified diff (three lines of context), its first `limit` lines
    kept; an unchanged text has no lines and says so in `note`."""
    import difflib  # on first use: `status` and the workbench's first view need no diff

    old, new = before.splitlines(), after.splitlines()
    if old and new and max(len(old), len(new)) > MAX_COMPARED_LINES:  # one side empty: linear
        return TextDiff(
            note=f"too long to compare here ({len(old):,} -> {len(new):,} lines)",
        )
    kept: list[str] = []
    added = removed = more = 0
    diff = difflib.unified_diff(old, new, from_name, to_name, lineterm="")
    for at, line in enumerate(diff):
        if at >= 2:  # past the `---` and `+++` heads, which an added "++ x" would look like
            added += line.startswith("+")
            removed += line.startswith("-")
        if len(kept) < limit:
            kept.append(line)
        else:
            more += 1
    if not kept:
        return TextDiff(note="no change")
    return TextDiff(tuple(kept), more, added, removed)
