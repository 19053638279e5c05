"""The engine's one front door: everything the CLI and the workbench do with a task goes
through here, and the types they render are re-exported from here.

An open task's writer is one object, `TaskService`: the operator's verbs (step, answer,
memory changes, limits, rewind, re-run, export...) and its reports. The workbench's engine
child forwards calls to it by name, so its public methods are the workbench's protocol. Beside
it: finding and creating tasks, the read models the views draw, and the types they render.
Locks, file writing and the executor stay inside the engine.

The rule is held by tests/test_import_contract.py: `forgetui/cli/` and `forgetui/tui/` import
`forgetui.engine.api` and no other engine module.

What only running steps needs (the executor, the actions, the model layer), the context
compiler and the history's readers are imported on first use, so `forgetui status` and the
workbench's first paint do not pay for them."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from forgetui.engine.api.files import save_text, save_yaml, yaml_text
from forgetui.engine.api.reads import (
    check_output,
    leaving_context,
    log_count,
    log_entries,
    parse_memory_edit,
    preview_context,
    project_environment,
    saved_context,
    task_change,
)
from forgetui.engine.api.service import TaskService
from forgetui.engine.api.tasks import (
    TaskList,
    create_task,
    human_prompt,
    lock_holder,
    open_task,
    phases_of,
    repair_task,
    tasks_at,
    unlock_task,
)
from forgetui.engine.base.errors import EXIT_OK, ForgeError, first_error
from forgetui.engine.base.text_diff import TextDiff, more_lines
from forgetui.engine.base.yamlio import safe_load as load_yaml
from forgetui.engine.context.health import ContextHealth, context_health
from forgetui.engine.folder.memory import EditForm, Leaving, WorkingMemory
from forgetui.engine.folder.model_options import ModelOptions
from forgetui.engine.folder.seal import TaskChange
from forgetui.engine.folder.task_folder import CheckOutput, TaskFolder
from forgetui.engine.folder.task_spec import Check, Plan
from forgetui.engine.folder.task_state import FINISHED, Escalation, TaskState
from forgetui.engine.operator.file_diff import FileDiff
from forgetui.engine.operator.inbox import InboxEntry, escalation_inbox, find_entry
from forgetui.engine.operator.replies import (
    TAKEOVER_FORMS,
    check_answer,
    modify_answer,
    parse_limits,
)
from forgetui.engine.operator.verbs import (
    add_note,
    edit_memory,
    evict,
    memory_edit_form,
    memory_frozen,
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
from forgetui.engine.sandbox import ProjectEnvironment, SandboxMode, sandbox_mode
from forgetui.engine.start.overview import TaskOverview
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
from forgetui.engine.step.reports import StepEvent, StepReport

if TYPE_CHECKING:
    # the compiler and the history's readers load on first use: `status` needs none of them
    from forgetui.engine.context import CompiledContext
    from forgetui.engine.history.diff import DiffEntry, context_diff, previous_on_branch
    from forgetui.engine.history.replay_export import ReplayExport
    from forgetui.engine.history.rerun import Adoption, RecordedAnswer, Rerun, recorded_answer
    from forgetui.engine.history.rewind import (
        RewindConflict,
        RewindReport,
        fork_task,
        rewind_task,
    )
    from forgetui.engine.history.section_diff import SectionDiff, section_diff
    from forgetui.engine.history.stats import StepTokens, stats_rows, token_series
    from forgetui.engine.llm.doctor import DoctorReport, doctor
    from forgetui.engine.llm.doctor_probes import ProbeResult
    from forgetui.engine.llm.factory import model_problem
    from forgetui.engine.step.runner import run

_ON_FIRST_USE = {
    "CompiledContext": "forgetui.engine.context",
    "DiffEntry": "forgetui.engine.history.diff",
    "context_diff": "forgetui.engine.history.diff",
    "previous_on_branch": "forgetui.engine.history.diff",
    "SectionDiff": "forgetui.engine.history.section_diff",
    "section_diff": "forgetui.engine.history.section_diff",
    "StepTokens": "forgetui.engine.history.stats",
    "stats_rows": "forgetui.engine.history.stats",
    "token_series": "forgetui.engine.history.stats",
    "DoctorReport": "forgetui.engine.llm.doctor",
    "doctor": "forgetui.engine.llm.doctor",
    "ProbeResult": "forgetui.engine.llm.doctor_probes",
    "model_problem": "forgetui.engine.llm.factory",
    "ReplayExport": "forgetui.engine.history.replay_export",
    "Adoption": "forgetui.engine.history.rerun",
    "RecordedAnswer": "forgetui.engine.history.rerun",
    "Rerun": "forgetui.engine.history.rerun",
    "recorded_answer": "forgetui.engine.history.rerun",
    "RewindConflict": "forgetui.engine.history.rewind",
    "RewindReport": "forgetui.engine.history.rewind",
    "fork_task": "forgetui.engine.history.rewind",
    "rewind_task": "forgetui.engine.history.rewind",
    "run": "forgetui.engine.step.runner",
}


def __getattr__(name: str) -> Any:
    """The names of the stepping side, the compiler and the history's readers, imported the
    first time one is asked for."""
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
    "Check",
    "CheckOutput",
    "CompiledContext",
    "ContextHealth",
    "DiffEntry",
    "DoctorReport",
    "EditForm",
    "Escalation",
    "FileDiff",
    "ForgeError",
    "InboxEntry",
    "Leaving",
    "LogRow",
    "MemoryRow",
    "ModelOptions",
    "Plan",
    "ProbeResult",
    "ProjectEnvironment",
    "Pruned",
    "RecordDetail",
    "RecordedAnswer",
    "ReplayExport",
    "Rerun",
    "RewindConflict",
    "RewindReport",
    "RunCopy",
    "SandboxMode",
    "SectionDiff",
    "StepEvent",
    "StepReport",
    "StepTokens",
    "TaskChange",
    "TaskFolder",
    "TaskList",
    "TaskOverview",
    "TaskService",
    "TaskState",
    "TextDiff",
    "WorkingMemory",
    "add_note",
    "check_answer",
    "check_output",
    "context_diff",
    "context_health",
    "create_task",
    "doctor",
    "edit_memory",
    "escalation_inbox",
    "evict",
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
    "memory_frozen",
    "memory_rows",
    "model_problem",
    "modify_answer",
    "more_lines",
    "open_task",
    "parse_limits",
    "parse_memory_edit",
    "phases_of",
    "pin",
    "preview_context",
    "previous_on_branch",
    "project_environment",
    "record_detail",
    "recorded_answer",
    "remove_run",
    "repair_task",
    "rewind_task",
    "run",
    "run_copies",
    "runs_root",
    "sandbox_mode",
    "save_text",
    "save_yaml",
    "saved_context",
    "saved_steps",
    "section_diff",
    "set_limits",
    "shown_in_workbench",
    "stats_rows",
    "task_change",
    "tasks_at",
    "to_prune",
    "token_series",
    "unlock_task",
    "yaml_text",
]
