"""Which of the action log's lines a load changed, so the view repaints those and not every
line on screen: while steps run back to back each step's records arrive in two loads (its
intent, then its result merged into the same row), and a whole view's repaint for each took
more of the UI thread than the keys had left."""

from __future__ import annotations

from collections.abc import Iterable


def changed_lines(
    rows: Iterable[int], counts: tuple[int, int], lines: tuple[int, int]
) -> list[tuple[int, int]]:
    """(first line, how many) runs to repaint in the unfiltered view: the `rows` whose content
    changed, and every line from the first row that came or went to the last line before or
    after (the step in flight's line moves down as rows come, a blank line becomes a row).
    `counts` are the rows before and after, `lines` the lines before and after (the rows and
    the step in flight's line)."""
    changed = set(rows)
    changed.update(range(min(counts), max(lines)))
    runs: list[tuple[int, int]] = []
    for line in sorted(changed):
        if runs and runs[-1][0] + runs[-1][1] == line:
            runs[-1] = (runs[-1][0], runs[-1][1] + 1)
        else:
            runs.append((line, 1))
    return runs
