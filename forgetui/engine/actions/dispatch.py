"""`execute`: check an action's arguments, run its handler, and turn every mistake the model can
make into an outcome, never an exception."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from forgetui.engine.actions import commands, files
from forgetui.engine.actions.args import ActionArgsError, validate_args
from forgetui.engine.actions.load_context import load_context
from forgetui.engine.actions.outcome import SUMMARY_CHARS, ActionEnv, ActionOutcome, Failed
from forgetui.engine.base.compress import one_line
from forgetui.engine.folder.catalog import TARGET_CHARS, action_target
from forgetui.engine.sandbox import SandboxError, redact, redaction_note, secrets_of
from forgetui.engine.workspace.files import FileProblem

# The executor runs these itself (they change the task's state, not the workspace); only their
# arguments are checked here, through validate_args.
CONTROL_ACTIONS: tuple[str, ...] = ("complete", "escalate", "mark_subtask_complete", "set_plan")

Handler = Callable[[dict[str, Any], ActionEnv], ActionOutcome]
HANDLERS: dict[str, Handler] = {
    "read_file": files.read_file,
    "list_dir": files.list_dir,
    "search": files.search,
    "write_file": files.write_file,
    "edit_file": files.edit_file,
    "run_cmd": commands.run_cmd,
    "run_check": commands.run_check,
    "load_context": load_context,
    "note": commands.note,
}
WORKSPACE_ACTIONS: tuple[str, ...] = tuple(HANDLERS)


def execute(action: str, args: dict[str, Any], env: ActionEnv) -> ActionOutcome:
    """Run one workspace action. Never raises for the model's mistakes: bad arguments and failed
    reads are a `failure`, what the sandbox refuses is `refused`, each with a one-line summary
    for the log and the error for the next context. Raises ValueError if handed a control
    action, which the executor must handle itself."""
    if action in CONTROL_ACTIONS:
        raise ValueError(f"{action} is handled by the executor, not by actions.execute")
    return redacted(_run(action, args, env), secrets_of(os.environ))


def _run(action: str, args: dict[str, Any], env: ActionEnv) -> ActionOutcome:
    target = action_target(args) if isinstance(args, dict) else ""
    label = one_line(f"{action} {target}".strip(), TARGET_CHARS)
    try:
        clean = validate_args(action, args)
        return HANDLERS[action](clean, env)
    except SandboxError as exc:
        return ActionOutcome(
            "refused", one_line(f"{label} refused: {exc}", SUMMARY_CHARS), error=str(exc)
        )
    except (ActionArgsError, Failed, FileProblem) as exc:
        return ActionOutcome("failure", one_line(f"{label}: {exc}", SUMMARY_CHARS), error=str(exc))
    except OSError as exc:
        error = f"{exc.strerror or exc}" + (f": {exc.filename}" if exc.filename else "")
        return ActionOutcome("failure", one_line(f"{label}: {error}", SUMMARY_CHARS), error=error)


def redacted(outcome: ActionOutcome, secrets: Mapping[str, str]) -> ActionOutcome:
    """`outcome` with the secret values cut from everything the log, the state and the next
    context keep (output, error, summary, note, a loaded memory item, check details), and the
    summary saying which variables were cut, so the model knows why text is missing.

    Every handler passes here: a file the agent reads (.env, a config) can hold the operator's
    key as well as a command's output can."""
    found = set(outcome.redacted)

    def clean(value: Any) -> Any:
        if isinstance(value, str):
            text, names = redact(value, secrets)
            found.update(names)
            return text
        if isinstance(value, dict):
            return {key: clean(item) for key, item in value.items()}
        if isinstance(value, list):
            return [clean(item) for item in value]
        return value

    changes: dict[str, Any] = {
        name: clean(getattr(outcome, name)) for name in ("summary", "output", "error", "note")
    }
    if outcome.memory_item is not None:
        content = clean(outcome.memory_item.content)
        changes["memory_item"] = outcome.memory_item.model_copy(update={"content": content})
    if outcome.verification is not None:
        dumped = clean(outcome.verification.model_dump())
        changes["verification"] = type(outcome.verification).model_validate(dumped)
    if not found:
        return outcome
    names = sorted(found)
    note = redaction_note(names)
    summary = changes["summary"]
    if note not in summary:
        room = max(SUMMARY_CHARS - len(note) - 2, SUMMARY_CHARS // 2)
        summary = one_line(f"{one_line(summary, room)}; {note}", SUMMARY_CHARS)
    return replace(outcome, **{**changes, "summary": summary, "redacted": names})
