"""The immutable views the panes show (snapshot.py's TaskReader builds them off the UI thread):
a task's checks, criteria, context, memory and log rows as they stood at one read."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:  # the views only name these: the launcher unpickles its child's snapshot
    # here, which should load no more of the engine than the values in it
    from forgetui.engine import api
    from forgetui.engine.api import (
        DiffEntry,
        Escalation,
        LogRow,
        MemoryRow,
        Plan,
        SandboxMode,
        TaskChange,
    )

Level = Literal["ok", "warn", "over"]
WARN_AT = 0.85  # a meter turns to the warning colour at 85% of its budget


def meter_level(tokens: int, budget: int) -> Level:
    if budget <= 0 or tokens > budget:
        return "over" if tokens > budget else "ok"
    return "warn" if tokens >= WARN_AT * budget else "ok"


@dataclass(frozen=True)
class SectionView:
    name: str
    budget: int
    tokens: int
    text: str
    compressions: tuple[str, ...] = ()

    @property
    def level(self) -> Level:
        return meter_level(self.tokens, self.budget)


@dataclass(frozen=True)
class ContextView:
    """A compiled context: the next step's preview, or (saved) the one sent at `step`."""

    step: int
    saved: bool
    sections: tuple[SectionView, ...]
    total_tokens: int
    max_tokens: int
    messages: tuple[tuple[str, str], ...]
    over_budget: tuple[str, ...] = ()
    diff: tuple[DiffEntry, ...] = ()
    diff_error: str | None = None
    leaving: tuple[api.Leaving, ...] = ()  # the preview: what the next step takes out, and why
    tool_tokens: int = 0  # tool schemas sent with the request: in the total, in no section
    window_problem: str | None = None  # the model's window leaves too little: the step escalates
    health: api.ContextHealth | None = None  # the preview against its cap and budgets
    diff_since: int | None = None  # the step the diff compares with (a rewind skips a branch)

    @property
    def title(self) -> str:
        return f"as sent at step {self.step}" if self.saved else "next step preview"

    @property
    def steps_hint(self) -> str:
        """The keys to another step's context; the preview before any step was sent has
        nothing earlier to go to."""
        if self.saved:
            return "[ earlier · ] later"
        return "[ as sent before" if self.step > 1 else ""

    @property
    def level(self) -> Level:
        return meter_level(self.total_tokens, self.max_tokens)


@dataclass(frozen=True)
class CriterionView:
    text: str
    passing: bool | None  # None: no check names this criterion


@dataclass(frozen=True)
class CheckView:
    name: str
    passing: bool | None  # None: not run yet
    details: str  # the summary state.yaml keeps; the full output is read on demand
    changed_at_step: int | None
    criterion: str | None = None
    kind: str = ""  # command | regex | file_exists
    runs: str = ""  # what it runs or looks for: the command line, the pattern in its files


@dataclass(frozen=True)
class LockHolder:
    pid: int
    command: str
    since: str = ""  # when it took the task (the lock file's started_at)


@dataclass(frozen=True)
class TaskSnapshot:
    task_id: str
    task_type: str
    goal: str
    phase: str
    phases: tuple[str, ...]
    status: str
    step: int
    criteria: tuple[CriterionView, ...]
    constraints: tuple[str, ...]
    plan: Plan | None
    checks: tuple[CheckView, ...]
    ready: bool
    memory: tuple[MemoryRow, ...]
    context: ContextView | None
    context_error: str | None
    log_count: int
    tail_rows: tuple[LogRow, ...]
    cost: float
    escalation: Escalation | None
    holder: LockHolder | None  # another process writing this task: we are read-only
    approval: str = "auto"
    recent: tuple[LogRow, ...] = field(default_factory=tuple)
    model: str = ""  # the model steps run with: the override, else the task's, else replay
    model_problem: str | None = None  # why the model cannot run a step here (no replay script)
    server_tag: str = ""  # what the server's probed findings change for this model ("" none)
    task_change: TaskChange | None = None  # task.yaml edited since accepted: no step runs
    sandbox: SandboxMode | None = None  # what agent commands run in (None: not known yet)
    environment: api.ProjectEnvironment | None = None  # the Python commands run with
    # the last prompt as forgetui counted it, and as the provider did (0: it reported none)
    prompt_tokens: int = 0
    provider_prompt_tokens: int = 0
    # the last steps' tokens sent and a whole-conversation run's (empty until read up to date)
    token_series: tuple[api.StepTokens, ...] = ()
    decided: bool = False  # the operator already chose the next step's action (no model asked)
    # the first load's frame (TaskReader.frame): task.yaml, state.yaml and the log, shown while
    # memory, the context and the series are counted (tiktoken takes longer to load than the app)
    loading: bool = False

    @property
    def health(self) -> api.ContextHealth | None:
        return self.context.health if self.context is not None else None

    @property
    def next_step(self) -> int:
        return self.step + 1

    @property
    def finished(self) -> bool:
        from forgetui.engine.api import FINISHED

        return self.status in FINISHED

    @property
    def read_only(self) -> bool:
        return self.holder is not None
