"""What an action is given (`ActionEnv`) and what it gives back (`ActionOutcome`).

Handlers raise `Failed` (or `FileProblem`) for what the model can get wrong; `execute` turns
that into a `failure` outcome, so no handler builds an error outcome by hand."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from forgetui.engine.base.errors import ForgeError
from forgetui.engine.checks.verify import KeepOutputs
from forgetui.engine.folder.memory import MemoryItem
from forgetui.engine.folder.records import ResultKind
from forgetui.engine.folder.task_spec import TaskSpec
from forgetui.engine.folder.task_state import CommandRun, Verification
from forgetui.engine.sandbox import DEFAULT_OUTPUT_CAP, DEFAULT_TIMEOUT_S

OUTPUT_CAP = DEFAULT_OUTPUT_CAP  # characters of output kept for the log and the detail view
SUMMARY_CHARS = 160  # an outcome's one-line summary

Snapshot = Callable[[str, str | None, str | None], list[str]]
DiscardSnapshots = Callable[[list[str]], None]


@dataclass
class ActionEnv:
    workspace: Path
    spec: TaskSpec
    step: int
    snapshot: Snapshot  # (rel_path, before, after) -> artifact paths; TaskFolder.snapshot
    discard_snapshots: DiscardSnapshots | None = None  # a change that did not happen after all
    last_error: str | None = None  # for load_context(error_details)
    verification: Verification | None = None  # the previous one, for run_check
    command_timeout_s: float = DEFAULT_TIMEOUT_S
    keep_check_outputs: KeepOutputs | None = None  # run_check: the checks' full outputs go here


@dataclass(frozen=True)
class ActionOutcome:
    result: ResultKind  # success | failure | refused
    summary: str  # one line for the log
    output: str | None = None
    error: str | None = None
    files_changed: list[str] = field(default_factory=list)
    snapshots: list[str] = field(default_factory=list)
    memory_item: MemoryItem | None = None
    note: str | None = None
    command: CommandRun | None = None
    changed_workspace: bool = False
    verification: Verification | None = None  # run_check: the new verification
    redacted: list[str] = field(default_factory=list)  # variables whose values were cut out
    undone: list[str] = field(default_factory=list)  # a command's changes to .agentforge/, undone


class Failed(ForgeError):
    """An action that ran and could not do what was asked (a missing file, no match)."""
