"""The actions that run something or only record: run_cmd, run_check, note.

A command the sandbox refuses is an outcome, not an exception, and keeps its `CommandRun` so the
probe still shows what the agent tried."""

from __future__ import annotations

import shlex
from typing import Any

from forgetui.engine.actions.outcome import SUMMARY_CHARS, ActionEnv, ActionOutcome, Failed
from forgetui.engine.base.compress import one_line
from forgetui.engine.checks import verify
from forgetui.engine.folder.task_state import CommandRun, Verification
from forgetui.engine.sandbox import CommandSetup, SandboxError, command_name, run_in, undone_note

CHECK_DETAIL_CHARS = 200
NOTE_SUMMARY_CHARS = 100


def run_cmd(args: dict[str, Any], env: ActionEnv) -> ActionOutcome:
    cmd: str | list[str] = args["cmd"]
    shown = cmd if isinstance(cmd, str) else shlex.join(cmd)
    bound = env.command_timeout_s
    asked: float | None = args.get("timeout_sec")
    timeout_s = min(asked, bound) if asked is not None else bound
    try:
        setup = CommandSetup.for_task(env.spec, env.workspace)
        name = command_name(cmd)
        result = run_in(setup, cmd, timeout_s=timeout_s)
    except SandboxError as exc:
        return ActionOutcome(
            "refused",
            one_line(f"run_cmd refused: {exc}", SUMMARY_CHARS),
            error=str(exc),
            command=CommandRun(cmd=shown, exit_code=None, step=env.step),
        )
    output = result.output
    if asked is not None and asked > bound:
        output += f"\n[timeout_sec {asked:g} is over the task's command timeout; {bound:g}s used]"
    error = None
    if result.timed_out:
        error = f"timed out after {timeout_s:g}s"
    elif result.stopped:
        error = result.stopped
    elif result.exit_code != 0:
        error = f"exit code {result.exit_code}"
    summary = verify.describe_command(result, name)
    if result.undone:  # it did what a read-only .agentforge/ stops under bubblewrap: a failure
        error = undone_note(result.undone)
        summary = f"{name} changed .agentforge/, undone: {'; '.join(result.undone)}"
    return ActionOutcome(
        "success" if result.exit_code == 0 and not result.undone else "failure",
        one_line(summary, SUMMARY_CHARS),
        output=output,
        error=error,
        command=CommandRun(cmd=shown, exit_code=result.exit_code, step=env.step),
        changed_workspace=True,  # a command may write anything; verification decides
        redacted=result.redacted,  # execute() adds the note to the summary
        undone=result.undone,
    )


def run_check(args: dict[str, Any], env: ActionEnv) -> ActionOutcome:
    if not env.spec.checks:
        raise Failed("this task defines no checks")
    previous = env.verification or Verification()
    try:
        result = verify.run_checks(
            env.spec, env.workspace, previous, env.step, only=args.get("name"),
            keep_outputs=env.keep_check_outputs,
        )  # fmt: skip
    except verify.UnknownCheckError as exc:
        raise Failed(str(exc)) from exc
    lines = [
        f"{'PASS' if check.passing else 'FAIL'} {name}: "
        + one_line(check.details, CHECK_DETAIL_CHARS)
        for name, check in result.checks.items()
    ]
    passing = sum(check.passing for check in result.checks.values())
    failing = [name for name, check in result.checks.items() if not check.passing]
    summary = f"checks: {passing}/{len(result.checks)} passing"
    if failing:
        summary += f" (failing: {', '.join(failing)})"
    if result.ready_for_completion:
        summary += ", ready for completion"
    return ActionOutcome(
        "success", one_line(summary, SUMMARY_CHARS), output="\n".join(lines), verification=result
    )


def note(args: dict[str, Any], env: ActionEnv) -> ActionOutcome:
    text: str = args["text"].strip()
    return ActionOutcome("success", one_line(f"noted: {text}", NOTE_SUMMARY_CHARS), note=text)
