"""What an action-log row looks like: its columns, their widths at a pane width, the text of
each cell and the style class of each result."""

from __future__ import annotations

from forgetui.engine.api import IN_FLIGHT, INTERRUPTED, LogRow

# (name, width); the summary column takes what is left
COLUMNS: tuple[tuple[str, int], ...] = (
    ("step", 6),
    ("action", 22),
    ("target", 26),
    ("result", 11),
    ("summary", 0),
    ("tokens", 7),
    ("cost", 9),
    ("time", 7),
)
RIGHT_ALIGNED = frozenset({0, 5, 6, 7})
RESULT_CLASSES = {
    "success": "log--success",
    "failure": "log--failure",
    "error": "log--failure",
    "blocked": "log--warning",
    "refused": "log--warning",
    "escalated": "log--warning",
    INTERRUPTED: "log--warning",
    "skipped": "log--muted",
    IN_FLIGHT: "log--muted",
    "": "log--operator",
}


def fit(text: str, width: int, right: bool = False) -> str:
    text = text.replace("\n", " ")
    if len(text) > width:
        return text[: max(0, width - 1)] + "…"
    return text.rjust(width) if right else text.ljust(width)


# Under these widths, the columns that matter least give way so the summary stays readable:
# (pane width, {column: width}); width 0 hides the column.
NARROWER: tuple[tuple[int, dict[str, int]], ...] = (
    (90, {"action": 14, "target": 16, "result": 10, "tokens": 0, "cost": 0, "time": 0}),
    (120, {"action": 16, "target": 20, "cost": 0}),
)
SUMMARY = "summary"


def column_widths(total: int) -> list[int]:
    """Each column's width at a pane `total` wide (0: hidden); the summary takes what is left."""
    sizes = dict(COLUMNS)
    for below, changes in NARROWER:
        if total < below:
            sizes.update(changes)
            break
    shown = [width for name, width in sizes.items() if width and name != SUMMARY]
    summary = max(10, total - sum(width + 1 for width in shown) - 1)
    return [summary if name == SUMMARY else sizes[name] for name, _ in COLUMNS]


def took(ms: float | None) -> str:
    """A step's time, short: 40ms, 2.3s, 4m05s."""
    if not ms:
        return ""
    if ms < 100:
        return f"{ms:.0f}ms" if ms >= 1 else "<1ms"
    if ms < 60_000:
        return f"{ms / 1000:.1f}s"
    minutes, seconds = divmod(round(ms / 1000), 60)
    return f"{minutes}m{seconds:02d}s"


def row_cells(row: LogRow) -> list[str]:
    """A row's cells; a superseded step says so before its summary (the dimming is colour,
    and not every terminal shows colour)."""
    return [
        str(row.step),
        row.action,
        row.target,
        row.result,
        f"superseded: {row.summary}" if row.superseded else row.summary,
        f"{row.tokens:,}" if row.tokens else "",
        f"${row.cost:.4f}" if row.cost else "",
        took(row.ms),
    ]


def pending_cells(step: int | None) -> list[str]:
    """The step our executor runs, before the model answered (no record of it yet)."""
    return [str(step), "…", "", IN_FLIGHT, "asking the model", "", "", ""]


def format_line(cells: list[str], widths: list[int]) -> str:
    return " ".join(
        fit(cell, w, i in RIGHT_ALIGNED)
        for i, (cell, w) in enumerate(zip(cells, widths, strict=True))
        if w
    )
