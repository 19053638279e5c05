"""The action log pane: a Line API ScrollView over actions.yaml that renders only the rows on
screen. It holds a bounded cache of rows; rows it lacks are asked for (LogWindowNeeded) and
loaded off the UI thread by index window, so a 10,000-record log costs what 50 rows cost."""

from __future__ import annotations

from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.events import Click
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Static

from forgetui.engine.api import LogRow
from forgetui.tui.messages import LogWindowNeeded

CACHE_ROWS = 4000  # rows kept; beyond, the ones farthest from the cursor go
FETCH_MARGIN = 40  # rows fetched beyond the visible window, either side
# (name, width); the summary column takes what is left
COLUMNS: tuple[tuple[str, int], ...] = (
    ("step", 6),
    ("action", 22),
    ("target", 26),
    ("result", 10),
    ("summary", 0),
    ("tokens", 7),
    ("cost", 9),
)
RESULT_CLASSES = {
    "success": "log--success",
    "failure": "log--failure",
    "error": "log--failure",
    "blocked": "log--warning",
    "refused": "log--warning",
    "escalated": "log--warning",
    "skipped": "log--muted",
    "intent": "log--muted",
    "": "log--operator",
}


def _fit(text: str, width: int, right: bool = False) -> str:
    text = text.replace("\n", " ")
    if len(text) > width:
        return text[: max(0, width - 1)] + "…"
    return text.rjust(width) if right else text.ljust(width)


def column_widths(total: int) -> list[int]:
    fixed = sum(width + 1 for _, width in COLUMNS if width)
    summary = max(10, total - fixed - 1)
    return [width or summary for _, width in COLUMNS]


def row_cells(row: LogRow) -> list[str]:
    return [
        str(row.step),
        row.action,
        row.target,
        row.result,
        row.summary,
        f"{row.tokens:,}" if row.tokens else "",
        f"${row.cost:.4f}" if row.cost else "",
    ]


def format_line(cells: list[str], widths: list[int]) -> str:
    right = {0, 5, 6}
    return " ".join(
        _fit(cell, w, i in right) for i, (cell, w) in enumerate(zip(cells, widths, strict=True))
    )


class LogView(ScrollView, can_focus=True):
    """The rows. `count` is the number of records in the log; rows come in via `add_rows`."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "log--cursor", "log--success", "log--failure", "log--warning", "log--muted",
        "log--operator", "log--placeholder", "log--blank",
    }  # fmt: skip
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor(-1)", "up", show=False),
        Binding("down", "cursor(1)", "down", show=False),
        Binding("pageup", "page(-1)", "page up", show=False),
        Binding("pagedown", "page(1)", "page down", show=False),
        Binding("home", "jump(0)", "first", show=False),
        Binding("end", "jump(-1)", "last", show=False),
    ]

    cursor: reactive[int] = reactive(-1, init=False)

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.count = 0
        self.rows: dict[int, LogRow] = {}
        self.following = True  # the cursor rides the newest row until the user moves it
        self._asked: tuple[int, int] | None = None
        self._styles: dict[str, Style] = {}  # per component, until the CSS or focus changes

    # -- data ---------------------------------------------------------------------------------

    def set_count(self, count: int) -> None:
        """The log grew (or was replaced): resize, and keep following the newest row."""
        if count < self.count:
            self.rows.clear()
        self.count = count
        self._set_virtual_height(count)
        if self.following and count:
            self.cursor = count - 1
            # scroll once the new virtual size is laid out, or the scroll is clamped to the old
            self.call_after_refresh(self._show_cursor)
        else:
            if self.cursor >= count:
                self.cursor = count - 1
            self._ask_for_missing()
        self.refresh()

    def add_rows(self, rows: tuple[LogRow, ...]) -> None:
        for row in rows:
            self.rows[row.index] = row
        if len(self.rows) > CACHE_ROWS:
            centre = self.cursor
            for index in sorted(self.rows, key=lambda i: -abs(i - centre))[
                : len(self.rows) - CACHE_ROWS
            ]:
                del self.rows[index]
        self._asked = None
        self.refresh()

    @property
    def selected(self) -> LogRow | None:
        return self.rows.get(self.cursor)

    def _set_virtual_height(self, count: int) -> None:
        """Resize the scrollable area without a layout pass of the whole screen (assigning
        virtual_size lays out every widget; the view's own size does not change, and its
        scrollbar is always shown, so nothing else moves)."""
        size = Size(0, count)
        if size != self.virtual_size:
            self.set_reactive(ScrollView.virtual_size, size)
            self._scroll_update(size)

    def _visible_range(self) -> tuple[int, int]:
        top = int(self.scroll_offset.y)
        return top, min(self.count, top + self.scrollable_content_region.height)

    def _ask_for_missing(self) -> None:
        top, bottom = self._visible_range()
        if all(index in self.rows for index in range(top, bottom)):
            return
        window = (max(0, top - FETCH_MARGIN), min(self.count, bottom + FETCH_MARGIN))
        if window != self._asked:
            self._asked = window
            self.post_message(LogWindowNeeded(*window))

    # -- rendering ------------------------------------------------------------------------------

    def _style(self, component: str) -> Style:
        """The widget's style with a component's colour on top (blended, so `$text-muted`
        reads muted); the background stays the pane's except on the cursor row."""
        style = self._styles.get(component)
        if style is None:
            part = self.get_component_rich_style(component)
            style = self.rich_style + Style(
                color=part.color, bold=part.bold, dim=part.dim, italic=part.italic,
                bgcolor=part.bgcolor if component == "log--cursor" else None,
            )  # fmt: skip
            self._styles[component] = style
        return style

    def notify_style_update(self) -> None:
        self._styles.clear()
        super().notify_style_update()

    def on_focus(self) -> None:
        self._styles.clear()
        self.refresh()

    def on_blur(self) -> None:
        self._styles.clear()
        self.refresh()

    def render_line(self, y: int) -> Strip:
        index = int(self.scroll_offset.y) + y
        width = self.scrollable_content_region.width
        if index >= self.count:
            if self.count == 0 and y == 0:
                hint = "  no actions yet: s runs one step, space runs until paused"
                return Strip([Segment(_fit(hint, width), self._style("log--placeholder"))], width)
            return Strip.blank(width, self._style("log--blank"))
        row = self.rows.get(index)
        if row is None:
            self.call_after_refresh(self._ask_for_missing)
            text = _fit(f"{index + 1:>6} …", width)
            return Strip([Segment(text, self._style("log--placeholder"))], width)
        text = format_line(row_cells(row), column_widths(width))
        style = self._style(RESULT_CLASSES.get(row.result, "log--muted"))
        if index == self.cursor:
            style += self._style("log--cursor")
        return Strip([Segment(_fit(text, width), style)], width)

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        self._ask_for_missing()

    def on_resize(self) -> None:
        self._styles.clear()
        self._ask_for_missing()

    # -- moving ---------------------------------------------------------------------------------

    def watch_cursor(self, old: int, new: int) -> None:
        """Repaint the two rows the cursor left and entered, not the whole view."""
        top = int(self.scroll_offset.y)
        for row in (old, new):
            if row >= 0:
                self.refresh_line(row)
        if not (top <= new < top + self.scrollable_content_region.height):
            self.refresh()

    def _move_to(self, index: int) -> None:
        if not self.count:
            return
        index = max(0, min(self.count - 1, index))
        self.cursor = index
        self.following = index == self.count - 1
        self._show_cursor()

    def _show_cursor(self) -> None:
        """Scroll just enough to show the cursor row, then load what became visible."""
        top = int(self.scroll_offset.y)
        height = max(1, self.scrollable_content_region.height)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False, immediate=True)
        self._ask_for_missing()

    def action_cursor(self, delta: int) -> None:
        self._move_to(self.cursor + delta)

    def action_page(self, direction: int) -> None:
        self._move_to(self.cursor + direction * max(1, self.scrollable_content_region.height - 1))

    def action_jump(self, where: int) -> None:
        self._move_to(self.count - 1 if where < 0 else where)

    def on_click(self, event: Click) -> None:
        self._move_to(int(self.scroll_offset.y) + event.y)


class ActionLogPane(Vertical):
    def compose(self) -> ComposeResult:
        yield Static("", id="log-header")
        yield LogView(id="log-view")

    def on_mount(self) -> None:
        self.border_title = "action log"
        self._header_width = 0

    def on_resize(self) -> None:
        width = self.query_one(LogView).scrollable_content_region.width or self.size.width
        if width != self._header_width:
            self._header_width = width
            names = [name for name, _ in COLUMNS]
            self.query_one("#log-header", Static).update(
                Text(format_line(names, column_widths(width)), no_wrap=True)
            )

    @property
    def view(self) -> LogView:
        return self.query_one(LogView)

    def show_log(self, count: int, tail: tuple[LogRow, ...]) -> None:
        view = self.view
        view.add_rows(tail)
        view.set_count(count)
        self.border_subtitle = f"{count:,} records"
