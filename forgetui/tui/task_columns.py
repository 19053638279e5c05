"""The task list's columns at a width. What tells tasks apart comes first: the workspace when the
tasks sit in more than one (run copies of one sample all have the same task name), then the
task. As the width narrows, the least useful give way in turn: the workspace drops the task name
it repeats (a run copy is named after its sample), the cost goes, the context keeps its figure
only, then goes, while the waiting question would have fewer than QUESTION_ROOM cells. The
question takes the width left. A column is never narrower than its
title, so no title is cut; a cell too long for its column ends in an ellipsis."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rich.text import Text

ORDER = ("workspace", "task", "status", "step", "waiting question", "context", "cost")
FLEX = "waiting question"  # takes what is left
SHORT_TITLE = {FLEX: "question"}  # when the column is narrower than its long title
CAPS = {"workspace": 30, "task": 24}
QUESTION_ROOM = 20  # the question's width kept before the others give way: its start reads
PADDING = 2  # the table's cell padding: one cell each side
# A row's shorter forms, under these keys: the workspace without the task name, the context's
# figure without the section's name.
SHORT = {"workspace": "workspace/short", "context": "context/short"}
# What gives way, in turn, while the columns do not fit.
GIVE_WAY = ("short:workspace", "drop:cost", "short:context", "drop:context")


@dataclass(frozen=True)
class Column:
    key: str  # the ORDER name; its cells come from the row under `cell_key`
    title: str
    width: int
    cell_key: str


Row = Mapping[str, Text]


def _natural(title: str, cells: Sequence[Text], cap: int | None) -> int:
    width = max([len(title), *(cell.cell_len for cell in cells)])
    return min(width, max(cap, len(title))) if cap is not None else width


def plan_columns(rows: Sequence[Row], width: int, question_cap: int) -> list[Column]:
    """The columns for `rows` (each holding every ORDER key and the SHORT forms) in `width`
    cells, padding included."""
    keys = [key for key in ORDER if key != "workspace" or len({str(r[key]) for r in rows}) > 1]
    short: set[str] = set()

    def fixed() -> list[Column]:
        columns = []
        for key in keys:
            if key == FLEX:
                continue
            cell_key = SHORT[key] if key in short else key
            natural = _natural(key, [row[cell_key] for row in rows], CAPS.get(key))
            columns.append(Column(key, key, natural, cell_key))
        return columns

    def used(columns: list[Column]) -> int:
        return sum(column.width + PADDING for column in columns)

    least = QUESTION_ROOM + PADDING
    for step in GIVE_WAY:
        if used(fixed()) + least <= width:
            break
        kind, key = step.split(":")
        if kind == "short":
            short.add(key)
        elif key in keys:
            keys.remove(key)
    columns = fixed()
    natural = _natural(FLEX, [row[FLEX] for row in rows], question_cap)
    room = max(len(SHORT_TITLE[FLEX]), min(natural, width - used(columns) - PADDING))
    title = FLEX if room >= len(FLEX) else SHORT_TITLE[FLEX]
    columns.append(Column(FLEX, title, room, FLEX))
    return sorted(columns, key=lambda column: ORDER.index(column.key))


def fitted(cell: Text, width: int) -> Text:
    """The cell as the column shows it: cut to the width with an ellipsis."""
    if cell.cell_len <= width:
        return cell
    cut = cell.copy()
    cut.truncate(width, overflow="ellipsis")
    return cut


def short_workspace(workspace: str, task: str) -> str:
    """A run copy's directory without the sample's name the task column already shows."""
    rest = workspace.removeprefix(f"{task}-")
    return rest if rest and rest != workspace else workspace
