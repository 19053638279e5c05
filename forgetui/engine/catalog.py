"""Task types, their phases, and the actions each phase offers (DESIGN.md sections 3, 4, 6)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

TaskType = Literal["fix_violation", "implement_feature", "write_tests", "generic"]
TASK_TYPES: tuple[str, ...] = ("fix_violation", "implement_feature", "write_tests", "generic")

PHASES: dict[str, tuple[str, ...]] = {
    "generic": ("planning", "execution", "verification"),
    "fix_violation": ("fix_violation",),
    "implement_feature": ("implement_red", "implement_green"),
    "write_tests": ("write_tests",),
}


@dataclass(frozen=True)
class ActionSpec:
    name: str
    signature: str
    description: str
    args: tuple[str, ...]
    required: tuple[str, ...]
    changes_workspace: bool = False


ACTIONS: dict[str, ActionSpec] = {
    spec.name: spec
    for spec in (
        ActionSpec(
            "read_file",
            "read_file(path, start_line?, end_line?)",
            "file text with line numbers, compressed to budget",
            ("path", "start_line", "end_line"),
            ("path",),
        ),
        ActionSpec("list_dir", "list_dir(path)", "names in a directory", ("path",), ("path",)),
        ActionSpec(
            "search",
            "search(pattern, path?)",
            "regex search: matching file:line identifiers first",
            ("pattern", "path"),
            ("pattern",),
        ),
        ActionSpec(
            "write_file",
            "write_file(path, content)",
            "create or replace a workspace file",
            ("path", "content"),
            ("path", "content"),
            changes_workspace=True,
        ),
        ActionSpec(
            "edit_file",
            "edit_file(path, old, new)",
            "replace the one occurrence of `old` with `new`",
            ("path", "old", "new"),
            ("path", "old", "new"),
            changes_workspace=True,
        ),
        ActionSpec(
            "run_cmd",
            "run_cmd(cmd)",
            "run an allowed command (argv list, no shell)",
            ("cmd",),
            ("cmd",),
            changes_workspace=True,
        ),
        ActionSpec("run_check", "run_check(name?)", "run verification now", ("name",), ()),
        ActionSpec(
            "load_context",
            "load_context(item)",
            "keep an item in working memory: full_file:PATH, related_files, test_output, "
            "spec_section:ID, error_details",
            ("item",),
            ("item",),
        ),
        ActionSpec("note", "note(text)", "append to your scratchpad", ("text",), ("text",)),
        ActionSpec(
            "mark_subtask_complete",
            "mark_subtask_complete(success, reason)",
            "advance the plan to the next subtask",
            ("success", "reason"),
            ("success", "reason"),
        ),
        ActionSpec(
            "complete",
            "complete(summary)",
            "finish this phase or the task; refused until verification is ready",
            ("summary",),
            ("summary",),
        ),
        ActionSpec(
            "set_plan",
            "set_plan(plan)",
            "the plan as {goal, tasks: [{title, subtasks: [{title}]}]}",
            ("plan",),
            ("plan",),
        ),
        ActionSpec(
            "escalate",
            "escalate(question, options?)",
            "pause and ask the operator",
            ("question", "options"),
            ("question",),
        ),
    )
}

_READ = ("read_file", "list_dir", "search", "load_context", "note")
_ALL = tuple(name for name in ACTIONS if name != "set_plan")

PHASE_ACTIONS: dict[str, tuple[str, ...]] = {
    "decompose": ("read_file", "list_dir", "set_plan", "escalate"),
    "planning": (*_READ, "mark_subtask_complete", "complete", "escalate"),
    "execution": _ALL,
    "verification": (*_READ, "run_cmd", "run_check", "edit_file", "complete", "escalate"),
    "fix_violation": _ALL,
    "implement_red": _ALL,
    "implement_green": _ALL,
    "write_tests": _ALL,
}

PHASE_PURPOSE: dict[str, str] = {
    "decompose": "Break the goal into tasks and subtasks with set_plan before any work starts.",
    "planning": "Understand the goal and the workspace; settle the plan. Change no files.",
    "execution": "Carry out the plan one subtask at a time, verifying as you go.",
    "verification": "Prove every success criterion holds; fix only what verification shows.",
    "fix_violation": "Make the code conform to the check definition without changing behaviour.",
    "implement_red": "Write failing tests that pin down the spec (RED). Do not implement yet.",
    "implement_green": "Write the code that makes the RED tests pass (GREEN). Keep tests as is.",
    "write_tests": "Write tests that meet the test requirements and pass against current code.",
}


def phases_of(task_type: str) -> tuple[str, ...]:
    return PHASES[task_type]


def actions_of(phase: str) -> tuple[ActionSpec, ...]:
    return tuple(ACTIONS[name] for name in PHASE_ACTIONS.get(phase, _ALL))
