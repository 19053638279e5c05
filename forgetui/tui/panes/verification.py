"""The verification pane: each check passing or failing, the step it last changed, ready flag.

The checks are a list with a cursor (like the memory pane's), so `enter` can open one in full:
the pane shows only the first line of each check's details, which for a failing test run is
the summary, not what failed."""

from __future__ import annotations

import re
from typing import ClassVar

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.events import Click
from textual.geometry import Region
from textual.widget import Widget

from forgetui.tui.markup import fmt
from forgetui.tui.panes.cursor_list import CursorList
from forgetui.tui.snapshot import CheckView, TaskSnapshot

# A test runner's timing ("1 passed in 1.55s") changes on every run and says nothing about
# the task; the pane shows the counts only.
_TIMING = re.compile(r"\s+in \d+(?:\.\d+)?s\b")
STATE_TEXT = {
    True: "[b $success]pass[/]", False: "[b $error]fail[/]", None: "[$foreground-muted] —  [/]",
}  # fmt: skip


def first_line(details: str) -> str:
    """What the pane shows of a check's details: the first line, without the timing."""
    return _TIMING.sub("", details.splitlines()[0]) if details.strip() else ""


def check_lines(check: CheckView, width: int) -> list[Content]:
    """One check's rows: state, name and since-step; then the first line of its details."""
    since = f"since step {check.changed_at_step}" if check.changed_at_step else ""
    rows = [
        fmt(f"{STATE_TEXT[check.passing]} $name  [$foreground-muted]$since[/]",
            name=check.name.ljust(width), since=since)
    ]  # fmt: skip
    details = first_line(check.details)
    if details:
        rows.append(fmt("     [$foreground-muted]$details[/]", details=details))
    return rows


def ready_lines(ready: bool) -> list[Content]:
    state = "[b $success]yes[/]" if ready else "[b $warning]not yet[/]"
    return [Content(""), fmt(f"ready for completion: {state}")]


class CheckList(CursorList[CheckView]):
    """The checks with a cursor, then the ready line. Lines never wrap, so each check's rows
    sit at a known height and the pane can scroll the cursor into view."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"checks--cursor"}

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.ready = False
        self._shown = False  # nothing until the first snapshot
        self._rows: list[list[Content]] = []  # per check, its rows
        self._tail: list[Content] = []  # the rows after the checks

    @staticmethod
    def key_of(item: CheckView) -> str:
        return item.name

    @property
    def checks(self) -> tuple[CheckView, ...]:
        return self.items

    def show(self, checks: tuple[CheckView, ...], ready: bool) -> None:
        """New checks; the cursor stays on its check (by name). A no-op when nothing changed:
        this runs at every snapshot."""
        if self._shown and checks == self.items and ready == self.ready:
            return
        self.ready, self._shown = ready, True
        height = sum(map(len, self._rows)) + len(self._tail) if self._rows else -1
        width = max((len(check.name) for check in checks), default=0)
        self._rows = [check_lines(check, width) for check in checks]
        self._tail = ready_lines(ready)
        if not checks:
            self._tail = [fmt("[$foreground-muted](this task defines no checks)[/]"), *self._tail]
        self.replace_items(checks)
        # a layout pass only when the list's height changes: this runs after most steps
        self.refresh(layout=sum(map(len, self._rows)) + len(self._tail) != height)

    def _first_row(self, index: int) -> int:
        return sum(len(rows) for rows in self._rows[:index])

    def render(self) -> Content:
        out: list[Content] = []
        focused = self.has_focus
        cursor = self.get_visual_style("checks--cursor") if focused else None
        width = self.size.width
        for index, rows in enumerate(self._rows):
            if cursor is not None and index == self.cursor:
                rows = [
                    row.pad_right(max(0, width - row.cell_length)).stylize(cursor) for row in rows
                ]
            out += rows
        return Content("\n").join(out + self._tail)

    def get_content_height(self, container: object, viewport: object, width: int) -> int:
        return sum(len(rows) for rows in self._rows) + len(self._tail)

    def watch_cursor(self) -> None:
        self.refresh()
        self._scroll_to_cursor()

    def _scroll_to_cursor(self) -> None:
        pane = self.parent
        if not isinstance(pane, Widget) or not self._rows:
            return
        top = self.virtual_region.y + self._first_row(self.cursor)
        height = len(self._rows[self.cursor]) if self.cursor < len(self._rows) else 1
        pane.scroll_to_region(Region(0, top, 1, height), animate=False, immediate=True)

    def on_click(self, event: Click) -> None:
        row = 0
        for index, rows in enumerate(self._rows):
            if row <= event.y < row + len(rows):
                self.cursor = index
                return
            row += len(rows)


class VerificationPane(VerticalScroll, can_focus=False):
    """Scrolls the check list; the list, not the pane, takes focus (the pane's arrow keys
    move the cursor)."""

    def compose(self) -> ComposeResult:
        yield CheckList(id="check-list")

    def on_mount(self) -> None:
        self.border_title = "verification"

    @property
    def list(self) -> CheckList:
        return self.query_one(CheckList)

    def focused_check(self) -> CheckView | None:
        """The selected check while the list has focus: what `enter` opens."""
        check_list = self.list
        return check_list.selected if check_list.has_focus else None

    def show_snapshot(self, snapshot: TaskSnapshot) -> None:
        self.list.show(snapshot.checks, snapshot.ready)
        self.set_class(snapshot.ready, "-ready")
