"""task.yaml: the immutable definition of a task."""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    field_serializer,
    field_validator,
    model_validator,
)

from forgetui.engine.folder.catalog import PHASES, TaskType
from forgetui.engine.folder.model_options import ModelOptions
from forgetui.engine.sandbox.limits import (
    DEFAULT_FILE_SIZE_MB,
    DEFAULT_MEMORY_MB,
    DEFAULT_PROCESSES,
)

SECTION_NAMES: tuple[str, ...] = (
    "system_prompt",
    "task_frame",
    "current_state",
    "recent_actions",
    "verification_status",
    "available_actions",
)
DEFAULT_BUDGETS: dict[str, int] = {
    "system_prompt": 1000,
    "task_frame": 500,
    "current_state": 4500,
    "recent_actions": 1000,
    "verification_status": 200,
    "available_actions": 800,
}
DEFAULT_MAX_TOKENS = 8000
# Each task type's context cap and section budgets, sized for what its current_state holds.
# fix_violation's state is one violation, its check and an excerpt around the violation's
# lines, and its one phase has the execution actions: 6,000 hold it with room to spare.
# write_tests holds the requirements, the test patterns and the module under test, no spec
# and no plan: 7,000. A feature's spec and its target files, and a generic task's open
# inputs and plan, keep the full 8,000.
TYPE_BUDGETS: dict[str, dict[str, int]] = {
    "generic": DEFAULT_BUDGETS,
    "implement_feature": DEFAULT_BUDGETS,
    "write_tests": {**DEFAULT_BUDGETS, "current_state": 4000, "available_actions": 300},
    "fix_violation": {
        "system_prompt": 800,
        "task_frame": 400,
        "current_state": 3300,
        "recent_actions": 800,
        "verification_status": 200,
        "available_actions": 500,
    },
}
TYPE_MAX_TOKENS: dict[str, int] = {kind: sum(b.values()) for kind, b in TYPE_BUDGETS.items()}
MIN_BUDGET = 20  # the smallest section budget task.yaml may set
DEFAULT_ALLOWED_COMMANDS: tuple[str, ...] = ("python", "pytest", "ruff")


class Strict(BaseModel):
    """File formats reject unknown keys so a typo is reported, not silently ignored. Each is
    built at its first use, not at import: a process that reads a task uses a few of the
    formats the folder layer defines (the workbench's first view, a third of its time)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)


class Check(Strict):
    name: str
    kind: Literal["command", "regex", "file_exists"]
    cmd: list[str] | None = None
    path: str | None = None
    must_match: str | None = None
    must_not_match: str | None = None
    timeout_s: float = 120.0
    criterion: str | None = None  # the success criterion this check proves, if named

    @model_validator(mode="after")
    def _fields_for_kind(self) -> Check:
        if self.kind == "command" and not self.cmd:
            raise ValueError("a command check needs `cmd` (a list of argv strings)")
        if self.kind in ("regex", "file_exists") and not self.path:
            raise ValueError(f"a {self.kind} check needs `path`")
        if self.kind == "regex" and not (self.must_match or self.must_not_match):
            raise ValueError("a regex check needs `must_match` or `must_not_match`")
        return self


class Limits(Strict):
    max_steps: int = Field(100, ge=1)
    max_cost_usd: float | None = Field(None, ge=0)
    max_tokens: int = Field(DEFAULT_MAX_TOKENS, ge=100)
    # the most bytes one write_file or edit_file may leave in a file: more is refused (a
    # generated file that large is a command's job); at most 16 MiB, what forgetui reads back
    max_write_bytes: int = Field(4 * 1024 * 1024, ge=1, le=16 * 1024 * 1024)
    token_budget: dict[str, int] = Field(default_factory=dict)

    @field_validator("token_budget")
    @classmethod
    def _known_sections(cls, value: dict[str, int]) -> dict[str, int]:
        for name, tokens in value.items():
            if name not in SECTION_NAMES:
                raise ValueError(f"unknown section {name!r}; sections: {', '.join(SECTION_NAMES)}")
            if tokens < MIN_BUDGET:
                raise ValueError(f"budget for {name} must be at least {MIN_BUDGET} tokens")
        return value

    # the task type's budgets (TaskSpec sets them): a Limits read on its own has the defaults
    _type_budgets: dict[str, int] = PrivateAttr(default_factory=lambda: dict(DEFAULT_BUDGETS))

    def budgets(self) -> dict[str, int]:
        """The section budgets in force: the task type's, under the task.yaml's own. Budgets
        adding up to more than the cap are cut by the compiler, in section order."""
        return {**self._type_budgets, **self.token_budget}


class Guards(Strict):
    """Loop-guard and failure thresholds."""

    identical_limit: int = Field(3, ge=2)  # the Nth identical attempt is blocked
    alternation_window: int = Field(10, ge=4)
    failed_approaches: int = Field(3, ge=1)
    repeated_blocks: int = Field(2, ge=1)


class SandboxOptions(Strict):
    """How the task's commands (run_cmd and command checks) are confined under bubblewrap.

    network: false (the default) gives each command a network namespace of its own, loopback
    only: a test cannot call out, nor reach a server on the operator's machine. true shares
    the machine's network, for tasks whose checks must download or talk to a service. Without
    bubblewrap (allow-list mode) commands always have the network."""

    network: bool = Field(False, strict=True)
    # Resource limits on each command (address space, largest file written, processes and
    # threads); a command stopped by one says which. Defaults a real test suite fits in.
    memory_mb: int = Field(DEFAULT_MEMORY_MB, ge=64)
    file_size_mb: int = Field(DEFAULT_FILE_SIZE_MB, ge=1)
    processes: int = Field(DEFAULT_PROCESSES, ge=16)


ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class Subtask(Strict):
    title: str
    status: Literal["pending", "done", "failed"] = "pending"
    reason: str | None = None


class PlanTask(Strict):
    title: str
    subtasks: list[Subtask] = Field(default_factory=list)


class Plan(Strict):
    goal: str
    tasks: list[PlanTask] = Field(default_factory=list)

    def current(self) -> tuple[int, int] | None:
        """(task index, subtask index) of the first pending subtask."""
        for ti, task in enumerate(self.tasks):
            for si, sub in enumerate(task.subtasks):
                if sub.status == "pending":
                    return ti, si
        return None


class TaskSpec(Strict):
    """task.yaml. Of the sandbox fields: `sandbox` (SandboxOptions) says what commands may
    reach; `env_passthrough` names the operator's environment variables commands may see
    beyond the basics (PATH, HOME, LANG, LC_*, TERM, TZ, the venv's): every other variable,
    API keys first, is withheld."""

    id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    goal: str = Field(min_length=1)
    success_criteria: list[str] = Field(default_factory=list)
    constraints: list[str] = Field(default_factory=list)
    task_type: TaskType = "generic"
    phase: str | None = None
    # type-specific inputs
    violation: str | dict[str, Any] | None = None
    check_definition: str | dict[str, Any] | None = None
    spec: str | dict[str, Any] | None = None
    target_files: list[str] = Field(default_factory=list)
    test_requirements: str | list[str] | None = None
    test_patterns: list[str] = Field(default_factory=list)
    inputs: dict[str, Any] = Field(default_factory=dict)
    checks: list[Check] = Field(default_factory=list)
    limits: Limits = Field(default_factory=Limits)
    guards: Guards = Field(default_factory=Guards)
    allowed_commands: list[str] = Field(default_factory=lambda: list(DEFAULT_ALLOWED_COMMANDS))
    sandbox: SandboxOptions = Field(default_factory=SandboxOptions)
    env_passthrough: list[str] = Field(default_factory=list)
    # the Python environment commands run with when the workspace has no .venv/ or venv/ and
    # no $VIRTUAL_ENV is active: a venv directory or an interpreter, relative to the workspace
    python_env: str | None = Field(None, min_length=1)
    approval: Literal["auto", "confirm_writes", "confirm_all"] = "auto"
    context_format: Literal["yaml", "xml"] = "yaml"
    plan: Plan | None = None
    decompose: bool = False
    model: str | None = None
    model_options: ModelOptions = Field(default_factory=ModelOptions)

    @field_serializer("model_options")
    def _own_model_options(self, options: ModelOptions) -> dict[str, Any]:
        """Only the options the task sets: the rest stay defaults a user config or a flag may
        fill, instead of being frozen into every task.yaml `init` and `new` write."""
        return options.model_dump(mode="json", include=options.model_fields_set)

    @field_validator("env_passthrough")
    @classmethod
    def _variable_names(cls, value: list[str]) -> list[str]:
        for name in value:
            if not ENV_NAME.fullmatch(name):
                raise ValueError(
                    f"{name!r} is not an environment variable name "
                    "(letters, digits and _, not starting with a digit)"
                )
        return value

    @model_validator(mode="after")
    def _phase_belongs_to_type(self) -> TaskSpec:
        phases = PHASES[self.task_type]
        if self.phase is None:
            self.phase = phases[0]
        elif self.phase not in phases:
            raise ValueError(
                f"phase {self.phase!r} is not a phase of {self.task_type} ({', '.join(phases)})"
            )
        names = [check.name for check in self.checks]
        if len(set(names)) != len(names):
            raise ValueError("check names must be unique")
        self._type_limits()
        return self

    def _type_limits(self) -> None:
        """The task type's cap where task.yaml sets none, and its section budgets under the
        ones it sets. A set budget over the cap is kept: the compiler cuts it to what the cap
        leaves and says so in the section's compressions."""
        limits = self.limits
        if "max_tokens" not in limits.model_fields_set:
            limits.max_tokens = TYPE_MAX_TOKENS[self.task_type]
            limits.model_fields_set.discard("max_tokens")  # still the type's, not the file's
        limits._type_budgets = dict(TYPE_BUDGETS[self.task_type])

    @property
    def initial_phase(self) -> str:
        assert self.phase is not None
        return self.phase

    @classmethod
    def from_goal(
        cls,
        goal: str,
        task_type: str = "generic",
        criteria: Sequence[str] = (),
        check_cmds: Sequence[str | Sequence[str]] = (),
        task_id: str | None = None,
        *,
        test_cmd: Sequence[str] | None = None,
        allowed_commands: Sequence[str] | None = None,
    ) -> TaskSpec:
        """`forgetui new`: the id from the goal unless given; each check command (a string
        split with shell rules, or an argv) becomes a command check, and `test_cmd` (the
        project's own test command) the check `tests`; `allowed_commands` replaces the default
        allow-list when given."""
        slug = re.sub(r"[^a-z0-9]+", "-", goal.lower()).strip("-")[:40].strip("-") or "task"
        checks = [
            {
                "name": f"check-{i}",
                "kind": "command",
                "cmd": shlex.split(cmd) if isinstance(cmd, str) else list(cmd),
            }
            for i, cmd in enumerate(check_cmds, start=1)
        ]
        if test_cmd:
            checks.append({"name": "tests", "kind": "command", "cmd": list(test_cmd)})
        chosen = {} if allowed_commands is None else {"allowed_commands": list(allowed_commands)}
        return cls.model_validate(
            {
                "id": task_id or slug,
                "goal": goal,
                "task_type": task_type,
                "success_criteria": list(criteria),
                "checks": checks,
                **chosen,
            }
        )
