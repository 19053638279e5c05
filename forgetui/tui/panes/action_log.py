"""The action log pane: the filter bar (log_filter_bar.py), the log's header, its rows
(log_view.py) and subtitle, and while a model's answer streams in, that answer under the rows.
The title says the filter in force and how many rows it kept."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from forgetui.engine.api import LogRow
from forgetui.tui.commands import COMMANDS
from forgetui.tui.pane_title import set_pane_title
from forgetui.tui.panes.answer_view import AnswerView
from forgetui.tui.panes.log_columns import COLUMNS, column_widths, format_line
from forgetui.tui.panes.log_filter_bar import LogFilterBar
from forgetui.tui.panes.log_messages import (
    LogCursorRested,
    LogFiltered,
    LogFilterNeeded,
    LogStepFound,
)
from forgetui.tui.panes.log_view import CACHE_ROWS, REST_DELAY, LogView
from forgetui.tui.steady import set_subtitle_line

FILTER = next(command for command in COMMANDS if command.id == "filter")


def counted(number: int, noun: str) -> str:
    return f"{number:,} {noun}" + ("" if number == 1 else "s")


class ActionLogPane(Vertical):
    """The filter bar (while a filter is typed or in force), the log's header, rows and
    subtitle (its size), and while a model's answer streams in, that answer under the rows."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "clear_filter", "clear filter", show=False),
    ]

    def compose(self) -> ComposeResult:
        yield LogFilterBar(id="log-filter-bar")
        yield Static("", id="log-header")
        yield LogView(id="log-view")
        yield AnswerView(id="answer-view")

    def on_mount(self) -> None:
        self.border_title = "action log"
        self._title = "action log"
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

    def show_log(self, records: int, tail: tuple[LogRow, ...]) -> None:
        self.view.show_log(records, tail)
        self._show_subtitle()

    def set_filter(self, text: str | None) -> None:
        self.view.set_filter(text)
        self._show_subtitle()

    def open_filter(self) -> None:
        """The filter bar, holding the filter in force, takes the keys."""
        self.query_one(LogFilterBar).open(self.view.filter or "")

    def catch_filter_burst(self, event: events.Key) -> bool:
        """Whether this took `event`, a key come up to the screen from any pane. Keys read
        together with the filter key (a paste, fast typing) are all handed to the pane that
        had the focus before the app's binding for the first one runs; the text behind it
        belongs in the bar, not to that pane's commands (`a` answers, `s` steps). So the
        filter key opens the bar at once, and printable keys coming up while the bar holds the
        focus go on into it (the bar's input keeps those typed into it: none comes up)."""
        bar = self.query_one(LogFilterBar)
        if self.screen.focused is bar.input:  # at once; `has_focus` waits for the focus event
            if not event.is_printable:
                return False
            bar.input.post_message(events.Key(event.key, event.character))
        elif event.key not in self._filter_keys():  # at once: what applies is read only then
            return False
        else:
            active = self.screen.active_bindings.get(event.key)
            if active is None or not active.enabled or active.binding.action != FILTER.action:
                return False
            self.open_filter()
        event.stop()
        event.prevent_default()
        return True

    def _filter_keys(self) -> set[str]:
        """The filter's keys, after the user's keymap."""
        keymap = getattr(getattr(self.app, "settings", None), "keymap", {})
        return {key.strip() for key in (keymap.get(FILTER.id) or FILTER.key).split(",")}

    # The bar's messages are applied from the view's own queue: a message the view posts while
    # the pane handles one counts as the pane's, and Textual stops it at the pane.

    @on(LogFilterBar.Typed)
    def _filter_typed(self, message: LogFilterBar.Typed) -> None:
        message.stop()
        self.view.call_next(self._apply_typed, message.text, isinstance(message, LogFilterBar.Kept))

    @on(LogFilterBar.Cleared)
    def _filter_cleared(self, message: LogFilterBar.Cleared) -> None:
        message.stop()
        self.view.call_next(self._apply_typed, None, True)

    def _apply_typed(self, text: str | None, leave: bool) -> None:
        self.set_filter(text)
        if leave:
            self._leave_bar()

    def _leave_bar(self) -> None:
        """The keys back to the log; the bar stays while a filter is in force."""
        if self.view.filter is None:
            self.query_one(LogFilterBar).close()
        self.view.focus()

    def on_descendant_blur(self) -> None:
        """A bar left empty (the keys went elsewhere) goes."""
        self.call_after_refresh(self._show_subtitle)

    def show_answer(self, step: int, text: str) -> None:
        """The answer of step `step` so far; the first one shows the answer's view."""
        answer = self.query_one(AnswerView)
        if not self.has_class("-answer"):
            answer.border_title = f"step {step}: the model's answer so far"
            self.add_class("-answer")
            self.view.pending_note = "the model is answering"
            self.view.refresh()
        answer.show(text)

    def clear_answer(self) -> None:
        if self.has_class("-answer"):
            self.remove_class("-answer")
            self.query_one(AnswerView).clear()

    def show_filtered(self, message: LogFiltered) -> None:
        self.view.show_filtered(message)
        self._show_subtitle()

    def go_to_row(self, index: int) -> None:
        self.view.go_to_row(index)
        self._show_subtitle()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Escape clears a filter; without one, it is left to the screen."""
        return self.view.filter is not None if action == "clear_filter" else True

    def action_clear_filter(self) -> None:
        self.set_filter(None)

    def _show_subtitle(self) -> None:
        """The log's size under it; the filter and what it kept in the title, the bar shown
        while the filter is in force or being typed. A call queued after a refresh may find
        the pane gone (its workbench replaced by a fork's): nothing to show then."""
        if not self.is_attached or not self.query(LogView):
            return
        view = self.view
        size = f"{counted(view.count, 'row')} · {counted(view.records, 'record')}"
        set_subtitle_line(self, Content(size))
        if view.filter is None:
            title = "action log"
        elif view.matches is None:
            title = f"action log · filter “{view.filter}” · searching…"
        else:
            kept = f"{len(view.matches):,} of {view.count:,} rows"
            title = f"action log · filter “{view.filter}” · {kept}"
        if title != self._title:
            self._title = title
            set_pane_title(self, title)
        bar = self.query_one(LogFilterBar)
        if view.filter is None and bar.is_open and not bar.input.has_focus:
            bar.close()


__all__ = [
    "CACHE_ROWS",
    "REST_DELAY",
    "ActionLogPane",
    "LogCursorRested",
    "LogFilterNeeded",
    "LogFiltered",
    "LogStepFound",
    "LogView",
    "counted",
]
