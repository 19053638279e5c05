"""The one way a step stops to ask the operator: a stage raises `Escalate`, and
`Executor.step()` alone catches it and ends the step as `ends` says. A stage never has to
return early, and what an escalation leaves on disk is decided in one place."""

from __future__ import annotations

from typing import Literal

from forgetui.engine.folder.task_state import Escalation

# How the step ends:
# - "before_call": nothing was attempted (a limit, a context that cannot be sent), so no step
#   is used up: the escalation is saved and the same step runs once it is answered;
# - "for_approval": the model's action waits for the operator's yes; its step finishes, with
#   no second model call, once answered;
# - "recorded": the step is recorded with its result, and the escalation waits after it.
Ending = Literal["before_call", "for_approval", "recorded"]


class Escalate(Exception):
    """Raised by a stage of the step; never leaves `Executor.step()`."""

    def __init__(self, escalation: Escalation, *, ends: Ending = "recorded") -> None:
        super().__init__(escalation.question)
        self.escalation = escalation
        self.ends = ends
