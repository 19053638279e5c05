"""The workbench screen on one task: it composes the panes, owns the key bindings and which
commands apply now, shows the task as last read, and routes keys and worker messages to the
objects that act on them: the run controller, the operator's commands, the history browser, the
pane arranger and the task loader. Every engine call runs in a thread worker on this screen
that only posts messages; the one worker handler here reports failures by the worker's group."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, ClassVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import ActiveBinding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static
from textual.worker import Worker, WorkerState

from forgetui.engine.api import ForgeError
from forgetui.tui import task_display
from forgetui.tui.answer_line import AnswerLine
from forgetui.tui.arranged import PaneArranger
from forgetui.tui.banded import BandedFrames
from forgetui.tui.commands import STOP_BINDING, Situation, applies, bindings, commands_in, why_not
from forgetui.tui.footer import KeyFooter
from forgetui.tui.header import StatusHeader
from forgetui.tui.history_browser import HistoryBrowser
from forgetui.tui.layout import (
    HORIZONTAL_BREAKPOINTS,
    VERTICAL_BREAKPOINTS,
    Pane,
    breakpoint_classes,
)
from forgetui.tui.messages import (
    AnswerStopSent,
    DetailLoaded,
    EscalationRaised,
    ExecutorNotice,
    LogRowsLoaded,
    LogTailLoaded,
    LogWindowNeeded,
    ModelChosen,
    OperatorDone,
    SavedContextLoaded,
    SnapshotFailed,
    SnapshotLoaded,
    StepFailed,
    StepProgress,
    StepRecorded,
    StepStarted,
    TaskChangeAccepted,
    TaskFilesChanged,
)
from forgetui.tui.navigation import NavigableScreen
from forgetui.tui.now_applies import NowApplies
from forgetui.tui.panes.action_log import (
    ActionLogPane,
    LogCursorRested,
    LogFiltered,
    LogFilterNeeded,
    LogStepFound,
    LogView,
)
from forgetui.tui.panes.context import ContextPane
from forgetui.tui.panes.memory import MemoryList, MemoryPane
from forgetui.tui.panes.tabs import PaneTabs
from forgetui.tui.panes.task_frame import TaskFramePane
from forgetui.tui.panes.verification import VerificationPane
from forgetui.tui.project_commands import MemoryCommands, ProjectMemoryKeys
from forgetui.tui.question_banner import QuestionBanner
from forgetui.tui.reload_turns import ReloadTurns
from forgetui.tui.run_controller import RunController
from forgetui.tui.session import Session
from forgetui.tui.settings import Settings
from forgetui.tui.snapshot import TaskReader, TaskSnapshot
from forgetui.tui.task_loader import TaskLoader

SCREEN_ACTIONS = tuple(command.action for command in commands_in("screen"))


class WorkbenchScreen(BandedFrames, ProjectMemoryKeys, NavigableScreen):
    BINDINGS: ClassVar[list[BindingType]] = [STOP_BINDING, *bindings("screen")]
    HORIZONTAL_BREAKPOINTS = HORIZONTAL_BREAKPOINTS
    VERTICAL_BREAKPOINTS = VERTICAL_BREAKPOINTS

    def __init__(self, reader: TaskReader, session: Session, settings: Settings) -> None:
        super().__init__(id="workbench")
        self.reader = reader
        self.session = session
        self.settings = settings
        self.snapshot: TaskSnapshot | None = None
        self._applies_state: tuple[bool, ...] = ()
        self.run_control = RunController(self, self, session, settings)
        self.operator = MemoryCommands(self, self, reader, session)
        self.browser = HistoryBrowser(self, self, reader)
        self.arranger = PaneArranger(self, lambda: self.snapshot)
        self.loader = TaskLoader(self, reader, lambda: self.running, self.sync_bindings)
        self.now = NowApplies(self)
        self.turns = ReloadTurns(self, self._view_shown)

    # The run's state, as what applies now reads it.
    @property
    def running(self) -> bool:
        return self.run_control.running

    @property
    def step_in_flight(self) -> int | None:
        return self.run_control.step_in_flight

    @property
    def stage(self) -> str:
        return self.run_control.stage

    # -- layout ---------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        # the first resize's classes, before the first styling (else styled twice before it)
        self.update_classes(breakpoint_classes(*self.app.size), update=False)
        yield StatusHeader(id="status-header")
        yield AnswerLine(id="answer-line")
        yield QuestionBanner(id="question-banner")
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

    async def on_mount(self) -> None:
        self.run_control.show_activity()
        if (shown := self.loader.start()) is not None:  # on the panes before the first paint
            await self.show_snapshot(SnapshotLoaded(shown))
        if self.settings.watch:
            self.loader.watch()
        if self.settings.clock:
            self.run_control.start_clock()
        self.query_one(LogView).focus()

    @on(events.Resize)
    def arrange_for_size(self, event: events.Resize) -> None:
        self.arranger.resized(event.size.width, event.size.height)

    def pane_of(self, widget: Widget) -> Pane | None:
        return self.arranger.pane_of(widget)

    @on(PaneTabs.Chosen)
    def tab_clicked(self, message: PaneTabs.Chosen) -> None:
        self.arranger.show_pane(message.pane)

    # -- showing the task -----------------------------------------------------------------------

    def request_reload(self, urgent: bool = False) -> None:
        """Reload the task's views (coalesced and spaced: see task_loader.py). An urgent one
        (our own step was recorded) skips the spacing: the run waits for it."""
        self.loader.request(urgent)

    @on(TaskFilesChanged)
    @on(LogTailLoaded)
    @on(LogWindowNeeded)
    @on(LogRowsLoaded)
    def to_loader(self, message: Message) -> None:
        self.loader.handle(message)

    @on(SnapshotFailed)
    def keep_last_view_on_bad_files(self, message: SnapshotFailed) -> None:
        """A banner that stays until the files read again (the watcher reloads on every save);
        a run does not go on blind."""
        self.loader.loaded()
        task_display.show_unreadable(self, message.error, self.reader.path, bool(self.snapshot))
        self.run_control.stop_blind_run()
        self.run_control.show_activity()
        if self.snapshot is None:
            self.query_one(ContextPane).show_error("unavailable", "the task does not read yet")
        self.loader.load_log_tail()

    @on(SnapshotLoaded)
    async def show_snapshot(self, message: SnapshotLoaded) -> None:
        self.loader.loaded(message.snapshot.loading)
        self.remove_class("-broken")
        snapshot = message.snapshot
        first = self.snapshot is None or self.snapshot.loading
        self.snapshot = snapshot
        task_display.show_task_state(self, snapshot)
        self.sync_bindings()
        if self.query_one(QuestionBanner).show(snapshot.escalation, not snapshot.read_only):
            self.operator.question_arrived(self.settings)  # new to this workbench: once
        if first:
            task_display.warn_without_sandbox(self, snapshot)
        await self.turns.show(snapshot, whole=first or snapshot.loading)
        if first:
            self.call_after_refresh(self._lay_out_panes)

    def _lay_out_panes(self) -> None:
        """Lay the panes' contents out again once the first view is painted: shown at the mount,
        a content's new height waited for the next layout (a finished task's frame, one line)."""
        for content in self.query(".pane > *"):
            content.refresh(layout=True)

    def _view_shown(self, snapshot: TaskSnapshot) -> None:
        """Every pane shows `snapshot`: what applies may follow a pane's new selection; once it
        is on screen, a run's next step (it never gets ahead of what the screen shows)."""
        self.sync_bindings()
        self.call_after_refresh(self.run_control.continue_run, snapshot)

    def amend_snapshot(self, **changes: Any) -> None:
        """What a change just made true, before the next load agrees: a step may start first."""
        if self.snapshot is not None:
            self.snapshot = replace(self.snapshot, **changes)

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
        return self.now.situation()

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        with self.now.held():  # one read of the state for every command's check
            return super().active_bindings

    def applies(self, action: str) -> bool:
        now = self.situation()
        return now is not None and applies(action, now)

    def sync_bindings(self) -> None:
        """Refresh the footer only when what applies changed: the footer rebuilds its keys on
        every refresh, which is not free at every snapshot."""
        now = self.situation()
        state = tuple(now is not None and applies(action, now) for action in SCREEN_ACTIONS)
        state += (self.run_control.can_stop_answer(),)
        if state != self._applies_state:
            self._applies_state = state
            self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Commands that do not apply now stay in the footer, dimmed; the stop key is there only
        while an answer streams in (the step key is, otherwise)."""
        if action == STOP_BINDING.action:
            return self.run_control.can_stop_answer()
        if action in SCREEN_ACTIONS:
            return True if self.applies(action) else None
        return True

    def on_key(self, event: events.Key) -> None:
        """Keys typed behind the log's filter key go into its bar; a command key pressed when
        it does not apply says why (bindings run after this handler, and only enabled ones)."""
        if self.query_one(ActionLogPane).catch_filter_burst(event):
            return
        with self.now.held():
            active = self.active_bindings.get(event.key)
            action = active.binding.action if active is not None else ""
            if active is None or active.enabled or action.split("(")[0] not in SCREEN_ACTIONS:
                return
            now = self.situation()
        reason = why_not(active.binding.action, now) if now else "the task has not been read yet"
        self.notify(reason, title=f"{active.binding.description}: not now", timeout=3,
                    markup=False)  # fmt: skip

    @on(events.DescendantFocus)
    @on(MemoryList.CursorMoved)
    def focus_or_selection_moved(self) -> None:
        self.sync_bindings()

    # -- the commands' keys (the command table in commands.py names these actions) -------------

    def action_run_pause(self) -> None:
        self.run_control.run_pause()

    def action_single_step(self) -> None:
        self.run_control.single_step()

    def action_stop_answer(self) -> None:
        self.run_control.stop_answer()

    def action_answer(self) -> None:
        self.operator.answer()

    def action_toggle_pin(self) -> None:
        self.operator.toggle_pin()

    def action_evict(self) -> None:
        self.operator.evict()

    def action_add_note(self) -> None:
        self.operator.add_note()

    def action_edit_memory(self) -> None:
        self.operator.open_memory_detail(editing=True)

    def action_set_limits(self) -> None:
        self.operator.set_limits()

    def action_open_inbox(self) -> None:
        self.operator.open_inbox()

    def action_choose_model(self) -> None:
        self.operator.choose_model()

    def asked_before_step(self, then: Callable[[], None]) -> bool:
        return self.operator.asked_before_step(then)

    def action_rerun(self) -> None:
        self.operator.rerun()

    def action_rewind(self) -> None:
        self.operator.rewind()

    def action_open_detail(self) -> None:
        """Whatever has focus, in full: a context section opens in place, the rest in modals."""
        focused = self.focused
        block = self.query_one(ContextPane).focused_block()
        if block is not None:
            block.toggle()
        elif isinstance(focused, MemoryList):
            self.operator.open_memory_detail()
        elif isinstance(focused, LogView) and focused.selected is not None:
            self.browser.open_record(focused.selected.record)
        else:
            check = self.query_one(VerificationPane).focused_check()
            if check is not None:
                self.browser.open_check(check)

    def action_earlier_context(self) -> None:
        self.browser.earlier_context()

    def action_later_context(self) -> None:
        self.browser.later_context()

    def action_filter_log(self) -> None:
        self.browser.filter_log()

    def action_goto_step(self) -> None:
        self.browser.goto_step()

    def action_show_pane(self, pane: Pane) -> None:
        self.arranger.show_pane(pane)

    def action_zoom(self) -> None:
        self.arranger.zoom()

    # -- the workers' messages, to the objects that act on them ---------------------------------

    @on(StepStarted)
    @on(StepProgress)
    @on(AnswerStopSent)
    @on(StepRecorded)
    @on(StepFailed)
    @on(EscalationRaised)
    @on(ExecutorNotice)
    def to_run_control(self, message: Message) -> None:
        self.run_control.handle(message)

    @on(OperatorDone)
    @on(TaskChangeAccepted)
    @on(ModelChosen)
    def to_operator(self, message: Message) -> None:
        self.operator.handle(message)

    @on(DetailLoaded)
    @on(SavedContextLoaded)
    @on(LogCursorRested)
    @on(LogFilterNeeded)
    @on(LogFiltered)
    @on(LogStepFound)
    async def to_browser(self, message: Message) -> None:
        await self.browser.handle(message)

    # -- leaving --------------------------------------------------------------------------------

    def request_quit(self) -> bool:
        """True if the app may exit now; else it exits once the step in flight is recorded."""
        return self.run_control.request_quit()

    def on_unmount(self) -> None:
        self.session.close()
