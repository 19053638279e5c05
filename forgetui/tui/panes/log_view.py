"""The action log's rows on screen: a Line API ScrollView over the log's rows (one per step,
its intent and result merged, one per operator change) that renders only the rows on screen. It
holds a bounded cache of rows; rows it lacks are asked for (LogWindowNeeded) and loaded off the
UI thread by index window, so a 10,000-record log costs what 50 rows cost. A filter shows only
the rows holding a text: the engine finds them off the UI thread (LogFilterNeeded), and the
newest rows that come with each snapshot keep them current. How a row looks is in
log_columns.py, how a line is styled in log_styles.py; the pane around it is action_log.py."""

from __future__ import annotations

from bisect import bisect_left
from typing import ClassVar

from rich.segment import Segment
from textual.binding import Binding, BindingType
from textual.events import Click
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.timer import Timer

from forgetui.engine.api import LogRow
from forgetui.tui.messages import LogWindowNeeded
from forgetui.tui.panes.log_columns import (
    RESULT_CLASSES,
    column_widths,
    fit,
    format_line,
    pending_cells,
    row_cells,
)
from forgetui.tui.panes.log_messages import LogCursorRested, LogFiltered, LogFilterNeeded
from forgetui.tui.panes.log_repaint import changed_lines
from forgetui.tui.panes.log_styles import LogLineStyles

CACHE_ROWS = 4000  # rows kept; beyond, the ones farthest from the cursor go
FETCH_MARGIN = 40  # rows fetched beyond the visible window, either side
REST_DELAY = 0.15  # seconds the cursor rests on a row before the context pane follows it
PENDING_LOOKBACK = 16  # newest rows looked through for the row of the step in flight


def _index(row: LogRow) -> int:
    return row.index


class LogView(LogLineStyles, can_focus=True):
    """The rows, one a line. Unfiltered: the log's `count` rows, cached by index and asked for
    by window. Filtered: only the matching rows (`matches`), all held: the cursor is then a
    position among them. The step our executor runs shows as a last line until its intent is
    in the log (the model may think for minutes; the operator sees what is running)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "log--cursor", "log--success", "log--failure", "log--warning", "log--muted",
        "log--operator", "log--placeholder", "log--blank", "log--superseded",
    }  # fmt: skip
    # a branch a rewind left behind: readable, selectable, but plainly not the live run
    DEFAULT_CSS = "LogView > .log--superseded { color: $text-disabled; text-style: italic; }"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor(-1)", "up", show=False),
        Binding("down", "cursor(1)", "down", show=False),
        Binding("pageup", "page(-1)", "page up", show=False),
        Binding("pagedown", "page(1)", "page down", show=False),
        Binding("home", "jump(0)", "first", show=False),
        Binding("end", "jump(-1)", "last", show=False),
    ]

    # watch_cursor repaints the two lines it moved between; the reactive's own repaint would
    # redraw every line of the view at each key
    cursor: reactive[int] = reactive(-1, init=False, repaint=False)

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.count = 0  # rows in the log
        self.records = 0  # records in actions.yaml
        self.rows: dict[int, LogRow] = {}
        self.following = True  # the cursor rides the newest row until the user moves it
        self.filter: str | None = None
        self.matches: list[LogRow] | None = None  # the filter's rows; None: the search runs
        self.pending_step: int | None = None  # our step in flight
        self.pending_note = ""  # what the step in flight is doing, if more than asking
        self._filtered_to = 0  # rows [0, _filtered_to) are searched
        self._searching = False
        self._tail: tuple[LogRow, ...] = ()  # the newest rows, as last loaded
        self._pending_shown = False
        self._pending_done = False  # recorded: the next load brings its row
        self._rest_timer: Timer | None = None
        self._rest_waiting = False  # the cursor rests on a row not loaded yet
        self._asked: tuple[int, int] | None = None
        self._rewinds: set[int] = set()  # rows of rewinds seen: a new one re-reads the rows

    # -- data ---------------------------------------------------------------------------------

    def show_log(self, records: int, tail: tuple[LogRow, ...]) -> None:
        """A load's view of the log: its record count and newest rows (the last row's index
        gives the number of rows). Keeps following the newest row, and the filter current."""
        count = tail[-1].index + 1 if tail else 0
        rewinds = {r.index for r in tail if r.action == "operator:rewind"} - self._rewinds
        self._rewinds |= rewinds
        whole = count < self.count or bool(rewinds) or self.filter is not None
        if count < self.count or rewinds:
            # replaced or cut, or a rewind marked rows held without the mark: they go
            self.rows.clear()
            if self.filter is not None:
                self._search(0)
        if self._pending_done:
            self.pending_step, self._pending_done = None, False
        fresh = () if whole else [row.index for row in tail if self.rows.get(row.index) != row]
        counts, lines_before = (self.count, count), self._lines()
        self.records = records
        self._tail = tail
        self.count = count
        self.add_rows(tail, repaint=whole)
        if self.filter is not None and self.matches is not None:
            self._merge_tail()
        # only the lines that changed, unless every line may have: a scroll repaints the lot
        self._relayout(repaint=whole)
        if not whole:
            for first, many in changed_lines(fresh, counts, (lines_before, self._lines())):
                self.refresh_lines(first, many)

    def add_rows(self, rows: tuple[LogRow, ...], repaint: bool = True) -> None:
        for row in rows:
            self.rows[row.index] = row
        if len(self.rows) > CACHE_ROWS:
            centre = self.cursor if self.filter is None else self.count
            for index in sorted(self.rows, key=lambda i: -abs(i - centre))[
                : len(self.rows) - CACHE_ROWS
            ]:
                del self.rows[index]
        self._asked = None
        self._update_pending()
        if self._rest_waiting and self.selected is not None:
            self._rested()
        if repaint:
            self.refresh()

    @property
    def selectable(self) -> int:
        """Lines the cursor may rest on."""
        if self.filter is not None:
            return len(self.matches or ())
        return self.count

    def _lines(self) -> int:
        return self.selectable + (self._pending_shown and self.filter is None)

    def row_at(self, line: int) -> LogRow | None:
        if self.filter is None:
            return self.rows.get(line)
        matches = self.matches or []
        return matches[line] if 0 <= line < len(matches) else None

    @property
    def selected(self) -> LogRow | None:
        return self.row_at(self.cursor)

    def _relayout(self, repaint: bool = True) -> None:
        """Size the view to its lines; keep the cursor on the newest one while following
        (`repaint`: every line; the cursor's own lines repaint as it moves)."""
        self._set_virtual_height(self._lines())
        selectable = self.selectable
        if self.following and selectable:
            self.cursor = selectable - 1
            # scroll once the new virtual size is laid out, or the scroll is clamped to the old
            self.call_after_refresh(self._show_cursor)
        else:
            if self.cursor >= selectable:
                self.cursor = selectable - 1
            self._ask_for_missing()
        if repaint:
            self.refresh()

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
        if self.filter is not None:
            return
        top, bottom = self._visible_range()
        if all(index in self.rows for index in range(top, bottom)):
            return
        window = (max(0, top - FETCH_MARGIN), min(self.count, bottom + FETCH_MARGIN))
        if window != self._asked:
            self._asked = window
            self.post_message(LogWindowNeeded(*window))

    # -- the step in flight ---------------------------------------------------------------------

    def set_pending(self, step: int | None) -> None:
        """The step in flight's line, after the rows: only that line repaints (it comes at
        every step while steps run back to back)."""
        self.pending_step, self._pending_done, self.pending_note = step, False, ""
        self._update_pending()
        self._relayout(repaint=False)
        if self.filter is None:
            self.refresh_line(self.count)

    def pending_recorded(self) -> None:
        """The step in flight was recorded: the next load brings its row (or none, if it
        stopped before the model was asked), and the pending line goes."""
        self._pending_done = True

    def _update_pending(self) -> None:
        """The pending line shows until the step's own row (its intent) is loaded."""
        step = self.pending_step
        self._pending_shown = step is not None and not any(
            (row := self.rows.get(index)) is not None and row.kind == "step" and row.step == step
            for index in range(max(0, self.count - PENDING_LOOKBACK), self.count)
        )

    # -- the filter -----------------------------------------------------------------------------

    def set_filter(self, text: str | None) -> None:
        """Show only the rows holding `text` (None or blank: every row). Filtering starts at
        the newest match; clearing returns to the row the cursor was on."""
        text = (text or "").strip() or None
        if text == self.filter:
            return
        chosen = self.selected
        self.filter = text
        self.matches, self._filtered_to, self._searching = None, 0, False
        if text is not None:
            self.following = True
            self._search(0)
        elif chosen is not None and chosen.index < self.count - 1:
            self.following = False
            self.cursor = chosen.index
            self.call_after_refresh(self._show_cursor)
        else:
            self.following = True
        self._relayout()

    def _search(self, start: int) -> None:
        """Ask for the matches from `start` on: from 0, afresh; later, one search at a time."""
        if self.filter is None or (self._searching and start):
            return
        if start == 0:
            self.matches = None
        self._searching = True
        self.post_message(LogFilterNeeded(self.filter, start))

    def show_filtered(self, message: LogFiltered) -> None:
        """The engine's search: the rows from `start` on that match, as of `count` rows."""
        if message.text != self.filter or (self.matches is None and message.start):
            return  # a filter since replaced, or a search for rows since searched afresh
        self._searching = False
        if self.matches is None:
            self.matches = []
        self._merge(message.start, message.count, message.rows)
        if self._tail and self._tail[-1].index + 1 >= message.count:
            self._merge_tail()  # the last load is as new as the search: its rows win
        elif self.count > self._filtered_to:
            self._search(self._filtered_to)
        self._relayout()

    def _merge_tail(self) -> None:
        tail = self._tail
        if not tail:
            return
        if tail[0].index > self._filtered_to:  # rows came that no search nor load covered
            self._search(self._filtered_to)
        else:
            self._merge(tail[0].index, tail[-1].index + 1, tail)

    def _merge(self, start: int, stop: int, rows: tuple[LogRow, ...]) -> None:
        """Rows [start, stop) of the filter's matches become those of `rows` that match; the
        cursor stays on its row."""
        assert self.matches is not None and self.filter is not None
        chosen = None if self.following else self.selected
        matches = self.matches
        low = bisect_left(matches, start, key=_index)
        high = bisect_left(matches, stop, key=_index)
        text = self.filter
        from forgetui.engine.api import log_row_matches  # the log's reader: after the first view

        found = [row for row in rows if start <= row.index < stop and log_row_matches(row, text)]
        self.matches = [*matches[:low], *found, *matches[high:]]
        self._filtered_to = max(self._filtered_to, stop)
        if chosen is not None:
            self.cursor = min(
                bisect_left(self.matches, chosen.index, key=_index), len(self.matches) - 1
            )

    # -- rendering ------------------------------------------------------------------------------
    def _empty_hint(self) -> str:
        if self.filter is None:
            return "  no actions yet: s runs one step, space runs until paused"
        if self.matches is None:
            return f"  searching the log for “{self.filter}”…"
        return f"  no row holds “{self.filter}”: escape shows every row"

    def render_line(self, y: int) -> Strip:
        line = int(self.scroll_offset.y) + y
        width = self.scrollable_content_region.width
        if line >= self._lines():
            if y == 0 and not self.selectable:
                hint = self._empty_hint()
                return Strip([Segment(fit(hint, width), self._style("log--placeholder"))], width)
            return Strip.blank(width, self._style("log--blank"))
        if self.filter is None and line == self.count:
            cells, component = pending_cells(self.pending_step), "log--muted"
            if self.pending_note:
                cells[4] = self.pending_note
        else:
            row = self.row_at(line)
            if row is None:
                self.call_after_refresh(self._ask_for_missing)
                text = fit(f"{line + 1:>6} …", width)
                return Strip([Segment(text, self._style("log--placeholder"))], width)
            cells, component = row_cells(row), RESULT_CLASSES.get(row.result, "log--muted")
            if row.superseded:
                component = "log--superseded"
        style = self._style(component)
        if line == self.cursor:
            style += self._style("log--cursor")
        text = format_line(cells, column_widths(width))
        return Strip([Segment(fit(text, width), style)], width)

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        self._ask_for_missing()

    def on_resize(self) -> None:
        self._styles.clear()
        if self.following:  # shorter (the streamed answer below it): the newest line stays
            self._show_cursor()
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

    def go_to_row(self, index: int) -> None:
        """The cursor on row `index` of the log (the filter goes: the row may not match)."""
        self.set_filter(None)
        self._move_to(index)

    def _move_to(self, line: int) -> None:
        """A move of the operator's: the context pane follows once the cursor rests."""
        selectable = self.selectable
        if not selectable:
            return
        line = max(0, min(selectable - 1, line))
        self.cursor = line
        self.following = line == selectable - 1
        self._show_cursor()
        if self._rest_timer is not None:
            self._rest_timer.stop()
        self._rest_timer = self.set_timer(REST_DELAY, self._rested)

    def _rested(self) -> None:
        """Say where the cursor rests, once its row is loaded (a jump may land on a row still
        being read)."""
        self._rest_timer = None
        row = self.selected
        self._rest_waiting = row is None
        if row is not None:
            self.post_message(LogCursorRested(row, newest=row.index == self.count - 1))

    def _show_cursor(self) -> None:
        """Scroll just enough to show the cursor row (following: the last line, the pending
        step's included), then load what became visible."""
        top = int(self.scroll_offset.y)
        height = max(1, self.scrollable_content_region.height)
        bottom = self._lines() - 1 if self.following else self.cursor
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif bottom >= top + height:
            self.scroll_to(y=bottom - height + 1, animate=False, immediate=True)
        self._ask_for_missing()

    def action_cursor(self, delta: int) -> None:
        self._move_to(self.cursor + delta)

    def action_page(self, direction: int) -> None:
        self._move_to(self.cursor + direction * max(1, self.scrollable_content_region.height - 1))

    def action_jump(self, where: int) -> None:
        self._move_to(self.selectable - 1 if where < 0 else where)

    def on_click(self, event: Click) -> None:
        self._move_to(int(self.scroll_offset.y) + event.y)
