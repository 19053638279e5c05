"""The workbench screen: the panes, the run loop and the operator's commands on one task.

Every engine call runs in a thread worker that only posts messages; handlers here own the UI
state. Run/pause is a flag checked between steps: each executor worker runs exactly one step,
and StepRecorded starts the next only while the flag is up. The operator's commands live in
operator_commands.py; what remains (a little over 400 lines) is the load/refresh flow and the
run loop, which share the screen's state and read best together."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.timer import Timer
from textual.worker import Worker, WorkerState

from forgetui.engine.api import FINISHED, ForgeError, human_prompt
from forgetui.tui.commands import Situation, applies, bindings, commands_in
from forgetui.tui.config import Settings
from forgetui.tui.footer import KeyFooter
from forgetui.tui.header import Activity, StatusHeader
from forgetui.tui.messages import (
    EscalationRaised,
    ExecutorNotice,
    LogRowsLoaded,
    LogWindowNeeded,
    SnapshotFailed,
    SnapshotLoaded,
    StepFailed,
    StepProgress,
    StepRecorded,
    StepStarted,
    TaskFilesChanged,
)
from forgetui.tui.operator_commands import OperatorCommands
from forgetui.tui.panes.action_log import ActionLogPane, LogView
from forgetui.tui.panes.context import ContextPane
from forgetui.tui.panes.memory import MemoryList, MemoryPane
from forgetui.tui.panes.task_frame import TaskFramePane
from forgetui.tui.panes.verification import VerificationPane
from forgetui.tui.session import Session
from forgetui.tui.snapshot import TaskReader, TaskSnapshot

if TYPE_CHECKING:
    from forgetui.engine.api import StepEvent

WATCHED_FILES = frozenset({"state.yaml", "working_memory.yaml", "actions.yaml", "lock"})
WATCH_DEBOUNCE_MS = 40
RELOAD_SPACING = 0.05  # seconds between two loads of the task's views
RELOAD_SPACING_RUNNING = 0.5  # ... while steps run back to back
STAGE_REPAINT = 0.2  # seconds between two repaints of the step stage in the header
SCREEN_ACTIONS = tuple(command.action for command in commands_in("screen"))


def _is_task_file(_change: object, path: str) -> bool:
    return Path(path).name in WATCHED_FILES


class WorkbenchScreen(OperatorCommands):
    BINDINGS: ClassVar[list[BindingType]] = bindings("screen")  # type: ignore[assignment]
    # Under 120 columns the side panes give way: the compiled context keeps half the width.
    HORIZONTAL_BREAKPOINTS = [(0, "-tight"), (100, "-narrow"), (120, "-wide")]

    def __init__(self, reader: TaskReader, session: Session, settings: Settings) -> None:
        super().__init__(id="workbench")
        self.reader = reader
        self.session = session
        self.settings = settings
        self.snapshot: TaskSnapshot | None = None
        self.running = False
        self.step_in_flight: int | None = None
        self.stage = ""
        self.context_step: int | None = None  # None: the next step's preview
        self._step_started = 0.0
        self._loading = False
        self._reload_again = False
        self._quit_after_step = False
        self._clock: Timer | None = None
        self._applies_state: tuple[bool, ...] = ()
        self._last_load = 0.0
        self._stage_shown = 0.0
        self._reload_timer: Timer | None = None

    # -- layout ---------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield StatusHeader(id="status-header")
        with Horizontal(id="panes-top"):
            with Vertical(id="left-column"):
                yield TaskFramePane(id="task-frame", classes="pane")
                yield VerificationPane(id="verification", classes="pane")
            yield ContextPane(id="context", classes="pane")
            yield MemoryPane(id="memory", classes="pane")
        yield ActionLogPane(id="action-log", classes="pane")
        yield KeyFooter(id="footer")

    def on_mount(self) -> None:
        self._show_activity()
        # Paint the frame first; the first load (tiktoken's tables among it) comes after.
        self.call_after_refresh(self.request_reload)
        if self.settings.watch:
            self.watch_task_folder()
        if self.settings.clock:
            self._clock = self.set_interval(0.5, self._show_activity, pause=True)
        self.query_one(LogView).focus()

    # -- loading views --------------------------------------------------------------------------

    def request_reload(self) -> None:
        """Reload the task's views. Reloads asked for while one runs coalesce into one more, and
        loads are spaced (more while steps run back to back) so a fast run or a busy writer in
        another process cannot keep the UI thread repainting instead of answering keys."""
        if self._loading or self._reload_timer is not None:
            self._reload_again = True
            return
        spacing = RELOAD_SPACING_RUNNING if self.running else RELOAD_SPACING
        wait = self._last_load + spacing - time.monotonic()
        if wait > 0:
            self._reload_timer = self.set_timer(wait, self._reload_when_due)
            return
        self._loading = True
        self._last_load = time.monotonic()
        self.load_snapshot()

    def _reload_when_due(self) -> None:
        self._reload_timer = None
        self._reload_again = False
        self.request_reload()

    @work(thread=True, exit_on_error=False, group="loader")
    def load_snapshot(self) -> None:
        try:
            self.post_message(SnapshotLoaded(self.reader.snapshot()))
        except ForgeError as exc:
            self.post_message(SnapshotFailed(exc.message))

    def _loaded(self) -> None:
        self._loading = False
        if self._reload_again:
            self._reload_again = False
            self.request_reload()

    @on(SnapshotFailed)
    def keep_last_view_on_bad_files(self, message: SnapshotFailed) -> None:
        self._loaded()
        self.notify(message.error, title="Could not read the task", severity="error", markup=False)

    @on(SnapshotLoaded)
    async def show_snapshot(self, message: SnapshotLoaded) -> None:
        self._loaded()
        snapshot = message.snapshot
        first = self.snapshot is None
        self.snapshot = snapshot
        self.query_one(TaskFramePane).show_snapshot(snapshot)
        self.query_one(VerificationPane).show_snapshot(snapshot)
        self.query_one(MemoryPane).show_rows(snapshot.memory)
        self.query_one(ActionLogPane).show_log(snapshot.log_count, snapshot.tail_rows)
        context = self.query_one(ContextPane)
        if self.context_step is None:
            if snapshot.context is not None:
                await context.show_view(snapshot.context)
            elif snapshot.context_error:
                context.show_error("next step preview", snapshot.context_error)
            else:
                context.show_error("finished", f"the task is {snapshot.status}: no next step")
        # Only rare states go on the screen: a class change restyles every pane below it.
        self.set_class(snapshot.read_only, "-read-only")
        self._show_activity()
        self.sync_bindings()
        if first and snapshot.escalation is not None and not snapshot.read_only:
            self.notify_escalation(snapshot.escalation.question)

    @on(LogWindowNeeded)
    def fetch_log_rows(self, message: LogWindowNeeded) -> None:
        self.load_log_rows(message.first, message.end)

    @work(thread=True, exit_on_error=False, group="log")
    def load_log_rows(self, first: int, end: int) -> None:
        self.post_message(LogRowsLoaded(first, self.reader.log_rows(first, end)))

    @on(LogRowsLoaded)
    def show_log_rows(self, message: LogRowsLoaded) -> None:
        self.query_one(LogView).add_rows(message.rows)
        self.sync_bindings()

    # -- live refresh ---------------------------------------------------------------------------

    @work(exclusive=True, exit_on_error=False, group="watch")
    async def watch_task_folder(self) -> None:
        """Another program's edits (an editor, a headless run) show within a second."""
        from watchfiles import awatch

        async for _changes in awatch(
            self.reader.path, watch_filter=_is_task_file, debounce=WATCH_DEBOUNCE_MS, step=20
        ):
            self.post_message(TaskFilesChanged())

    @on(TaskFilesChanged)
    def reload_after_change(self) -> None:
        self.request_reload()

    # -- the run loop ---------------------------------------------------------------------------

    def _activity(self) -> Activity:
        elapsed = None
        if self.settings.clock and self.step_in_flight is not None:
            elapsed = time.monotonic() - self._step_started
        return Activity(self.running, self.step_in_flight, self.stage, elapsed)

    def _show_activity(self) -> None:
        self.query_one(StatusHeader).show_state(self.snapshot, self._activity())

    def _can_step(self) -> bool:
        now = self.situation()
        return now is not None and now.can_step

    def action_run_pause(self) -> None:
        if self.running:
            self.running = False
            if self.step_in_flight is not None:
                self.notify(f"pausing after step {self.step_in_flight} is recorded", markup=False)
        elif self._can_step():
            assert self.snapshot is not None
            self.running = True
            self._start_step(self.snapshot.next_step)
        self._show_activity()
        self.sync_bindings()

    def action_single_step(self) -> None:
        if self._can_step():
            assert self.snapshot is not None
            self.running = False
            self._start_step(self.snapshot.next_step)

    def _start_step(self, number: int) -> None:
        """Run step `number`; with the human model, ask for the action first."""
        if not self.session.human:
            self._launch_step(number, None)
            return
        from forgetui.tui.modals.text_prompt import TextPromptScreen

        phase = self.snapshot.phase if self.snapshot is not None else ""
        prompt = human_prompt(phase).rstrip().removesuffix("action>")

        def typed(text: str | None) -> None:
            if text is not None:
                self._launch_step(number, text)
                return
            self.running = False
            self._show_activity()
            self.sync_bindings()

        self.app.push_screen(
            TextPromptScreen(
                f"Step {number}: you are the model",
                prompt.rstrip(),
                "e.g. list_dir path=.",
                prompt_id="human-action",
            ),
            typed,
        )

    def _launch_step(self, number: int, human_text: str | None) -> None:
        self.step_in_flight = number
        self.stage = ""
        self._step_started = time.monotonic()
        if self._clock is not None:
            self._clock.resume()
        self._show_activity()
        self.sync_bindings()
        self.run_one_step(self.step_in_flight, human_text)

    @work(thread=True, exclusive=True, exit_on_error=False, group="executor")
    def run_one_step(self, number: int, human_text: str | None) -> None:
        """ONE engine call; everything it learns goes out as messages."""
        self.post_message(StepStarted(number))
        report, notices = self.session.step(self._post_progress, human_text)
        for notice in notices:
            self.post_message(ExecutorNotice(notice))
        self.post_message(StepRecorded(report))
        if report.escalation is not None and report.status == "escalated":
            self.post_message(EscalationRaised(report.escalation))

    def _post_progress(self, event: StepEvent) -> None:
        self.post_message(StepProgress(event))

    @on(StepStarted)
    def mark_step_started(self, message: StepStarted) -> None:
        self.step_in_flight = message.step
        self._show_activity()

    @on(StepProgress)
    def show_step_stage(self, message: StepProgress) -> None:
        """Stages of fast steps flash by: repaint for the model call (what the operator waits
        on) and otherwise at most every STAGE_REPAINT seconds."""
        self.stage = message.event.stage
        now = time.monotonic()
        if self.stage == "model" or now - self._stage_shown >= STAGE_REPAINT:
            self._stage_shown = now
            self._show_activity()

    @on(StepRecorded)
    def continue_or_pause_after_step(self, message: StepRecorded) -> None:
        report = message.report
        self._step_done()
        if self._quit_after_step:
            self.app.exit()
            return
        if report.status in FINISHED or report.status == "escalated":
            self.running = False
        if report.status in FINISHED:
            self.notify(
                f"task {report.status}: {report.summary}", title=f"step {report.step}", markup=False
            )
        self.request_reload()
        if self.running:
            self._start_step(report.step + 1)
        self._show_activity()
        self.sync_bindings()

    def _step_done(self) -> None:
        self.step_in_flight = None
        self.stage = ""
        if self._clock is not None:
            self._clock.pause()

    @on(EscalationRaised)
    def tell_about_escalation(self, message: EscalationRaised) -> None:
        self.notify_escalation(message.escalation.question)

    def notify_escalation(self, question: str) -> None:
        self.notify(
            f"{question}\npress a to answer", title="Escalated", severity="warning", markup=False
        )

    @on(ExecutorNotice)
    def show_executor_notice(self, message: ExecutorNotice) -> None:
        self.notify(message.text, title="Recovered", severity="warning", markup=False)

    @on(StepFailed)
    def pause_after_failure(self, message: StepFailed) -> None:
        self._step_done()
        self.running = False
        self.notify(message.error, title=message.title, severity="error", markup=False)
        self.request_reload()
        self._show_activity()
        self.sync_bindings()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The one handler for worker failures: a step or a change that raised is reported,
        the run pauses, and the views reload from disk."""
        if event.state != WorkerState.ERROR:
            return
        error = event.worker.error
        title = getattr(error, "title", "error")
        text = (
            error.message if isinstance(error, ForgeError) else f"{type(error).__name__}: {error}"
        )
        if event.worker.group == "loader":
            self.post_message(SnapshotFailed(text))
        elif event.worker.group == "executor":
            self.post_message(StepFailed(f"step failed ({title})", text))
        else:
            self.notify(text, title=str(title), severity="error", markup=False)
            self.request_reload()

    # -- what applies now -----------------------------------------------------------------------

    def situation(self) -> Situation | None:
        snap = self.snapshot
        if snap is None:
            return None
        focused = self.focused
        if self.query_one(ContextPane).focused_block() is not None:
            detail_target = True
        elif isinstance(focused, MemoryList):
            detail_target = self._selected_memory() is not None
        else:
            detail_target = isinstance(focused, LogView) and focused.selected is not None
        return Situation(
            read_only=snap.read_only,
            finished=snap.finished,
            escalated=snap.escalation is not None,
            busy=self.step_in_flight is not None,
            running=self.running,
            memory_selected=self._selected_memory() is not None,
            detail_target=detail_target,
            step=snap.step,
            context_step=self.context_step,
        )

    def applies(self, action: str) -> bool:
        now = self.situation()
        return now is not None and applies(action, now)

    def sync_bindings(self) -> None:
        """Refresh the footer only when what applies changed: the footer rebuilds its keys on
        every refresh, which is not free at every snapshot."""
        now = self.situation()
        state = tuple(now is not None and applies(action, now) for action in SCREEN_ACTIONS)
        if state != self._applies_state:
            self._applies_state = state
            self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Commands that do not apply now stay in the footer, dimmed."""
        if action in SCREEN_ACTIONS:
            return True if self.applies(action) else None
        return True

    def on_descendant_focus(self) -> None:
        self.sync_bindings()

    @on(MemoryList.CursorMoved)
    def selection_moved(self) -> None:
        self.sync_bindings()

    # -- leaving --------------------------------------------------------------------------------

    def request_quit(self) -> bool:
        """True if the app may exit now; else it exits once the step in flight is recorded."""
        if self.step_in_flight is None:
            return True
        self.running = False
        self._quit_after_step = True
        self.notify(f"quitting once step {self.step_in_flight} is recorded", markup=False)
        return False

    def on_unmount(self) -> None:
        self.session.close()
