"""The action log's filter bar: a one-line input above the log's rows, opened by `/`. It says
what was typed after a short pause (FILTER_DELAY), so a big log is searched once per word
rather than per key; enter keeps the filter and hands the keys back to the log, escape clears
it. The pane (action_log.py) applies what it says and shows or hides it."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Input, Static

FILTER_DELAY = 0.2  # seconds typing rests before the log is filtered by it


class FilterInput(Input):
    """The bar's input: escape belongs to it (clear), before any pane's or screen's."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "clear", "clear filter", show=False),
    ]

    def on_mount(self) -> None:
        # the settings' cursor blink, as every text field (off in tests, for the snapshots)
        self.cursor_blink = getattr(getattr(self.app, "settings", None), "cursor_blink", True)

    def action_clear(self) -> None:
        self.post_message(LogFilterBar.Cleared())


class LogFilterBar(Horizontal):
    """Hidden until `open`; `Typed` after each pause in typing, `Kept` on enter, `Cleared`
    on escape."""

    DEFAULT_CSS = """
    LogFilterBar { height: 1; display: none; }
    LogFilterBar.-open { display: block; }
    LogFilterBar > #log-filter-prompt { width: auto; padding: 0 1 0 0; color: $accent; }
    LogFilterBar > FilterInput { height: 1; border: none; padding: 0; width: 1fr; }
    LogFilterBar > FilterInput:focus { border: none; }
    """

    class Typed(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class Kept(Typed):
        pass

    class Cleared(Message):
        pass

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._pause: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Static("filter:", id="log-filter-prompt")
        yield FilterInput(
            placeholder="action, target, result or summary · enter keeps · escape clears",
            id="log-filter-input",
        )

    @property
    def input(self) -> FilterInput:
        return self.query_one(FilterInput)

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    def open(self, text: str) -> None:
        """Show the bar holding `text` (the filter in force) and take the keys."""
        self.add_class("-open")
        field = self.input
        with field.prevent(Input.Changed):
            field.value = text
        field.cursor_position = len(text)
        # at once, not `field.focus()` (it waits for a callback): the keys typed right after
        # `/`, arriving with it in one read, would go to the log
        self.screen.set_focus(field)

    def close(self) -> None:
        self._stop()
        self.remove_class("-open")

    def _stop(self) -> None:
        if self._pause is not None:
            self._pause.stop()
            self._pause = None

    @on(Input.Changed, "#log-filter-input")
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        self._stop()
        self._pause = self.set_timer(FILTER_DELAY, self._rested)

    def _rested(self) -> None:
        self._pause = None
        self.post_message(self.Typed(self.input.value))

    @on(Input.Submitted, "#log-filter-input")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._stop()
        self.post_message(self.Kept(event.value))

    @on(Cleared)
    def _cleared(self) -> None:
        self._stop()  # the message bubbles on to the pane
