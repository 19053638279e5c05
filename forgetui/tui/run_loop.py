"""The run loop: run/pause, single step, the step in flight and what follows a recorded step.
A base of the workbench screen, which owns the state read here and the view reloads.

Run/pause is a flag checked between steps: each executor worker runs exactly one step, and the
next starts only once the screen shows the last (show_snapshot calls `continue_run`), so
however fast the engine steps the panes are never more than the step in flight behind.

A streamed answer (StepProgress events of stage "answer", up to ten a second) repaints only the
answer line under the header and the answer view in the action log pane; while it streams, the
step key offers to stop it (STOP_BINDING)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from textual import on, work
from textual.binding import Binding
from textual.timer import Timer

from forgetui.engine.api import FINISHED, human_prompt
from forgetui.tui.answer_line import AnswerLine
from forgetui.tui.commands import COMMANDS, Situation
from forgetui.tui.config import Settings
from forgetui.tui.header import Activity, StatusHeader
from forgetui.tui.messages import (
    AnswerStopSent,
    EscalationRaised,
    ExecutorNotice,
    StepFailed,
    StepProgress,
    StepRecorded,
    StepStarted,
    TaskChangeAccepted,
)
from forgetui.tui.operator_commands import OperatorCommands
from forgetui.tui.panes.action_log import ActionLogPane
from forgetui.tui.snapshot import TaskSnapshot

if TYPE_CHECKING:
    from forgetui.engine.api import StepEvent

STAGE_REPAINT = 0.2  # seconds between two repaints of the step stage in the header
ANSWER = "answer"  # the stage of an event carrying the answer streamed so far
STOP_CONFIRM_ID = "stop-answer-confirm"


def _stop_binding() -> Binding:
    """The step key, while an answer streams in: stop it. It shares the step command's binding
    id, so a keymap that moves the step key moves this too, and it comes first, so the footer
    shows it in the step's place while it applies (check_action hides it otherwise)."""
    step = next(command for command in COMMANDS if command.id == "step")
    return Binding(
        step.key, "stop_answer", "stop answer", key_display=step.key_display, id=step.id,
        tooltip="Stop the answer streaming in: the partial answer is recorded as stopped "
        "and the task pauses",
    )  # fmt: skip


STOP_BINDING = _stop_binding()


class RunLoop(OperatorCommands):
    settings: Settings
    running: bool
    stage: str
    _step_started: float
    _stage_shown: float
    _awaiting_human: bool
    _continue_at: int | None  # running: the step to start once the screen shows its previous
    _quit_after_step: bool
    _clock: Timer | None
    _stopping: bool  # the operator stopped the answer in flight; the step is not recorded yet

    def request_reload(self, urgent: bool = False) -> None:
        raise NotImplementedError

    def situation(self) -> Situation | None:
        """What applies now (the workbench knows the focus and the snapshot)."""
        raise NotImplementedError

    def continue_run(self, snapshot: TaskSnapshot) -> None:
        """The screen now shows `snapshot` (called after its paint): start the step a run is
        waiting on, if the snapshot shows the step before."""
        if self._continue_at is not None and snapshot.step >= self._continue_at - 1:
            number, self._continue_at = self._continue_at, None
            if self.running and self.step_in_flight is None:
                self._start_step(number)

    def _activity(self) -> Activity:
        elapsed = None
        if self.settings.clock and self.step_in_flight is not None:
            elapsed = time.monotonic() - self._step_started
        return Activity(
            self.running, self.step_in_flight, self.stage, elapsed,
            awaiting_human=self._awaiting_human, unreadable=self.has_class("-broken"),
        )  # fmt: skip

    def _show_activity(self) -> None:
        self.query_one(StatusHeader).show_state(self.snapshot, self._activity())
        self.query_one(AnswerLine).tick()

    def _can_step(self) -> bool:
        now = self.situation()
        return now is not None and now.can_step

    def action_run_pause(self) -> None:
        if self.running:
            self.running = False
            if self.step_in_flight is not None:
                self.notify(f"pausing after step {self.step_in_flight} is recorded", markup=False)
            else:
                self.release_lock()
        elif self._can_step() and not self._reviewed_first(self.action_run_pause):
            assert self.snapshot is not None
            self.running = True
            self._start_step(self.snapshot.next_step)
        self._show_activity()
        self.sync_bindings()

    def action_single_step(self) -> None:
        if self._can_step() and not self._reviewed_first(self.action_single_step):
            assert self.snapshot is not None
            self.running = False
            self._start_step(self.snapshot.next_step)

    def _reviewed_first(self, then: Callable[[], None]) -> bool:
        """What a step needs first, asked before it: the operator's review of a changed
        task.yaml, then a model; True if it asked (`then` goes on once it is settled)."""
        snap = self.snapshot
        if snap is None or snap.task_change is None:
            return self._model_first(then)
        from forgetui.tui.modals.task_change import TaskChangeScreen

        def answered(yes: bool | None) -> None:
            if yes:
                self.accept_task_change(then)

        self.app.push_screen(TaskChangeScreen(snap.task_change), answered)
        return True

    @work(thread=True, exit_on_error=False, group="operator")
    def accept_task_change(self, then: Callable[[], None]) -> None:
        said = self.session.accept_task_change()
        self.reader.reopen()
        self.post_message(TaskChangeAccepted(said, then))

    @on(TaskChangeAccepted)
    def task_change_accepted(self, message: TaskChangeAccepted) -> None:
        self.notify(message.text, timeout=3, markup=False)
        if self.snapshot is not None:  # the next load agrees; the step may start before it
            self.snapshot = replace(self.snapshot, task_change=None)
        self.request_reload()
        message.then()

    def _model_first(self, then: Callable[[], None]) -> bool:
        """A task no model can run yet (a new one without a replay script) asks for one, then
        goes on with the step or run; True if it asked."""
        snap = self.snapshot
        if snap is None or snap.model_problem is None:
            return False
        self.choose_model(f"No model can run this task yet: {snap.model_problem}.", then)
        return True

    def _start_step(self, number: int) -> None:
        """Run step `number`; with the human model, ask for the action first, unless the
        operator's answer already chose it (the step then runs it, as `forgetui run` does, and
        the next step is the one the human prompt is for)."""
        snap = self.snapshot
        decided = snap is not None and snap.decided and snap.next_step == number
        if not self.session.human or decided:
            self._launch_step(number, None)
            return
        from forgetui.tui.modals.text_prompt import TextPromptScreen

        phase = self.snapshot.phase if self.snapshot is not None else ""
        prompt = human_prompt(phase).rstrip().removesuffix("action>")

        def typed(text: str | None) -> None:
            self._awaiting_human = False
            if text is not None:
                self._launch_step(number, text)
                return
            self.running = False
            self._show_activity()
            self.sync_bindings()

        self._awaiting_human = True
        self._show_activity()
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
        if message.event.stage == ANSWER:
            self._show_answer(message.event)
            return
        if self.stage == ANSWER:
            self._answer_ended()
        self.stage = message.event.stage
        now = time.monotonic()
        if self.stage == "model" or now - self._stage_shown >= STAGE_REPAINT:
            self._stage_shown = now
            self._show_activity()

    # -- a streamed answer ---------------------------------------------------------------------

    def _show_answer(self, event: StepEvent) -> None:
        """Only the answer line and the answer view repaint; the header once, when the answer
        starts (its stage), and the footer then too (the step key now stops it)."""
        first = self.stage != ANSWER
        self.stage = ANSWER
        line = self.query_one(AnswerLine)
        if first:
            line.stop_key = self._stop_key()
        line.show(event, ticking=self.settings.clock)
        self.query_one(ActionLogPane).show_answer(event.step, event.detail)
        if first:
            self._stage_shown = time.monotonic()
            self._show_activity()
            self.sync_bindings()

    def _answer_ended(self) -> None:
        """The step went past its answer: nothing left to stop."""
        self.query_one(AnswerLine).set_stage("stopped" if self._stopping else "done")
        self._dismiss_stop_question()
        self.sync_bindings()

    def _stop_key(self) -> str:
        """The stop key as the footer shows it (after the user's keymap)."""
        for active in self.active_bindings.values():
            if active.binding.action == STOP_BINDING.action:
                return self.app.get_key_display(active.binding)
        return STOP_BINDING.key

    def can_stop_answer(self) -> bool:
        return self.step_in_flight is not None and self.stage == ANSWER and not self._stopping

    def action_stop_answer(self) -> None:
        if not self.can_stop_answer():
            return
        from forgetui.tui.modals.confirm import ConfirmScreen

        line = self.query_one(AnswerLine)
        step, tokens = self.step_in_flight, line.event.tokens if line.event else 0

        def answered(yes: bool | None) -> None:
            if not yes or self.step_in_flight != step or not self.can_stop_answer():
                return
            self._stopping = True
            self.running = False  # a run pauses after this step
            line.set_stage("stopping")
            self.send_stop()
            self._show_activity()
            self.sync_bindings()

        why = (
            f"The model has written {tokens:,} tokens of step {step}'s answer so far. Stopped, "
            "the partial answer is recorded as stopped (no action runs) and the task pauses. "
            "No lets the answer go on."
        )
        self.app.push_screen(ConfirmScreen("Stop the answer?", why, STOP_CONFIRM_ID), answered)

    def _dismiss_stop_question(self) -> None:
        """The answer ended while the operator was asked: the question no longer applies."""
        screen = self.app.screen
        if screen.id == STOP_CONFIRM_ID:
            screen.dismiss(False)

    @work(thread=True, exit_on_error=False, group="stop")
    def send_stop(self) -> None:
        self.post_message(AnswerStopSent(self.session.stop_answer()))

    @on(AnswerStopSent)
    def stop_sent(self, message: AnswerStopSent) -> None:
        if not message.stopped and self._stopping:
            self._stopping = False
            if self.step_in_flight is not None:
                self.query_one(AnswerLine).set_stage("done")
                self.notify("the answer had already ended: the step goes on", markup=False)

    def _clear_answer(self) -> None:
        self._stopping = False
        self._dismiss_stop_question()
        self.query_one(AnswerLine).clear()
        self.query_one(ActionLogPane).clear_answer()

    # -- after a step --------------------------------------------------------------------------

    @on(StepRecorded)
    def continue_or_pause_after_step(self, message: StepRecorded) -> None:
        """Start the next step while running (the lock stays taken between steps); otherwise
        the workbench goes idle and lets go of the lock. So does a human model's run while the
        operator types: that wait has no bound."""
        report = message.report
        if self._stopping and report.result == "skipped":  # else the answer ended by itself
            self.notify(report.summary, title=f"step {report.step}: answer stopped", markup=False)
        self._step_done()
        if self._quit_after_step:
            self.app.exit()
            return
        if report.status in FINISHED or report.status == "escalated":
            self.running = False
        if report.status in FINISHED:
            done = f"task {report.status}"
            said = report.summary.startswith(done)
            text = report.summary if said else f"{done}: {report.summary}"
            self.notify(text, title=f"step {report.step}", markup=False)
        self.request_reload(urgent=True)
        if not self.running or self.session.human:
            self.release_lock()
        if self.running:
            # The next step starts once the screen shows this one (show_snapshot): however fast
            # steps are, the panes are never more than the step in flight behind the log.
            self._continue_at = report.step + 1
        self._show_activity()
        self.sync_bindings()

    def _step_done(self) -> None:
        self.step_in_flight = None
        self.stage = ""
        self._clear_answer()
        if self._clock is not None:
            self._clock.pause()

    @work(thread=True, exit_on_error=False, group="release")
    def release_lock(self) -> None:
        """An idle workbench holds no lock: the CLI's answer, memory and run, or a second
        workbench, may write the task meanwhile. A step launched since is left its lock (the
        session runs one call at a time, and a step after a release simply reopens)."""
        if self.step_in_flight is None:
            self.session.release()

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
        self.release_lock()
        self.notify(message.error, title=message.title, severity="error", markup=False)
        self.request_reload()
        self._show_activity()
        self.sync_bindings()
