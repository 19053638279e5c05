"""The workbench screen on one task: its widgets, loading and refreshing their views, and
which commands apply now.

Every engine call runs in a thread worker that only posts messages; handlers own the UI state.
Its bases hold the rest: the run loop (run_loop.py), the operator's commands
(operator_commands.py) and the pane arrangement at the terminal's size (arranged.py)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.timer import Timer
from textual.widgets import Static
from textual.worker import Worker, WorkerState

from forgetui.engine.api import ForgeError
from forgetui.tui.answer_line import AnswerLine
from forgetui.tui.commands import Situation, applies, bindings, commands_in, why_not
from forgetui.tui.config import Settings
from forgetui.tui.footer import KeyFooter
from forgetui.tui.header import StatusHeader
from forgetui.tui.markup import fmt
from forgetui.tui.messages import (
    LogRowsLoaded,
    LogTailLoaded,
    LogWindowNeeded,
    SnapshotFailed,
    SnapshotLoaded,
    StepFailed,
    TaskFilesChanged,
)
from forgetui.tui.panes.action_log import ActionLogPane, LogView
from forgetui.tui.panes.context import ContextPane
from forgetui.tui.panes.memory import MemoryList, MemoryPane
from forgetui.tui.panes.tabs import PaneTabs
from forgetui.tui.panes.task_frame import TaskFramePane
from forgetui.tui.panes.verification import VerificationPane
from forgetui.tui.run_loop import STOP_BINDING, RunLoop
from forgetui.tui.session import Session
from forgetui.tui.snapshot import TaskReader, TaskSnapshot

if TYPE_CHECKING:
    pass

WATCHED_FILES = frozenset({"state.yaml", "working_memory.yaml", "actions.yaml", "lock"})
WATCH_DEBOUNCE_MS = 40
RELOAD_SPACING = 0.05  # seconds between two loads of the task's views
RELOAD_SPACING_RUNNING = 0.5  # ... while steps run back to back
SCREEN_ACTIONS = tuple(command.action for command in commands_in("screen"))


def _is_task_file(_change: object, path: str) -> bool:
    return Path(path).name in WATCHED_FILES


class WorkbenchScreen(RunLoop):
    BINDINGS: ClassVar[list[BindingType]] = [STOP_BINDING, *bindings("screen")]

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
        self._reload_urgent = False
        self._awaiting_human = False  # the human model's prompt is open
        self._continue_at: int | None = None  # running: the step to start once this one shows
        self._quit_after_step = False
        self._stopping = False
        self._clock: Timer | None = None
        self._applies_state: tuple[bool, ...] = ()
        self._last_load = 0.0
        self._stage_shown = 0.0
        self._reload_timer: Timer | None = None

    # -- layout ---------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield StatusHeader(id="status-header")
        yield AnswerLine(id="answer-line")
        yield Static(id="problem-banner")
        yield PaneTabs(id="pane-tabs")
        yield Static(id="too-small")
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

    def request_reload(self, urgent: bool = False) -> None:
        """Reload the task's views. Reloads asked for while one runs coalesce into one more, and
        loads are spaced (more while steps run back to back) so a busy writer in another
        process cannot keep the UI thread repainting instead of answering keys. An urgent one
        (our own step was recorded) skips the spacing: the run waits for it (see
        continue_or_pause_after_step), so the screen is never more than a step behind."""
        if self._loading:
            self._reload_again = True
            self._reload_urgent = self._reload_urgent or urgent
            return
        if self._reload_timer is not None:
            if not urgent:
                self._reload_again = True
                return
            self._reload_timer.stop()
            self._reload_timer = None
        spacing = 0.0 if urgent else RELOAD_SPACING_RUNNING if self.running else RELOAD_SPACING
        wait = self._last_load + spacing - time.monotonic()
        if wait > 0:
            self._reload_timer = self.set_timer(wait, self._reload_when_due)
            return
        self._loading = True
        self._reload_again = self._reload_urgent = False
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
            urgent, self._reload_again, self._reload_urgent = self._reload_urgent, False, False
            self.request_reload(urgent)

    @on(SnapshotFailed)
    def keep_last_view_on_bad_files(self, message: SnapshotFailed) -> None:
        """A banner that stays until the files read again (the watcher reloads on every save),
        over the last good view; the action log reads on its own, so it shows even if the task
        never read since launch."""
        self._loaded()
        kept = "the last good view stays below" if self.snapshot else "the action log still reads"
        banner = self.query_one("#problem-banner", Static)
        banner.update(
            fmt(
                "[b]the task does not read:[/] $error\n[$text-muted]$kept; "
                "fix the file and the workbench reloads[/]",
                error=message.error.replace(f"{self.reader.path}/", ""),
                kept=kept,
            )
        )
        self.add_class("-broken")
        if self._continue_at is not None:  # a run does not go on blind
            self._continue_at = None
            self.running = False
            self.release_lock()
            self.sync_bindings()
        self._show_activity()
        if self.snapshot is None:
            self.query_one(ContextPane).show_error("unavailable", "the task does not read yet")
        self.load_log_tail()

    def _show_task_change(self, snapshot: TaskSnapshot) -> None:
        """task.yaml edited since it was accepted: a banner until it is accepted (on s or space,
        which show the change first)."""
        change = snapshot.task_change
        if change is not None:
            self.query_one("#problem-banner", Static).update(
                fmt(
                    "[b]$summary since it was accepted:[/] no step runs until you accept it\n"
                    "[$text-muted]press s to see the change and accept it[/]",
                    summary=change.summary(),
                )
            )
        self.set_class(change is not None, "-task-changed")

    @work(thread=True, exclusive=True, exit_on_error=False, group="log")
    def load_log_tail(self) -> None:
        try:
            count, rows = self.reader.log_tail()
        except ForgeError:
            return  # the log does not read either: the banner names the first problem
        self.post_message(LogTailLoaded(count, rows))

    @on(LogTailLoaded)
    def show_log_tail(self, message: LogTailLoaded) -> None:
        self.query_one(ActionLogPane).show_log(message.count, message.rows)

    @on(SnapshotLoaded)
    async def show_snapshot(self, message: SnapshotLoaded) -> None:
        self._loaded()
        self.remove_class("-broken")
        snapshot = message.snapshot
        first = self.snapshot is None
        self.snapshot = snapshot
        self.query_one(TaskFramePane).show_snapshot(snapshot)
        self.query_one(VerificationPane).show_snapshot(snapshot)
        self.query_one(MemoryPane).show_rows(snapshot.memory)
        self.query_one(ActionLogPane).show_log(snapshot.log_count, snapshot.tail_rows)
        self.show_tabs()
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
        self._show_task_change(snapshot)
        self._show_activity()
        self.sync_bindings()
        if first and snapshot.escalation is not None and not snapshot.read_only:
            self.notify_escalation(snapshot.escalation.question)
        if first and snapshot.sandbox is not None and snapshot.sandbox.name != "bwrap":
            self.notify(
                "Agent commands run with the allow-list only: they can read and write outside "
                f"the workspace. {snapshot.sandbox.reason}",
                title="No OS sandbox",
                severity="warning",
                timeout=10,
                markup=False,
            )
        # once this view is on screen: a run's next step never gets ahead of what it shows
        self.call_after_refresh(self.continue_run, snapshot)

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
        elif self.query_one(VerificationPane).focused_check() is not None:
            detail_target = True
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
        state += (self.can_stop_answer(),)
        if state != self._applies_state:
            self._applies_state = state
            self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Commands that do not apply now stay in the footer, dimmed; the stop key is there only
        while an answer streams in (the step key is, otherwise)."""
        if action == STOP_BINDING.action:
            return self.can_stop_answer()
        if action in SCREEN_ACTIONS:
            return True if self.applies(action) else None
        return True

    def on_key(self, event: events.Key) -> None:
        """A command key pressed when it does not apply says why (bindings run after this
        handler, and only enabled ones)."""
        active = self.active_bindings.get(event.key)
        if (
            active is None
            or active.enabled
            or active.binding.action.split("(")[0] not in SCREEN_ACTIONS
        ):
            return
        now = self.situation()
        reason = why_not(active.binding.action, now) if now else "the task has not been read yet"
        self.notify(reason, title=f"{active.binding.description}: not now", timeout=3,
                    markup=False)  # fmt: skip

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
