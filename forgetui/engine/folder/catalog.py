"""Task types, their phases, and the actions each phase offers.

Each action's arguments are declared here once, with their types and which are required: the
parser, the tool schemas sent to a model and the executor all read this table, so a model, a
replay script and a human are held to the same rules (`forgetui.engine.actions.args`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

TaskType = Literal["fix_violation", "implement_feature", "write_tests", "generic"]

PHASES: dict[str, tuple[str, ...]] = {
    "generic": ("planning", "execution", "verification"),
    "fix_violation": ("fix_violation",),
    "implement_feature": ("implement_red", "implement_green"),
    "write_tests": ("write_tests",),
}

# string: any scalar, as text; line: an integer of 1 or more; command: a string (the sandbox
# splits it) or a list of strings; string_list: a list of strings (a scalar is a list of one);
# plan: a mapping {goal, tasks: [{title, subtasks: [{title}]}]}, or that mapping JSON-encoded;
# seconds: a number above 0.
ArgType = Literal["string", "line", "boolean", "command", "string_list", "plan", "seconds"]


@dataclass(frozen=True)
class ArgSpec:
    """One argument of an action. `nonempty` refuses a string that is blank once stripped."""

    name: str
    type: ArgType = "string"
    required: bool = True
    nonempty: bool = False
    description: str = ""  # what the model should put there, in its tool schema


@dataclass(frozen=True)
class ActionSpec:
    name: str
    description: str
    params: tuple[ArgSpec, ...]
    changes_workspace: bool = False

    @property
    def signature(self) -> str:
        """`read_file(path, start_line?, end_line?)`: optional arguments end in `?`."""
        shown = (arg.name + ("" if arg.required else "?") for arg in self.params)
        return f"{self.name}({', '.join(shown)})"

    @property
    def args(self) -> tuple[str, ...]:
        return tuple(arg.name for arg in self.params)

    @property
    def required(self) -> tuple[str, ...]:
        return tuple(arg.name for arg in self.params if arg.required)


ACTIONS: dict[str, ActionSpec] = {
    spec.name: spec
    for spec in (
        ActionSpec(
            "read_file",
            "file text with line numbers, compressed to budget",
            (
                ArgSpec("path", nonempty=True, description="file path relative to the workspace"),
                ArgSpec(
                    "start_line", "line", required=False, description="first line to read, 1-based"
                ),
                ArgSpec(
                    "end_line", "line", required=False, description="last line to read, inclusive"
                ),
                ArgSpec(
                    "max_bytes",
                    "line",
                    required=False,
                    description="read only the file's first N bytes",
                ),  # the file's first N bytes
            ),
        ),
        ActionSpec(
            "list_dir",
            "names in a directory",
            (ArgSpec("path", description="directory relative to the workspace; . for its root"),),
        ),
        ActionSpec(
            "search",
            "regex search: matching file:line identifiers first",
            (
                ArgSpec("pattern", nonempty=True, description="regular expression to look for"),
                ArgSpec(
                    "path",
                    required=False,
                    description="file or directory to search in (default: the workspace)",
                ),
            ),
        ),
        ActionSpec(
            "write_file",
            "create or replace a workspace file",
            (
                ArgSpec("path", nonempty=True, description="file path relative to the workspace"),
                ArgSpec("content", description="the whole new content of the file"),
            ),
            changes_workspace=True,
        ),
        ActionSpec(
            "edit_file",
            "replace the one occurrence of `old` with `new`",
            (
                ArgSpec("path", nonempty=True, description="file path relative to the workspace"),
                ArgSpec(
                    "old",
                    nonempty=True,
                    description="text copied exactly from the file; must occur once",
                ),
                ArgSpec("new", description="replacement text (empty deletes `old`)"),
            ),
            changes_workspace=True,
        ),
        ActionSpec(
            "run_cmd",
            "run an allowed command (argv list; a shell string under bubblewrap)",
            (
                ArgSpec("cmd", "command", description="argv list, e.g. ['pytest', '-q']"),
                ArgSpec(
                    "timeout_sec",
                    "seconds",
                    required=False,
                    description="seconds before the command is stopped",
                ),
            ),
            changes_workspace=True,
        ),
        ActionSpec(
            "run_check",
            "run verification now",
            (
                ArgSpec(
                    "name",
                    required=False,
                    nonempty=True,
                    description="one check's name (default: every check)",
                ),
            ),
        ),
        ActionSpec(
            "load_context",
            "keep an item in working memory: full_file:PATH, related_files, test_output, "
            "spec_section:ID, error_details",
            (
                ArgSpec(
                    "item",
                    nonempty=True,
                    description="full_file:PATH, related_files, test_output, spec_section:ID"
                    " or error_details",
                ),
            ),
        ),
        ActionSpec(
            "note",
            "append to your scratchpad",
            (ArgSpec("text", nonempty=True, description="what to remember in later steps"),),
        ),
        ActionSpec(
            "mark_subtask_complete",
            "advance the plan to the next subtask",
            (
                ArgSpec(
                    "success",
                    "boolean",
                    description="true if the subtask is done, false if it cannot be",
                ),
                ArgSpec("reason", description="one line: what was done, or why not"),
            ),
        ),
        ActionSpec(
            "complete",
            "finish this phase or the task; refused until verification is ready",
            (ArgSpec("summary", nonempty=True, description="one line: what was achieved"),),
        ),
        ActionSpec(
            "set_plan",
            "the plan as {goal, tasks: [{title, subtasks: [{title}]}]}",
            (
                ArgSpec(
                    "plan", "plan", description="the plan: a goal and its tasks, each with subtasks"
                ),
            ),
        ),
        ActionSpec(
            "escalate",
            "pause and ask the operator",
            (
                ArgSpec("question", nonempty=True, description="the question for the operator"),
                ArgSpec(
                    "options",
                    "string_list",
                    required=False,
                    description="short answers the operator can pick",
                ),
            ),
        ),
    )
}

_READ = ("read_file", "list_dir", "search", "load_context", "note")
_ALL = tuple(name for name in ACTIONS if name != "set_plan")

PHASE_ACTIONS: dict[str, tuple[str, ...]] = {
    "decompose": ("read_file", "list_dir", "set_plan", "escalate"),
    # no subtask can be done where no file can change: mark_subtask_complete waits for execution
    "planning": (*_READ, "complete", "escalate"),
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


# The argument that names what an action worked on, in order of preference: the log's target
# column, the context's recent-action lines and an outcome's label all use it.
TARGET_ARGS = ("path", "cmd", "pattern", "item", "name", "question", "text", "summary")
TARGET_CHARS = 80


def action_target(args: Mapping[str, Any]) -> str:
    """What an action worked on, on one line of at most TARGET_CHARS characters."""
    from forgetui.engine.base.compress import one_line

    for key in TARGET_ARGS:
        value = args.get(key)
        if value not in (None, "", []):
            text = " ".join(map(str, value)) if isinstance(value, list) else str(value)
            return one_line(text, TARGET_CHARS)
    return ""
