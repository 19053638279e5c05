"""The action log pane: the log's header, its rows (log_view.py) and subtitle, and while a
model's answer streams in, that answer under the rows."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from forgetui.engine.api import LogRow
from forgetui.tui.panes.answer_view import AnswerView
from forgetui.tui.panes.log_columns import COLUMNS, column_widths, format_line
from forgetui.tui.panes.log_messages import (
    LogCursorRested,
    LogFiltered,
    LogFilterNeeded,
    LogStepFound,
)
from forgetui.tui.panes.log_view import CACHE_ROWS, REST_DELAY, LogView


def counted(number: int, noun: str) -> str:
    return f"{number:,} {noun}" + ("" if number == 1 else "s")


class ActionLogPane(Vertical):
    """The log's header, rows and subtitle (its size, or the filter and what it kept), and
    while a model's answer streams in, that answer under the rows."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "clear_filter", "clear filter", show=False),
    ]

    def compose(self) -> ComposeResult:
        yield Static("", id="log-header")
        yield LogView(id="log-view")
        yield AnswerView(id="answer-view")

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

    def show_log(self, records: int, tail: tuple[LogRow, ...]) -> None:
        self.view.show_log(records, tail)
        self._show_subtitle()

    def set_filter(self, text: str | None) -> None:
        self.view.set_filter(text)
        self._show_subtitle()

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
        view = self.view
        if view.filter is None:
            subtitle = f"{counted(view.count, 'row')} · {counted(view.records, 'record')}"
        elif view.matches is None:
            subtitle = f"filter: {view.filter} · searching…"
        else:
            subtitle = f"filter: {view.filter} · {len(view.matches):,} of {view.count:,} rows"
        self.border_subtitle = Content(subtitle)


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
