"""The model's answer for the step in flight as it streams in (StepProgress events of stage
"answer", up to ten a second): only the answer line under the header and the answer view in the
action log pane repaint. While it streams, the step key offers to stop it (STOP_BINDING); the
run controller decides when a stop still applies."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.screen import Screen

from forgetui.tui.answer_line import AnswerLine
from forgetui.tui.commands import STOP_BINDING
from forgetui.tui.messages import AnswerStopSent
from forgetui.tui.panes.action_log import ActionLogPane
from forgetui.tui.session import Session
from forgetui.tui.workers import in_thread

if TYPE_CHECKING:
    from forgetui.engine.api import StepEvent

STOP_CONFIRM_ID = "stop-answer-confirm"


class StreamedAnswer:
    """`stopping`: the operator stopped the answer in flight and its step is not recorded yet;
    `screen` is where the stop's worker runs and the question opens."""

    def __init__(self, screen: Screen[Any], session: Session, ticking: bool) -> None:
        self._screen = screen
        self._session = session
        self._ticking = ticking  # the answer line's clock, as the header's
        self.stopping = False

    def _line(self) -> AnswerLine:
        return self._screen.query_one(AnswerLine)

    def show(self, event: StepEvent, first: bool) -> None:
        """The answer so far; on its first event the line learns the stop key too."""
        line = self._line()
        if first:
            line.stop_key = self._stop_key()
        line.show(event, ticking=self._ticking)
        self._screen.query_one(ActionLogPane).show_answer(event.step, event.detail)

    def ended(self) -> None:
        """The step went past its answer: nothing left to stop."""
        self._line().set_stage("stopped" if self.stopping else "done")
        self._dismiss_stop_question()

    def clear(self) -> None:
        """The step is recorded (or failed): the answer line and view go."""
        self.stopping = False
        self._dismiss_stop_question()
        self._line().clear()
        self._screen.query_one(ActionLogPane).clear_answer()

    def _stop_key(self) -> str:
        """The stop key as the footer shows it (after the user's keymap)."""
        for active in self._screen.active_bindings.values():
            if active.binding.action == STOP_BINDING.action:
                return self._screen.app.get_key_display(active.binding)
        return STOP_BINDING.key

    def ask_stop(self, step: int, still: Callable[[], bool], then: Callable[[], None]) -> None:
        """Ask before stopping step `step`'s answer; on yes, if `still` says the stop applies
        (it pauses the run too), send it and call `then`."""
        from forgetui.tui.modals.confirm import ConfirmScreen

        line = self._line()
        tokens = line.event.tokens if line.event else 0

        def answered(yes: bool | None) -> None:
            if not yes or not still():
                return
            self.stopping = True
            line.set_stage("stopping")
            in_thread(self._screen, self._send_stop, "stop")
            then()

        why = (
            f"The model has written {tokens:,} tokens of step {step}'s answer so far. Stopped, "
            "the partial answer is recorded as stopped (no action runs) and the task pauses. "
            "No lets the answer go on."
        )
        self._screen.app.push_screen(
            ConfirmScreen("Stop the answer?", why, STOP_CONFIRM_ID), answered
        )

    def _dismiss_stop_question(self) -> None:
        """The answer ended while the operator was asked: the question no longer applies."""
        screen = self._screen.app.screen
        if screen.id == STOP_CONFIRM_ID:
            screen.dismiss(False)

    def _send_stop(self) -> None:
        self._screen.post_message(AnswerStopSent(self._session.stop_answer()))

    def stop_sent(self, stopped: bool, in_flight: bool) -> None:
        """The stop reached the session; if no answer streamed by then, the step goes on."""
        if not stopped and self.stopping:
            self.stopping = False
            if in_flight:
                self._line().set_stage("done")
                self._screen.notify("the answer had already ended: the step goes on", markup=False)
