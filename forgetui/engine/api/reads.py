"""What a front end reads about a task: the next step's context and what earlier steps sent,
status, health, stats and the log. Reads only; safe to call while another process writes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from forgetui.engine.base.errors import ForgeError
from forgetui.engine.context.health import ContextHealth, context_health, saved_health
from forgetui.engine.folder.lock_file import LockInfo
from forgetui.engine.folder.memory import Leaving, Shape, WorkingMemory, leaving, parse_edit
from forgetui.engine.folder.model_options import ModelOptions
from forgetui.engine.folder.seal import TaskChange, pending_change
from forgetui.engine.folder.task_folder import CheckOutput, TaskFolder
from forgetui.engine.folder.task_state import TaskState, superseded_steps
from forgetui.engine.sandbox import ProjectEnvironment, find_environment, sandbox_mode
from forgetui.engine.step.reports import escalation_json, verification_json

if TYPE_CHECKING:
    from forgetui.engine.context import CompiledContext

# The compiler (and the model layer and actions it brings) and the stats load where they are
# used: `status` needs neither, and must start fast.

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
    from forgetui.engine.context import compile_context, context_inputs
    from forgetui.engine.context.inputs import planned_fit

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


HELD_STATUSES = ("ready", "paused", "running")  # what a process holding the task makes "running"


def status(folder: TaskFolder) -> dict[str, Any]:
    """The `status --json` object. state.yaml says "ready" or "paused" until a run saves its
    first step; the lock says whether a process holds the task now (asked, never taken), so a
    held task that is not finished or escalated reads "running", with who holds it."""
    state = folder.load_state()
    folder.load_memory()  # a broken working_memory.yaml is reported here, not at the next step
    holder = folder.lock.holder()
    running = holder is not None and state.status in HELD_STATUSES
    return {
        "task_id": state.task_id,
        "status": "running" if running else state.status,
        "saved_status": state.status,  # what state.yaml says
        "in_use_by": _holder_json(holder),
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


def _holder_json(holder: LockInfo | None) -> dict[str, Any] | None:
    """Who holds the task, as `runs --json`'s `in_use_by` says it, and since when."""
    if holder is None:
        return None
    return {
        **holder.who(),
        "since": holder.started_at,
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
    from forgetui.engine.history.stats import series_stats

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
