"""Reading what the task recorded, from the workbench: a record or check in full, the context
as sent at an earlier step, the action log filtered or at a step. Nothing here writes the task;
reads run in thread workers on the screen, which hands their messages back here."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from textual.message import Message
from textual.screen import Screen

from forgetui.engine.api import ForgeError
from forgetui.tui.messages import DetailLoaded, SavedContextLoaded
from forgetui.tui.panes.action_log import (
    ActionLogPane,
    LogCursorRested,
    LogFiltered,
    LogFilterNeeded,
    LogStepFound,
)
from forgetui.tui.panes.context import ContextPane
from forgetui.tui.snapshot import TaskReader, TaskSnapshot
from forgetui.tui.workers import in_thread

if TYPE_CHECKING:
    from forgetui.tui.snapshot import CheckView


class BrowserHost(Protocol):
    """What the browser asks of the workbench: the task as last read, the footer, and the
    next step's preview (a reload) when paging goes past the last step."""

    @property
    def snapshot(self) -> TaskSnapshot | None: ...

    def sync_bindings(self) -> None: ...

    def request_reload(self, urgent: bool = False) -> None: ...


class HistoryBrowser:
    """Owns which step's context the context pane shows (`context_step`, None: the next step's
    preview); `screen` is where its reads run and its modals open."""

    def __init__(self, screen: Screen[Any], host: BrowserHost, reader: TaskReader) -> None:
        self._screen = screen
        self._host = host
        self._reader = reader
        self.context_step: int | None = None

    async def handle(self, message: Message) -> None:
        """A message one of its reads posted (or the log pane, for the cursor and the filter),
        routed here by the screen."""
        match message:
            case DetailLoaded(detail=detail):
                from forgetui.tui.modals.record_detail import RecordDetailScreen

                self._screen.app.push_screen(RecordDetailScreen(detail))
            case SavedContextLoaded():
                await self._show_saved_context(message)
            case LogCursorRested():
                self._context_follows_log(message)
            case LogFilterNeeded(text=text, start=start):
                in_thread(self._screen, partial(self._find_log_rows, text, start), "log-filter")
            case LogFiltered():
                self._screen.query_one(ActionLogPane).show_filtered(message)
                self._host.sync_bindings()
            case LogStepFound():
                self._go_to_step_row(message)

    # -- a record or a check in full ------------------------------------------------------------

    def open_record(self, index: int) -> None:
        in_thread(self._screen, partial(self._load_detail, index), "detail", exclusive=True)

    def _load_detail(self, index: int) -> None:
        self._screen.post_message(DetailLoaded(self._reader.record_detail(index)))

    def open_check(self, check: CheckView) -> None:
        from forgetui.tui.modals.check_detail import CheckDetailScreen

        reader, name = self._reader, check.name  # the modal reads the output off-thread
        self._screen.app.push_screen(CheckDetailScreen(check, lambda: reader.check_output(name)))

    # -- the context as sent --------------------------------------------------------------------

    def earlier_context(self) -> None:
        snap = self._host.snapshot
        if snap is None or snap.step < 1:
            return
        step = snap.step if self.context_step is None else max(1, self.context_step - 1)
        self._show_context_step(step)

    def later_context(self) -> None:
        snap = self._host.snapshot
        if self.context_step is None or snap is None:
            return
        if self.context_step >= snap.step:
            self._show_context_step(None)
        else:
            self._show_context_step(self.context_step + 1)

    def _show_context_step(self, step: int | None) -> None:
        self.context_step = step
        self._host.sync_bindings()
        if step is None:
            self._host.request_reload()
            return
        in_thread(self._screen, partial(self._load_saved_context, step), "context", exclusive=True)

    def _load_saved_context(self, step: int) -> None:
        try:
            view = self._reader.saved_context(step)
        except ForgeError as exc:
            self._screen.post_message(SavedContextLoaded(step, None, exc.message))
            return
        self._screen.post_message(SavedContextLoaded(step, view, None))

    async def _show_saved_context(self, message: SavedContextLoaded) -> None:
        if message.step != self.context_step:
            return
        pane = self._screen.query_one(ContextPane)
        if message.view is None:
            pane.view = None
            pane.show_error(f"step {message.step}", message.error or "not saved")
        else:
            await pane.show_view(message.view)

    def _context_follows_log(self, message: LogCursorRested) -> None:
        """The context as sent at the step the cursor rests on; back on the newest row, the
        next step's preview (an operator row leaves the context as it is)."""
        if message.newest:
            if self.context_step is not None:
                self._show_context_step(None)
        elif message.row.kind == "step" and message.row.step != self.context_step:
            self._show_context_step(message.row.step)

    # -- the action log: filter, go to a step ---------------------------------------------------

    def filter_log(self) -> None:
        self._screen.query_one(ActionLogPane).open_filter()

    def _find_log_rows(self, text: str, start: int) -> None:
        count, rows = self._reader.find_log_rows(text, start)
        self._screen.post_message(LogFiltered(text, start, count, rows))

    def goto_step(self) -> None:
        from forgetui.tui.modals.text_prompt import TextPromptScreen

        snap = self._host.snapshot
        last = f" (1 to {snap.step})" if snap is not None and snap.step else ""
        self._screen.app.push_screen(
            TextPromptScreen(
                "Go to step",
                f"The log cursor moves to the step's row{last}; the context pane shows what "
                "was sent at that step.",
                "step number",
                prompt_id="goto-prompt",
            ),
            self._goto_typed,
        )

    def _goto_typed(self, text: str | None) -> None:
        if text is None:
            return
        number = text.strip().removeprefix("step").strip()
        if not number.isdigit():
            self._screen.notify(
                f"not a step number: {text.strip()}", severity="error", markup=False
            )
            return
        find = partial(self._find_step_row, int(number))
        in_thread(self._screen, find, "log-goto", exclusive=True)

    def _find_step_row(self, step: int) -> None:
        self._screen.post_message(LogStepFound(step, self._reader.log_row_of_step(step)))

    def _go_to_step_row(self, message: LogStepFound) -> None:
        if message.row is None:
            self._screen.notify(
                f"step {message.step} is not in the log", severity="warning", markup=False
            )
            return
        pane = self._screen.query_one(ActionLogPane)
        pane.view.focus()
        pane.go_to_row(message.row)
