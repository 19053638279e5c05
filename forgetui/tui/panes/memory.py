"""The working-memory pane: every item with its type, key or summary, step, tokens, expiry and
pin mark. Working memory is bounded (max_items), so the pane renders all its rows as one
piece of text: cheaper per step than a table widget that rebuilds its rows."""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.events import Click
from textual.geometry import Region
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from forgetui.engine.api import MemoryRow
from forgetui.tui.panes.cursor_list import CursorList

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


def expiry_text(row: MemoryRow) -> str:
    if row.pinned:
        return "pinned"
    if row.expires_in is None:
        return "—"
    if row.expires_in == 0:
        return "expired"
    return f"in {row.expires_in}"


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

    @property
    def rows(self) -> tuple[MemoryRow, ...]:
        return self.items

    def set_rows(self, rows: tuple[MemoryRow, ...]) -> None:
        grew = len(rows) != len(self.items)
        self.replace_items(rows)
        self.refresh(layout=grew)
        self.post_message(self.CursorMoved())

    def render(self) -> Text:
        width = self.size.width
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(_line([name for name, _ in COLUMNS], width),
                    self.get_component_rich_style("memory--header"))  # fmt: skip
        cursor_style = self.get_component_rich_style("memory--cursor")
        hidden = self.get_component_rich_style("memory--hidden")
        for index, row in enumerate(self.rows):
            style = Style() if row.visible else hidden
            if index == self.cursor and self.has_focus:
                style += cursor_style
            elif index == self.cursor:
                style += Style(bold=True)
            text.append("\n")
            text.append(_line(_cells(row), width).ljust(width), style)
        return text

    def get_content_height(self, container: object, viewport: object, width: int) -> int:
        return len(self.rows) + 1

    def watch_cursor(self) -> None:
        self.refresh()
        self.post_message(self.CursorMoved())
        pane = self.parent  # a list longer than the pane: the cursor's row stays in view
        if isinstance(pane, Widget) and self.rows:
            row = Region(0, self.virtual_region.y + 1 + self.cursor, 1, 1)
            pane.scroll_to_region(row, animate=False, immediate=True)

    def on_click(self, event: Click) -> None:
        if 1 <= event.y <= len(self.rows):
            self.cursor = event.y - 1


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
        return self.list.selected

    def show_rows(self, rows: tuple[MemoryRow, ...]) -> None:
        if rows == self.list.rows:
            return
        self.list.set_rows(rows)
        pinned = sum(1 for row in rows if row.pinned)
        noun = "item" if len(rows) == 1 else "items"
        self.border_subtitle = f"{len(rows)} {noun}, {pinned} pinned"
        self.set_class(not rows, "-empty")
