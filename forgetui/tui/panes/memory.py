"""The working-memory pane: every item with its type, key or summary, step, tokens, expiry and
pin mark, then under its own heading the workspace's project memory (the entries every task
here sees, and a line for a file left out). Both are bounded, so the pane renders all its rows
as one piece of text: cheaper per step than a table widget that rebuilds its rows."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.events import Click
from textual.geometry import Region
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from forgetui.engine import api
from forgetui.engine.api import MemoryRow
from forgetui.tui.panes.cursor_list import CursorList
from forgetui.tui.steady import set_subtitle_line

# (heading, width); the summary column (width 0) takes what is left
COLUMNS: tuple[tuple[str, int], ...] = (
    ("", 1),
    ("type", 6),
    ("key / summary", 0),
    ("step", 4),
    ("tok", 5),
    ("expires", 7),
)
RIGHT = {3, 4}
TYPE_TEXT = {"action_result": "result", "loaded_context": "loaded"}
KIND_TEXT = {"preference": "pref", "convention": "conv", "command": "cmd", "knowledge": "know"}
PROJECT_HEADING = "project memory · all tasks here"


def expiry_text(row: MemoryRow) -> str:
    if row.pinned:
        return "pinned"
    if row.expires_in is None:
        return "—"
    if row.expires_in == 0:
        return "expired"
    return f"in {row.expires_in}"


def project_row(entry: api.ProjectRow) -> MemoryRow:
    """A project memory entry as a pane row: the memory commands (edit, remove) select it like
    any item; its ref is the entry's id."""
    return MemoryRow(
        ref=entry.id, type=entry.kind, summary=f"{entry.id} {entry.text}", step=None, tokens=0,
        expires_in=None, pinned=False, visible=True, content=entry.text,
    )  # fmt: skip


def _project_cells(row: MemoryRow) -> list[str]:
    return [" ", KIND_TEXT.get(row.type, row.type), row.summary, "", "", "lasting"]


def _cells(row: MemoryRow) -> list[str]:
    return [
        "●" if row.pinned else " ",
        TYPE_TEXT.get(row.type, row.type),
        row.summary,
        str(row.step) if row.step is not None else "",
        str(row.tokens),
        expiry_text(row),
    ]


NARROW = 40  # below this width the step, tokens and expiry columns give way to the summary


def _line(cells: list[str], width: int) -> str:
    shown = range(len(COLUMNS)) if width >= NARROW else range(3)
    fixed = sum(COLUMNS[index][1] + 1 for index in shown if COLUMNS[index][1])
    out = []
    for index in shown:
        cell, column = cells[index], COLUMNS[index][1]
        size = column or max(8, width - fixed - 1)
        text = cell.replace("\n", " ")
        text = text[: size - 1] + "…" if len(text) > size else text
        out.append(text.rjust(size) if index in RIGHT else text.ljust(size))
    return " ".join(out)


class MemoryList(CursorList[MemoryRow]):
    """The rows, with a cursor; the cursor stays on its item (by ref) across refreshes."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"memory--header", "memory--cursor", "memory--hidden"}

    class CursorMoved(Message):
        """The selected item changed (what applies to it may have)."""

    @staticmethod
    def key_of(item: MemoryRow) -> str:
        return item.ref

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.working: tuple[MemoryRow, ...] = ()
        self.project: tuple[MemoryRow, ...] = ()
        self.problems: tuple[str, ...] = ()

    @property
    def rows(self) -> tuple[MemoryRow, ...]:
        return self.working

    def is_project(self, row: MemoryRow) -> bool:
        return any(row is entry for entry in self.project)

    def set_rows(
        self, rows: tuple[MemoryRow, ...], project: tuple[MemoryRow, ...] | None = None,
        problems: tuple[str, ...] | None = None,
    ) -> None:  # fmt: skip
        before = self._height()
        self.working = rows
        if project is not None:
            self.project = project
        if problems is not None:
            self.problems = problems
        self.replace_items((*self.working, *self.project))
        self.refresh(layout=self._height() != before)
        self.post_message(self.CursorMoved())

    def _heading(self) -> bool:
        return bool(self.project or self.problems)

    def _height(self, width: int | None = None) -> int:
        problems = self._problem_lines(width if width is not None else self.size.width)
        return 1 + len(self.items) + self._heading() + len(problems)

    def _problem_lines(self, width: int) -> list[str]:
        """Each file left out and why, wrapped to the pane (the reason is the point)."""
        lines: list[str] = []
        for problem in self.problems:
            text = "left out: " + problem.removeprefix(".agentforge/memory/")
            lines += textwrap.wrap(text, max(8, width), subsequent_indent="  ") or [""]
        return lines

    def _line_of(self, index: int) -> int:
        """The line (after the column heading) of item `index`: project rows come after
        their own heading."""
        return index + (1 if index >= len(self.working) else 0)

    def render(self) -> Text:
        width = self.size.width
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(_line([name for name, _ in COLUMNS], width),
                    self.get_component_rich_style("memory--header"))  # fmt: skip
        cursor_style = self.get_component_rich_style("memory--cursor")
        hidden = self.get_component_rich_style("memory--hidden")
        header = self.get_component_rich_style("memory--header")
        for index, row in enumerate(self.items):
            project = index >= len(self.working)
            if index == len(self.working):
                text.append("\n")
                text.append(PROJECT_HEADING[: max(0, width)].ljust(width), header)
            style = Style() if row.visible else hidden
            if index == self.cursor and self.has_focus:
                style += cursor_style
            elif index == self.cursor:
                style += Style(bold=True)
            text.append("\n")
            cells = _project_cells(row) if project else _cells(row)
            text.append(_line(cells, width).ljust(width), style)
        if self.problems and not self.project:
            text.append("\n")
            text.append(PROJECT_HEADING[: max(0, width)].ljust(width), header)
        for line in self._problem_lines(width):
            text.append("\n")
            text.append(line.ljust(width), hidden)
        return text

    def get_content_height(self, container: object, viewport: object, width: int) -> int:
        return self._height(width)

    def watch_cursor(self) -> None:
        self.refresh()
        self.post_message(self.CursorMoved())
        pane = self.parent  # a list longer than the pane: the cursor's row stays in view
        if isinstance(pane, Widget) and self.items:
            row = Region(0, self.virtual_region.y + 1 + self._line_of(self.cursor), 1, 1)
            pane.scroll_to_region(row, animate=False, immediate=True)

    def on_click(self, event: Click) -> None:
        for index in range(len(self.items)):
            if event.y == 1 + self._line_of(index):
                self.cursor = index


class MemoryPane(VerticalScroll, can_focus=False):
    """Scrolls the list when it is longer than the pane; the list, not the pane, takes focus."""

    def compose(self) -> ComposeResult:
        yield MemoryList(id="memory-list")
        yield Static(
            "empty: action results, loaded files and notes (n) appear here", id="memory-empty"
        )

    def on_mount(self) -> None:
        self.border_title = "working memory"
        self.add_class("-empty")

    @property
    def list(self) -> MemoryList:
        return self.query_one(MemoryList)

    @property
    def rows(self) -> tuple[MemoryRow, ...]:
        return self.list.rows

    @property
    def selected(self) -> MemoryRow | None:
        """The row under the cursor: a working-memory item or a project memory entry
        (`selected_project` tells which)."""
        return self.list.selected

    @property
    def selected_project(self) -> MemoryRow | None:
        row = self.list.selected
        return row if row is not None and self.list.is_project(row) else None

    def show_rows(self, rows: tuple[MemoryRow, ...]) -> None:
        path = getattr(getattr(self.screen, "reader", None), "path", None)
        if path is not None:  # at every reload: an entry added elsewhere shows up here too
            # once painted: its reader (YAML, the file models) loads after the first view
            self.call_after_refresh(self.load_project, path)
        if rows != self.list.rows:
            self.list.set_rows(rows)
        self._sum_up()  # the screen may have marked the pane empty meanwhile

    def show_project(self, view: api.ProjectView) -> None:
        project = tuple(project_row(entry) for entry in view.rows)
        if project == self.list.project and view.problems == self.list.problems:
            return
        self.list.set_rows(self.list.rows, project, view.problems)
        self._sum_up()

    def _sum_up(self) -> None:
        rows, project = self.list.rows, self.list.project
        pinned = sum(1 for row in rows if row.pinned)
        noun = "item" if len(rows) == 1 else "items"
        lasting = f" · {len(project)} project" if project else ""
        set_subtitle_line(self, Content(f"{len(rows)} {noun}, {pinned} pinned{lasting}"))
        self.set_class(not rows and not project and not self.list.problems, "-empty")

    @work(thread=True, exclusive=True, group="project-memory", exit_on_error=False)
    def load_project(self, path: Path) -> None:
        """The workspace's project memory, read in a thread (files, maybe YAML); the pane
        changes only when it did."""
        view = api.project_view(api.project_workspace(path))
        self.app.call_from_thread(self.show_project, view)
