"""A unified diff in the theme's colours: additions in $success, removals in $error, hunk
heads dim, the `---`/`+++` heads bold; a diff that could not be made is its one-line note."""

from __future__ import annotations

from textual.content import Content

from forgetui.engine.api import TextDiff, more_lines
from forgetui.tui.markup import fmt, lines

_LINE_STYLES = {"+": "$success", "-": "$error", "@": "$foreground-muted"}


def diff_content(diff: TextDiff) -> Content:
    """The diff's lines coloured, then how many were left off; or its note, muted."""
    if diff.note is not None:
        return fmt("[$foreground-muted]$note[/]", note=diff.note)
    shown: list[Content] = []
    for at, line in enumerate(diff.lines):
        if at < 2 and line.startswith(("--- ", "+++ ")):
            shown.append(fmt("[b]$line[/]", line=line))
            continue
        style = _LINE_STYLES.get(line[:1])
        shown.append(fmt(f"[{style}]$line[/]", line=line) if style else Content(line))
    if diff.more:
        shown.append(fmt("[$foreground-muted]$more[/]", more=more_lines(diff.more)))
    return lines(shown)
