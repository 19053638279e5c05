"""state.yaml: everything about a task that changes step to step."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializationInfo,
    field_serializer,
    field_validator,
)

from forgetui.engine.folder.memory import Exclusion
from forgetui.engine.folder.statuses import FINISHED, Status
from forgetui.engine.folder.stored_args import serialized
from forgetui.engine.folder.task_spec import Plan, Strict


class CheckResult(Strict):
    passing: bool
    details: str = ""
    passed: int | None = None  # pytest summary: tests passed ...
    total: int | None = None  # ... of this many
    changed_at_step: int = 0  # the step at which `passing` last flipped


class Verification(Strict):
    checked_at: str | None = None
    step: int = 0
    checks: dict[str, CheckResult] = Field(default_factory=dict)
    ready_for_completion: bool = False
    regressions: list[str] = Field(default_factory=list)


class Decision(BaseModel):
    """An operator's answer: immutable, and present in every later context."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    step: int
    question: str
    answer: str
    at: str


class FoldedDecisions(Strict):
    """Decisions that outgrew their budget: moved whole to a file the context points at."""

    count: int
    first_step: int
    last_step: int
    file: str  # relative to the task folder

    def describe(self) -> str:
        return (
            f"{self.count} earlier decisions (steps {self.first_step}-{self.last_step}) "
            f"are in {self.file}"
        )


class Progress(Strict):
    objective: str = ""
    completed: list[str] = Field(default_factory=list)  # the newest 20 kept; context shows 10
    completed_count: int = 0
    pending: list[str] = Field(default_factory=list)


class OutputTrace(Strict):
    """An output the agent had in working memory and lost: what it was, how large, when and
    why it left (folder/departures.py)."""

    ref: str
    what: str
    tokens: int = Field(ge=0)
    step: int = Field(ge=0)
    reason: str


class PendingAction(Strict):
    action: str
    args: dict[str, Any] = Field(default_factory=dict)

    @field_serializer("args")
    def _args_by_reference(self, args: dict[str, Any], info: SerializationInfo) -> Any:
        return serialized(args, info)  # as the log keeps them (stored_args.py)


EscalationReason = Literal[
    "agent",
    "loop",
    "failed_approaches",
    "regression",
    "max_steps",
    "max_cost",
    "over_budget",
    "context_window",  # the context does not fit the model's window (or the server said so)
    "model_error",
    "unparseable",  # the model's last answers in a row could not be parsed
    "approval",
    "interrupted",
    "confirm_complete",
]


class Escalation(Strict):
    reason: EscalationReason
    question: str
    options: list[str] = Field(default_factory=list)
    evidence: list[str] = Field(default_factory=list)
    pending_action: PendingAction | None = None
    step: int
    raised_at: str


class Resolution(Strict):
    """The operator's verdict on a step that waits: an approval or an interrupted intent."""

    kind: Literal["approve", "reject", "modify", "rerun", "skip"]
    step: int
    args: dict[str, Any] | None = None
    reason: str | None = None

    @field_serializer("args")
    def _args_by_reference(self, args: dict[str, Any] | None, info: SerializationInfo) -> Any:
        return serialized(args, info)  # the operator's modified arguments, kept like the log's


class Attempt(Strict):
    """One action the loop guard saw, and the workspace as it stood then."""

    signature: str
    workspace: int = 0  # LoopGuardState.workspace when it was attempted


class LoopGuardState(Strict):
    recent: list[Attempt] = Field(default_factory=list)  # the last attempts, newest last
    blocked: list[str] = Field(default_factory=list)  # refused since the workspace last changed
    block_streak: int = 0
    workspace: int = 0  # counts the steps that changed a workspace file

    @field_validator("recent", mode="before")
    @classmethod
    def _bare_signatures(cls, value: Any) -> Any:
        """Files written before attempts carried the workspace: a bare signature each."""
        if isinstance(value, list):
            return [{"signature": item} if isinstance(item, str) else item for item in value]
        return value


class CommandRun(Strict):
    cmd: str
    exit_code: int | None = None  # None: timed out or refused
    step: int


class Probe(Strict):
    """A generic view of what the agent has touched, for every task type."""

    files_written: list[str] = Field(default_factory=list)
    files_missing: list[str] = Field(default_factory=list)  # target files not yet there
    recent_commands: list[CommandRun] = Field(default_factory=list)  # newest last, at most 5
    last_errors: list[str] = Field(default_factory=list)  # newest last, at most 3


class Totals(Strict):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    model_calls: int = 0


class RewindMark(Strict):
    """One in-place rewind: steps `first`..`last` were superseded when the task went back to
    the end of step `to`. They stay in the log (a branch shown dimmed), never in a context."""

    to: int = Field(ge=0)
    first: int = Field(ge=1)
    last: int = Field(ge=1)
    at: str


def superseded_steps(rewinds: list[RewindMark]) -> set[int]:
    """The steps of superseded branches: the log keeps them, the agent never sees them again."""
    return {step for mark in rewinds for step in range(mark.first, mark.last + 1)}


class TaskState(Strict):
    task_id: str
    phase: str
    status: Status = "ready"
    step: int = Field(0, ge=0)  # steps recorded so far; the next step is step + 1
    verification: Verification = Field(default_factory=Verification)
    decisions: list[Decision] = Field(default_factory=list)
    folded_decisions: FoldedDecisions | None = None
    progress: Progress = Field(default_factory=Progress)
    scratchpad: list[str] = Field(default_factory=list)  # the newest 50; the log keeps all
    notes_count: int = 0  # every note written, for "... and N earlier notes"
    plan: Plan | None = None
    loop_guard: LoopGuardState = Field(default_factory=LoopGuardState)
    failed_streak: int = 0
    probe: Probe = Field(default_factory=Probe)
    pending_escalation: Escalation | None = None
    resolution: Resolution | None = None
    # The result record of step `step`, so a crash between saving state and appending the
    # result to the log is repaired on resume instead of re-running a finished step.
    last_result: dict[str, Any] | None = None
    totals: Totals = Field(default_factory=Totals)
    last_context_tokens: int = 0
    # the provider's own count of the last prompt (0: it reported none), beside forgetui's
    last_prompt_tokens: int = 0
    # the usage tier of the last context compiled for a step, so the next one alerts only as
    # it crosses into the last tier; None in a task saved before it was kept here
    last_context_tier: int | None = Field(None, ge=0)
    unparsed_streak: int = 0  # answers in a row that held no usable action
    extra_steps: int = 0  # granted by the operator past limits.max_steps
    extra_cost_usd: float = 0.0
    max_steps: int | None = None  # set by the operator mid-run: replaces the task's limit
    max_cost_usd: float | None = None
    # sha256 of the task.yaml the operator accepted (forgetui/engine/folder/seal.py): a step
    # never runs on another one. None only in tasks laid out before sealing existed.
    task_sha256: str | None = Field(None, pattern=r"^[0-9a-f]{64}$")
    # in-place rewinds, oldest first: the steps they superseded (superseded_steps)
    rewinds: list[RewindMark] = Field(default_factory=list)
    # items that left working memory since the last context was saved, and why (FIFO at a
    # result, the operator's evict, expiry): the next saved context records them, then clears
    departed: list[Exclusion] = Field(default_factory=list)
    # outputs that left working memory, newest last: the context keeps a line for each
    dropped_outputs: list[OutputTrace] = Field(default_factory=list)
    updated_at: str | None = None

    @property
    def next_step(self) -> int:
        return self.step + 1

    @property
    def next_step_decided(self) -> bool:
        """The operator's answer already chose what the next step does (approved, modified,
        rejected, re-run or skipped): it finishes without asking a model, a human one included."""
        return self.resolution is not None and self.resolution.step == self.next_step

    @property
    def finished(self) -> bool:
        return self.status in FINISHED
