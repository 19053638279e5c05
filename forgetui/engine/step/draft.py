"""The mutable scratch of one step, shared by the executor, its stages and the control actions."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from forgetui.engine.folder import memory as wm
from forgetui.engine.folder.records import ResultKind
from forgetui.engine.folder.task_state import Escalation, TaskState, Verification

if TYPE_CHECKING:
    from forgetui.engine.actions import ActionOutcome
    from forgetui.engine.context import CompiledContext
    from forgetui.engine.llm import ModelReply


@dataclass
class StepDraft:
    """One step in progress; turned into records and a report when it is recorded."""

    number: int
    state: TaskState
    memory: wm.WorkingMemory
    ctx: CompiledContext | None = None
    reply: ModelReply | None = None
    action: str | None = None
    args: dict[str, Any] = field(default_factory=dict)
    outcome: ActionOutcome | None = None
    result: ResultKind = "success"
    summary: str = ""
    error: str | None = None
    escalation: Escalation | None = None  # recorded with the result (an Escalate or a streak)
    tool_ms: float = 0.0  # action + verification time, apart from the engine's own
    verified_before: Verification | None = None  # to tell which checks this step turned green
    rerun: bool = False  # the operator re-runs an interrupted step's action

    def fail(self, result: ResultKind, error: str) -> None:
        """The step did not do what was asked: the error is also its summary."""
        self.result, self.error, self.summary = result, error, error
