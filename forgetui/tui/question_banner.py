"""The banner that stays under the header while a question waits on the operator (an agent's
question, a limit, an action waiting for approval): a toast goes by unseen, and nothing runs
until the question is answered. It also tells the workbench when a question is new to it, so
the bell rings (and the answer modal opens, if the user asked for it) once per question, not at
every reload."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import Static

from forgetui.tui.markup import fmt

if TYPE_CHECKING:  # a name only: the state's file model loads after the first view
    from forgetui.engine.api import Escalation


def question_key(escalation: Escalation) -> tuple[int, str, str]:
    """What tells one question from the next: the same step may ask twice."""
    return escalation.step, escalation.raised_at, escalation.question


class QuestionBanner(Static):
    """One line: the question's first line, then the key that answers it."""

    def __init__(self, id: str | None = None) -> None:
        super().__init__("", id=id)
        self._last: tuple[int, str, str] | None = None

    def show(self, escalation: Escalation | None, answerable: bool) -> bool:
        """Show the question waiting (hidden when none, or when this workbench cannot answer
        it: another program runs the task). True when it is a question not shown before."""
        if escalation is None or not answerable:
            self.display = False
            self._last = None if escalation is None else self._last
            return False
        first_line = escalation.question.strip().splitlines()[0] if escalation.question else ""
        self.update(fmt("[b]$question[/]  [$foreground-muted]a answer[/]", question=first_line))
        self.display = True
        key = question_key(escalation)
        new, self._last = key != self._last, key
        return new
