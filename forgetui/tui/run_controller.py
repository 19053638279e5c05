"""The run controller: run/pause, single step, the step in flight and what follows a recorded
step, for the workbench screen that routes its keys and messages here.

Run/pause is a flag checked between steps: each executor worker runs exactly one step, and the
next starts only once the screen shows the last: its records in the log pane, read on their own
(the other panes follow at most RELOAD_SPACING_RUNNING later: reading and painting them all
after every step would leave the UI thread little time for keys). A human model's run waits
for the whole view (the screen calls `continue_run` after painting a snapshot). Inside a step,
the action the model chose is on screen before it runs: the step waits (briefly at most) at its
execute stage until the log pane shows the intent record. So however fast the engine steps, the
log is never more than the record being written behind. Workers run on the screen (its one
handler reports their failures by group) and only post messages; the screen hands those back
to `handle`.

The answer streaming in, and the operator's stop of it, are answer_stream.py's; this decides
when a stop applies and what follows it."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer

from forgetui.tui import heap
from forgetui.tui.answer_line import AnswerLine
from forgetui.tui.answer_stream import StreamedAnswer
from forgetui.tui.commands import Situation
from forgetui.tui.header import Activity, StatusHeader
from forgetui.tui.messages import (
    AnswerStopSent,
    EscalationRaised,
    ExecutorNotice,
    StepFailed,
    StepProgress,
    StepRecorded,
    StepStarted,
)
from forgetui.tui.paced import PacedRepaint
from forgetui.tui.panes.action_log import ActionLogPane, LogView
from forgetui.tui.session import AWAITS_SCREEN, Session
from forgetui.tui.settings import Settings
from forgetui.tui.snapshot import TaskSnapshot
from forgetui.tui.workers import after_paint, in_thread

if TYPE_CHECKING:
    from forgetui.engine.api import StepEvent, StepReport
    from forgetui.tui.task_loader import TaskLoader

STAGE_REPAINT = 0.2  # seconds between two repaints of the step stage in the header
# the longest a step waits for the screen to show its intent before the action runs: a stalled
# screen never stalls the engine for long
SHOWN_WAIT_S = 0.25
ANSWER = "answer"  # the stage of an event carrying the answer streamed so far


class RunHost(Protocol):
    """What the controller asks of the workbench: the task as last read, what applies now,
    and the screen-wide effects (footer, reload, what the operator settles before a step)."""

    @property
    def snapshot(self) -> TaskSnapshot | None: ...

    @property
    def loader(self) -> TaskLoader: ...

    def situation(self) -> Situation | None: ...

    def sync_bindings(self) -> None: ...

    def request_reload(self, urgent: bool = False) -> None: ...

    def asked_before_step(self, then: Callable[[], None]) -> bool:
        """True if the operator is asked something first (`then` goes on once settled)."""
        ...


class RunController:
    """Owns whether steps run, which one is in flight and its stage; `screen` is where its
    workers run, its messages go and its modals open."""

    def __init__(
        self, screen: Screen[Any], host: RunHost, session: Session, settings: Settings
    ) -> None:
        self._screen = screen
        self._host = host
        self._session = session
        self._settings = settings
        self.running = False
        self.step_in_flight: int | None = None
        self.stage = ""
        self._step_started = 0.0
        self._awaiting_human = False  # the human model's prompt is open
        self._continue_at: int | None = None  # running: the step to start once this one shows
        self._quit_after_step = False
        self._intent_shown = threading.Event()  # the step in flight's intent is on screen
        # the header's state: at most every STAGE_REPAINT seconds while steps run
        self._header = PacedRepaint(screen, self.show_activity, STAGE_REPAINT)
        self.answer = StreamedAnswer(screen, session, ticking=settings.clock)
        self._clock: Timer | None = None

    def _notify(self, text: str, **options: Any) -> None:
        self._screen.notify(text, markup=False, **options)

    # -- the header's view of the run -----------------------------------------------------------

    def start_clock(self) -> None:
        """The elapsed time of the step in flight ticks in the header (paused while idle)."""
        self._clock = self._screen.set_interval(0.5, self.show_activity, pause=True)

    def show_activity(self) -> None:
        elapsed = None
        if self._settings.clock and self.step_in_flight is not None:
            elapsed = time.monotonic() - self._step_started
        activity = Activity(
            self.running, self.step_in_flight, self.stage, elapsed,
            awaiting_human=self._awaiting_human, unreadable=self._screen.has_class("-broken"),
        )  # fmt: skip
        self._screen.query_one(StatusHeader).show_state(self._host.snapshot, activity)
        self._screen.query_one(AnswerLine).tick()

    def _show_changed(self) -> None:
        """While a run goes on, the header follows at most every STAGE_REPAINT seconds, as the
        stages do: a frame for it at each step's start and end would leave keys waiting."""
        if self.running:
            self._header.soon()
        else:
            self.show_activity()
        self._host.sync_bindings()

    # -- starting steps -------------------------------------------------------------------------

    def continue_run(self, snapshot: TaskSnapshot) -> None:
        """The screen shows `snapshot` (called after a refresh): once it is painted, start the
        step a run is waiting on, if the snapshot shows the step before."""
        after_paint(self._screen, partial(self._continue_shown, snapshot))

    def _continue_shown(self, snapshot: TaskSnapshot) -> None:
        heap.settle_once(complete=not snapshot.loading)
        if self._continue_at is not None and snapshot.step >= self._continue_at - 1:
            number, self._continue_at = self._continue_at, None
            if self.running and self.step_in_flight is None:
                self._start_step(number)

    def stop_blind_run(self) -> None:
        """The task stopped reading during a run: the run does not go on blind (it pauses after
        the step in flight, if one is)."""
        if self.running or self._continue_at is not None:
            self._continue_at = None
            self.running = False
            self.release_lock()
            self._host.sync_bindings()

    def _can_step(self) -> bool:
        now = self._host.situation()
        return now is not None and now.can_step

    def run_pause(self) -> None:
        if self.running:
            self.running = False
            if self.step_in_flight is not None:
                self._notify(f"pausing after step {self.step_in_flight} is recorded")
            else:
                self.release_lock()
        elif self._can_step() and not self._host.asked_before_step(self.run_pause):
            snap = self._host.snapshot
            assert snap is not None
            self.running = True
            self._start_step(snap.next_step)
        self._show_changed()

    def single_step(self) -> None:
        if self._can_step() and not self._host.asked_before_step(self.single_step):
            snap = self._host.snapshot
            assert snap is not None
            self.running = False
            self._start_step(snap.next_step)

    def _start_step(self, number: int) -> None:
        """Run step `number`; with the human model, ask for the action first, unless the
        operator's answer already chose it (the step then runs it, as `forgetui run` does, and
        the next step is the one the human prompt is for)."""
        snap = self._host.snapshot
        decided = snap is not None and snap.decided and snap.next_step == number
        if not self._session.human or decided:
            self._launch_step(number, None)
            return
        from forgetui.engine.api import human_prompt
        from forgetui.tui.modals.text_prompt import TextPromptScreen

        prompt = human_prompt(snap.phase if snap is not None else "")
        prompt = prompt.rstrip().removesuffix("action>")

        def typed(text: str | None) -> None:
            self._awaiting_human = False
            if text is not None:
                self._launch_step(number, text)
                return
            self.running = False
            self._show_changed()

        self._awaiting_human = True
        self.show_activity()
        self._screen.app.push_screen(
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
        self._show_changed()
        in_thread(self._screen, partial(self.run_one_step, number, human_text), "executor", True)

    def run_one_step(self, number: int, human_text: str | None) -> None:
        """ONE engine call, in a thread worker; everything it learns goes out as messages."""
        post = self._screen.post_message

        def progress(event: StepEvent) -> None:
            if event.stage != AWAITS_SCREEN:
                post(StepProgress(event))
                return
            self._intent_shown.clear()
            post(StepProgress(event))
            self._intent_shown.wait(SHOWN_WAIT_S)

        post(StepStarted(number))
        report, notices = self._session.step(progress, human_text)
        for notice in notices:
            post(ExecutorNotice(notice))
        post(StepRecorded(report))
        if report.escalation is not None and report.status == "escalated":
            post(EscalationRaised(report.escalation))

    # -- the step in flight ---------------------------------------------------------------------

    def handle(self, message: Message) -> None:
        """A message a step's (or a stop's) worker posted, routed back by the screen; the log
        pane marks the step in flight after the run's own handling."""
        match message:
            case StepStarted(step=step):
                self.step_in_flight = step
                self._header.soon()
                self._log().set_pending(step)
            case StepProgress(event=event):
                self._step_progress(event)
            case AnswerStopSent(stopped=stopped):
                self.answer.stop_sent(stopped, in_flight=self.step_in_flight is not None)
            case StepRecorded(report=report):
                self._step_recorded(report)
                self._log().pending_recorded()
            case StepFailed(title=title, error=error):
                self._step_failed(title, error)
                self._log().set_pending(None)
            case EscalationRaised():
                pass  # the reload that follows shows it in the question banner, and rings
            case ExecutorNotice(text=text):
                self._notify(text, title="Recovered", severity="warning")

    def _log(self) -> LogView:
        return self._screen.query_one(ActionLogPane).view

    def _step_progress(self, event: StepEvent) -> None:
        """Stages of fast steps flash by: the header repaints at most every STAGE_REPAINT
        seconds. The answer's events repaint only the answer (the header once, when it starts,
        and the footer: the step key stops it)."""
        if event.stage == "alert":  # the context crossed 90% of its cap, or a command's
            # change to .agentforge/ was undone: each its own title
            title = "Context" if event.detail.startswith("context ") else "Undone"
            return self._notify(event.detail, title=title, severity="warning")
        if event.stage == ANSWER:
            first = self.stage != ANSWER
            self.stage = ANSWER
            self.answer.show(event, first)
            if first:
                self._header.now()
                self._host.sync_bindings()
            return
        if self.stage == ANSWER:
            self.answer.ended()
            self._host.sync_bindings()
        if event.stage == AWAITS_SCREEN:  # the intent is in the log: on screen, then it runs
            self._host.loader.show_new_records(self._intent_shown.set)
        self.stage = event.stage
        self._header.soon()

    def can_stop_answer(self) -> bool:
        return self.step_in_flight is not None and self.stage == ANSWER and not self.answer.stopping

    def stop_answer(self) -> None:
        step = self.step_in_flight
        if step is None or not self.can_stop_answer():
            return

        def still() -> bool:
            if self.step_in_flight != step or not self.can_stop_answer():
                return False
            self.running = False  # a run pauses after this step
            return True

        self.answer.ask_stop(step, still, self._show_changed)

    # -- after a step ---------------------------------------------------------------------------

    def _step_recorded(self, report: StepReport) -> None:
        """Start the next step while running (the lock stays taken between steps); otherwise
        the workbench goes idle and lets go of the lock. So does a human model's run while the
        operator types: that wait has no bound."""
        if self.answer.stopping and report.result == "skipped":  # else the answer ended by itself
            self._notify(report.summary, title=f"step {report.step}: answer stopped")
        self._step_done()
        if self._quit_after_step:
            self._screen.app.exit()
            return
        from forgetui.engine.api import FINISHED  # the state's model: loaded by now

        if report.status in FINISHED or report.status == "escalated":
            self.running = False
        if report.status in FINISHED:
            done = f"task {report.status}"
            said = report.summary.startswith(done)
            text = report.summary if said else f"{done}: {report.summary}"
            self._notify(text, title=f"step {report.step}")
        if not self.running or self._session.human:
            self.release_lock()
        if self.running:
            # The next step starts once the screen shows this one: however fast steps are, the
            # log is never more than the record being written behind.
            self._continue_at = report.step + 1
        if self.running and not self._session.human:
            self._host.request_reload()  # spaced while running: see the module's docstring
            self._host.loader.show_new_records(partial(self._continue_after, report.step))
        else:  # its records at once too: a reload in flight may take a while yet
            self._host.request_reload(urgent=True)
            self._host.loader.show_new_records(lambda: None)
        self._show_changed()

    def _continue_after(self, step: int) -> None:
        """The log pane shows step `step`'s records: the run's next step may start (not while
        the task does not read: the run pauses then)."""
        if self._screen.has_class("-broken"):
            self.stop_blind_run()
        elif self._continue_at == step + 1:
            self._continue_at = None
            if self.running and self.step_in_flight is None:
                self._start_step(step + 1)

    def _step_failed(self, title: str, error: str) -> None:
        self._step_done()
        self.running = False
        self.release_lock()
        self._notify(error, title=title, severity="error")
        self._host.request_reload()
        self._show_changed()

    def _step_done(self) -> None:
        self.step_in_flight = None
        self.stage = ""
        self.answer.clear()
        if self._clock is not None:
            self._clock.pause()

    def release_lock(self) -> None:
        """An idle workbench holds no lock: the CLI's answer, memory and run, or a second
        workbench, may write the task meanwhile."""
        in_thread(self._screen, self._release_if_idle, "release")

    def _release_if_idle(self) -> None:
        """In a thread worker. A step launched since the release was asked is left its lock
        (the session runs one call at a time, and a step after a release simply reopens)."""
        if self.step_in_flight is None:
            self._session.release()

    def request_quit(self) -> bool:
        """True if the app may exit now; else it exits once the step in flight is recorded."""
        if self.step_in_flight is None:
            return True
        self.running = False
        self._quit_after_step = True
        self._notify(f"quitting once step {self.step_in_flight} is recorded")
        return False
