"""Phase-specific system prompts: XML-structured in both context renderings,
so the model always finds its role, the phase's purpose, the rules and the answer format under
the same tags. The prompt depends only on the phase and the rendering, so it is built once."""

from __future__ import annotations

from functools import lru_cache

from forgetui.engine.folder.catalog import PHASE_PURPOSE, actions_of

_ROLE = (
    "You are the agent of forgetui, working on one software task in a sandboxed workspace, one "
    "action per step. Each step is a fresh conversation: the user message is compiled from the "
    "task's verified state on disk, and nothing you wrote in earlier steps is remembered unless "
    "it appears there."
)

_CONTEXT_LAYOUT = {
    "yaml": (
        "The user message is YAML with the keys task_frame (goal, success criteria, "
        "constraints), current_state (task inputs, target file excerpts, working memory, "
        "operator decisions, progress, scratchpad, plan, blocked actions), recent_actions (the "
        "last results, newest last), verification_status and available_actions."
    ),
    "xml": (
        "The user message is XML: <task_context> holds <task_frame> (goal, success criteria, "
        "constraints), <current_state> (task inputs, target file excerpts, <memory>, "
        "<decisions>, <progress>, <scratchpad>, <plan>, <blocked>), <recent_actions> (newest "
        "last), <verification_status> and <tools>, the actions you may use."
    ),
}

_COMMON_RULES = (
    "Answer with exactly one action from the available actions; never two.",
    "Operator decisions in current_state are binding: follow them over your own plans.",
    "Only what is in this message exists for you. Keep findings you will need later with "
    "note(text); keep a file across steps with load_context(full_file:PATH).",
    "File excerpts keep their line numbers; '# ... N lines omitted ...' marks lines not shown. "
    "Use read_file(path, start_line, end_line) to see them.",
    "Do not repeat an action listed under blocked: it was refused as a loop.",
    "Paths are relative to the workspace. Commands are argv lists from the allowed commands, "
    "run without a shell.",
    "Read a file before you edit it; prefer edit_file with an exact, unique `old` text.",
    "Call complete(summary) only when verification_status shows ready_for_completion: true.",
    "If you are stuck, unsure what the operator wants, or need approval, use escalate(question, "
    "options).",
)

_PHASE_RULES: dict[str, tuple[str, ...]] = {
    "planning": (
        "Change no files: read, search and take notes only.",
        "Settle the plan; complete(summary) hands over to execution, where subtasks are done.",
    ),
    "execution": (
        "Work on the current subtask of the plan only.",
        "After each change run_check; mark the subtask with mark_subtask_complete(success, "
        "reason) when it is done or cannot be done.",
    ),
    "verification": (
        "Run the checks and read their output before changing anything.",
        "Fix only what a failing check shows; do not add features.",
    ),
    "fix_violation": (
        "Read the violation and the check definition first; the excerpt shows the target file.",
        "Make the smallest edit that satisfies the check; behaviour must not change.",
        "Run run_check after each edit.",
    ),
    "implement_red": (
        "Write tests only: no implementation code in this phase.",
        "Run the tests and confirm they fail for the reason the spec gives, then complete.",
    ),
    "implement_green": (
        "Write the implementation; do not change the RED tests.",
        "Run the tests after each change; complete when they all pass.",
    ),
    "write_tests": (
        "Follow the test requirements and the project's test patterns.",
        "The new tests must pass against the current code; run them before completing.",
    ),
}

_RESPONSE_FORMAT = """\
Reply with exactly one action. When tools are offered, make one tool call. Otherwise reply with
one fenced yaml block and nothing else:
```yaml
action: NAME
args: {ARG: VALUE}
```
For example:
```yaml
action: read_file
args: {path: <listed file>, start_line: 1, end_line: 80}
```"""


@lru_cache(maxsize=64)
def system_prompt(phase: str, context_format: str = "yaml", *, brief: bool = False) -> str:
    """The system message for a phase. `brief` drops the rules and action list, for budgets too
    small for the full prompt."""
    purpose = PHASE_PURPOSE.get(phase, "Work toward the goal one verified step at a time.")
    fmt = context_format if context_format in _CONTEXT_LAYOUT else "yaml"
    parts = [
        f"<role>{_ROLE}</role>",
        f'<phase name="{phase}">',
        f"<purpose>{purpose}</purpose>",
        "</phase>",
    ]
    if not brief:
        rules = (*_PHASE_RULES.get(phase, ()), *_COMMON_RULES)
        names = ", ".join(action.name for action in actions_of(phase))
        parts += [
            f'<context format="{fmt}">{_CONTEXT_LAYOUT[fmt]}</context>',
            "<rules>",
            *(f"<rule>{rule}</rule>" for rule in rules),
            "</rules>",
            f"<actions>{names}</actions>",
        ]
    parts += ["<response_format>", _RESPONSE_FORMAT, "</response_format>"]
    return "\n".join(parts)
