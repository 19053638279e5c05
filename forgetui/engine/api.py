"""The engine's one front door: everything the CLI and the workbench do with a task goes
through here, and the types they need are re-exported from here.

The rule is held by tests/test_import_contract.py: `forgetui/cli.py`, `forgetui/render.py` and
`forgetui/tui/` import `forgetui.engine.api` and no other engine module.

What only running steps needs (the executor, the actions, the model layer) is imported on first
use, so `forgetui status` and the workbench's first paint do not pay for it."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forgetui.engine.base.errors import EXIT_OK, ForgeError, first_error
from forgetui.engine.base.yamlio import atomic_write_text, dump_yaml
from forgetui.engine.base.yamlio import safe_load as load_yaml
from forgetui.engine.context import CompiledContext, compile_context, context_inputs
from forgetui.engine.context.health import ContextHealth, context_health, saved_health
from forgetui.engine.context.inputs import planned_fit
from forgetui.engine.folder.action_log import AnyRecord
from forgetui.engine.folder.catalog import PHASES, actions_of
from forgetui.engine.folder.lock import LockInfo, TaskLock
from forgetui.engine.folder.memory import (
    EditForm,
    Leaving,
    Shape,
    WorkingMemory,
    leaving,
    parse_edit,
)
from forgetui.engine.folder.model_options import ModelOptions
from forgetui.engine.folder.seal import TaskChange, pending_change
from forgetui.engine.folder.task_folder import CheckOutput, TaskFolder
from forgetui.engine.folder.task_spec import Check, Plan, TaskSpec
from forgetui.engine.folder.task_state import (
    FINISHED,
    Escalation,
    TaskState,
    Verification,
    superseded_steps,
)
from forgetui.engine.history.diff import DiffEntry, context_diff, previous_on_branch
from forgetui.engine.history.stats import StepTokens, series_stats, stats_rows, token_series
from forgetui.engine.operator.inbox import InboxEntry, escalation_inbox, find_entry, promote_answer
from forgetui.engine.operator.replies import (
    TAKEOVER_FORMS,
    check_answer,
    modify_answer,
    parse_limits,
)
from forgetui.engine.operator.verbs import (
    accept_task_change,
    add_note,
    answer,
    edit_memory,
    evict,
    memory_edit_form,
    pin,
    set_limits,
)
from forgetui.engine.operator.views import (
    IN_FLIGHT,
    INTERRUPTED,
    LogRow,
    MemoryRow,
    RecordDetail,
    find_log_rows,
    log_row_count,
    log_row_matches,
    log_row_of_step,
    log_rows,
    memory_rows,
    record_detail,
    saved_steps,
)
from forgetui.engine.sandbox import (
    ProjectEnvironment,
    SandboxMode,
    find_environment,
    sandbox_mode,
)
from forgetui.engine.start.runs import (
    DEFAULT_KEEP,
    Pruned,
    RunCopy,
    remove_run,
    run_copies,
    runs_root,
    shown_in_workbench,
    to_prune,
)
from forgetui.engine.start.samples import find_sample, init_sample
from forgetui.engine.step.reports import StepEvent, StepReport, escalation_json, verification_json

if TYPE_CHECKING:
    from forgetui.engine.history.replay_export import ReplayExport, export_replay
    from forgetui.engine.history.rerun import (
        Adoption,
        RecordedAnswer,
        Rerun,
        adopt_rerun,
        recorded_answer,
        rerun_step,
    )
    from forgetui.engine.history.rewind import (
        RewindConflict,
        RewindReport,
        fork_task,
        plan_rewind,
        rewind_task,
    )
    from forgetui.engine.integrity.repair import Repair
    from forgetui.engine.llm import Model
    from forgetui.engine.llm.doctor import DoctorReport, doctor
    from forgetui.engine.llm.doctor_probes import ProbeResult
    from forgetui.engine.llm.factory import model_problem
    from forgetui.engine.step.executor import Executor, StepNotAllowed
    from forgetui.engine.step.runner import RunOutcome, model_for, run, run_steps

_ON_FIRST_USE = {
    "Executor": "forgetui.engine.step.executor",
    "StepNotAllowed": "forgetui.engine.step.executor",
    "DoctorReport": "forgetui.engine.llm.doctor",
    "doctor": "forgetui.engine.llm.doctor",
    "ProbeResult": "forgetui.engine.llm.doctor_probes",
    "Model": "forgetui.engine.llm",
    "model_problem": "forgetui.engine.llm.factory",
    "Repair": "forgetui.engine.integrity.repair",
    "ReplayExport": "forgetui.engine.history.replay_export",
    "export_replay": "forgetui.engine.history.replay_export",
    "Adoption": "forgetui.engine.history.rerun",
    "RecordedAnswer": "forgetui.engine.history.rerun",
    "Rerun": "forgetui.engine.history.rerun",
    "adopt_rerun": "forgetui.engine.history.rerun",
    "recorded_answer": "forgetui.engine.history.rerun",
    "rerun_step": "forgetui.engine.history.rerun",
    "RewindConflict": "forgetui.engine.history.rewind",
    "RewindReport": "forgetui.engine.history.rewind",
    "fork_task": "forgetui.engine.history.rewind",
    "plan_rewind": "forgetui.engine.history.rewind",
    "rewind_task": "forgetui.engine.history.rewind",
    "RunOutcome": "forgetui.engine.step.runner",
    "model_for": "forgetui.engine.step.runner",
    "run": "forgetui.engine.step.runner",
    "run_steps": "forgetui.engine.step.runner",
}


def __getattr__(name: str) -> Any:
    """The names of the stepping side, imported the first time one is asked for."""
    module = _ON_FIRST_USE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "DEFAULT_KEEP",
    "EXIT_OK",
    "FINISHED",
    "INTERRUPTED",
    "IN_FLIGHT",
    "TAKEOVER_FORMS",
    "Adoption",
    "AnyRecord",
    "Check",
    "CheckOutput",
    "CompiledContext",
    "ContextHealth",
    "DiffEntry",
    "DoctorReport",
    "EditForm",
    "Escalation",
    "Executor",
    "ForgeError",
    "InboxEntry",
    "Leaving",
    "LockInfo",
    "LogRow",
    "MemoryRow",
    "Model",
    "ModelOptions",
    "Plan",
    "ProbeResult",
    "ProjectEnvironment",
    "Pruned",
    "RecordDetail",
    "RecordedAnswer",
    "Repair",
    "ReplayExport",
    "Rerun",
    "RewindConflict",
    "RewindReport",
    "RunCopy",
    "RunOutcome",
    "SandboxMode",
    "StepEvent",
    "StepNotAllowed",
    "StepReport",
    "StepTokens",
    "TaskChange",
    "TaskFolder",
    "TaskSpec",
    "TaskState",
    "Verification",
    "WorkingMemory",
    "accept_task_change",
    "add_note",
    "adopt_rerun",
    "answer",
    "atomic_write_text",
    "check_answer",
    "check_output",
    "context_diff",
    "context_health",
    "create_task",
    "doctor",
    "dump_yaml",
    "edit_memory",
    "escalation_inbox",
    "evict",
    "export_replay",
    "find_entry",
    "find_log_rows",
    "find_sample",
    "first_error",
    "fork_task",
    "human_prompt",
    "init_sample",
    "leaving_context",
    "load_yaml",
    "lock_holder",
    "log_count",
    "log_entries",
    "log_row_count",
    "log_row_matches",
    "log_row_of_step",
    "log_rows",
    "memory_edit_form",
    "memory_rows",
    "model_for",
    "model_problem",
    "modify_answer",
    "open_task",
    "parse_limits",
    "parse_memory_edit",
    "phases_of",
    "pin",
    "plan_rewind",
    "preview_context",
    "previous_on_branch",
    "project_environment",
    "promote_answer",
    "record_detail",
    "recorded_answer",
    "remove_run",
    "repair_task",
    "rerun_step",
    "rewind_task",
    "run",
    "run_copies",
    "run_steps",
    "runs_root",
    "sandbox_mode",
    "saved_context",
    "saved_health",
    "saved_steps",
    "set_limits",
    "shown_in_workbench",
    "stats_rows",
    "status",
    "task_change",
    "task_health",
    "task_stats",
    "to_prune",
    "token_series",
    "unlock_task",
]


# --- tasks ------------------------------------------------------------------------------------


def open_task(path: Path | str) -> TaskFolder:
    """A task folder, or a workspace holding exactly one task."""
    return TaskFolder.open(Path(path))


def create_task(
    workspace: Path | str,
    goal: str,
    task_type: str = "generic",
    criteria: Sequence[str] = (),
    check_cmds: Sequence[str] = (),
    task_id: str | None = None,
    *,
    propose_check: bool = True,
    run_checks: bool = True,
    on_notice: Callable[[str], object] | None = None,
) -> TaskFolder:
    """`forgetui new`: a task from a goal, meeting the workspace as it is (new_task.py). Each
    check command becomes a command check; given none (and `propose_check`), the project's own
    test command does; the allow-list comes from the project's files; the checks then run once
    (unless not `run_checks`), as step 0. `on_notice` hears what was chosen and why, and how the
    checks went, one line each. Bad input is a ForgeError naming the flag, nothing written."""
    from forgetui.engine.start.new_task import new_task

    return new_task(
        workspace,
        goal,
        task_type,
        criteria,
        check_cmds,
        task_id,
        propose_check=propose_check,
        run_checks=run_checks,
        on_notice=on_notice,
    )


def repair_task(task: Path | str, apply: bool = False) -> Repair:
    """`forgetui repair`: what would make the task's files agree again; with `apply`, done
    (under the lock, each changed file kept as <name>.bak-<time>, logged)."""
    from forgetui.engine.integrity import repair

    folder = TaskFolder.open(Path(task))
    return repair.apply(folder) if apply else repair.plan(folder)


def unlock_task(task: Path | str) -> str:
    """`forgetui unlock`: remove the task's lock unless a live process on this host holds it
    (LockHeldError); says whose it was."""
    folder = TaskFolder.locate(Path(task))
    gone = TaskLock(folder).unlock()
    if not gone.removed:
        return f"task {folder.name} is not locked"
    info = gone.info
    if info is None:
        return f"removed an unreadable lock file from task {folder.name}"
    who = f"pid {info.pid} ({info.command or 'forgetui'}, since {info.started_at})"
    if not info.is_local:
        return (
            f"removed the lock of {who} on {info.host}; forgetui cannot see processes on "
            f"{info.host}: if that run is still going, it now shares the task with the next writer"
        )
    if info.is_alive():  # its pid was reused: the lock's flock said nobody holds it
        return (
            f"removed the lock of {who}: no process holds it (pid {info.pid} is another "
            "program now)"
        )
    return f"removed the lock of {who}: that process is gone"


def phases_of(task_type: str) -> tuple[str, ...]:
    return PHASES[task_type]


def lock_holder(folder: TaskFolder) -> LockInfo | None:
    """The live process writing this task, if any (this one included)."""
    return folder.lock.holder()


# --- what the next step sends, and what earlier steps sent -----------------------------------


def preview_context(
    folder: TaskFolder,
    model: str | None = None,
    state: TaskState | None = None,
    memory: WorkingMemory | None = None,
    *,
    api_base: str | None = None,
    options: ModelOptions | None = None,
) -> CompiledContext:
    """What the next step will send. Reads only; safe to call at any time. The model's window
    and whether tools go with the request come from `options` (the flags and config the steps
    run with), else the task's model_options; litellm is not imported (planned_fit says how
    `tools: auto` is previewed, and why `api_base` matters)."""
    model = model or folder.spec.model
    fit = planned_fit(model, options or folder.spec.model_options, api_base)
    return compile_context(context_inputs(folder, model, state, memory, fit=fit))


def leaving_context(
    folder: TaskFolder,
    ctx: CompiledContext,
    state: TaskState | None = None,
    memory: WorkingMemory | None = None,
) -> list[Leaving]:
    """What the next step takes out of the context `ctx` previews, and why, in the words its
    diff will use: expiry, the section budget, FIFO at max_items. Reads only."""
    state = state or folder.load_state()
    return leaving(memory or folder.load_memory(), state.next_step, set(ctx.memory_refs))


def parse_memory_edit(text: str, shape: Shape) -> str | dict[str, Any] | list[Any]:
    """An edited item's text as content of `shape`; ForgeError saying why if it cannot be.
    Pure: an editor checks with it before saving."""
    return parse_edit(text, shape)


def saved_context(folder: TaskFolder, step: int) -> dict[str, Any]:
    """The two messages exactly as sent at `step` (artifacts/contexts)."""
    return folder.load_saved_context(step)


# --- status and log ---------------------------------------------------------------------------


def status(folder: TaskFolder) -> dict[str, Any]:
    """The `status --json` object."""
    state = folder.load_state()
    folder.load_memory()  # a broken working_memory.yaml is reported here, not at the next step
    return {
        "task_id": state.task_id,
        "status": state.status,
        "phase": state.phase,
        "step": state.step,
        "verification": verification_json(state.verification),
        "pending_escalation": escalation_json(state.pending_escalation),
        "task_changed": change.to_json() if (change := task_change(folder, state)) else None,
        "sandbox": sandbox_mode().name,
        # the Python commands and checks run with, and why that one
        "environment": project_environment(folder).to_json(),
        # the last prompt as forgetui counted it and as the provider did (None: it reported
        # no count, or no model was called yet)
        "prompt_tokens": {
            "forgetui": state.last_context_tokens,
            "provider": state.last_prompt_tokens or None,
        },
        # the next step's context against its cap and budgets (health.py)
        # the last context sent: compiling the preview needs the tokenizer (0.16 s to load),
        # and status must stay fast; `stats` and the workbench's header show the preview's
        "health": h.to_json() if (h := task_health(folder, state, preview=False)) else None,
    }


def project_environment(folder: TaskFolder) -> ProjectEnvironment:
    """The Python environment the task's commands run with (found on the filesystem, nothing
    run); PythonEnvError, bad input, if task.yaml's python_env is not one."""
    return find_environment(folder.workspace, folder.spec.python_env)


def task_change(folder: TaskFolder, state: TaskState | None = None) -> TaskChange | None:
    """task.yaml's change since the operator accepted it, if any: no step runs until
    `accept_task_change`."""
    return pending_change(folder.path, state or folder.load_state())


HEALTH_LOOKBACK = 50  # steps without a saved context `status` looks past for the last one


def task_health(
    folder: TaskFolder,
    state: TaskState | None = None,
    model: str | None = None,
    *,
    preview: bool = True,
) -> ContextHealth | None:
    """How full the next step's context runs (its preview), or, without `preview`, once the
    task is finished or when the preview cannot be compiled, the last context sent on the
    current branch; None before any."""
    state = state or folder.load_state()
    if preview and not state.finished:
        try:
            return context_health(preview_context(folder, model, state))
        except ForgeError:
            pass  # a memory item that no longer reads: the last context sent still tells
    superseded = superseded_steps(state.rewinds)
    step, looked = state.step, 0
    while step > 0 and (step in superseded or not folder.context_path(step).is_file()):
        step -= 1  # a step that escalated before its call sent nothing; a branch left behind
        looked += 0 if step in superseded else 1
        if looked > HEALTH_LOOKBACK:  # status stays fast on a log with no contexts
            return None
    if step == 0:
        return None
    limits = folder.spec.limits
    return saved_health(folder.load_saved_context(step), limits.budgets(), limits.max_tokens)


def task_stats(folder: TaskFolder) -> dict[str, Any]:
    """The `stats --json` object: per step, the tokens sent beside those a run keeping the
    whole conversation would have sent (stats.py says how each is counted), and the health."""
    state = folder.load_state()
    return series_stats(folder, state, task_health(folder, state))


def log_entries(folder: TaskFolder, tail: int | None = None) -> Iterator[dict[str, Any]]:
    """The `log --json` lines: intent and result of each step merged, operator records. The
    steps of a branch an in-place rewind left behind say `"superseded": true` (from state.yaml;
    a state.yaml that does not read leaves the log readable, without the marks)."""
    try:
        superseded = superseded_steps(folder.load_state().rewinds)
    except ForgeError:
        superseded = set()
    return (
        {**entry, "superseded": True}
        if "action" in entry and entry["step"] in superseded
        else entry
        for entry in folder.log.merged(tail=tail)
    )


def check_output(folder: TaskFolder, name: str) -> CheckOutput | None:
    """A check's full output at its last run (state.yaml keeps a summary line); None if it
    has not run since outputs were kept."""
    return folder.load_check_output(name)


def log_count(folder: TaskFolder) -> int:
    """Records in the log now, reading only what was appended since the last call."""
    return folder.log.refresh()


# --- the operator -----------------------------------------------------------------------------


def human_prompt(phase: str) -> str:
    """What the operator is shown when they type the next action themselves."""
    from forgetui.engine.llm import HumanModel

    return HumanModel.prompt(actions_of(phase))
