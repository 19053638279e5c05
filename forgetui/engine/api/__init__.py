"""The engine's one front door: everything the CLI and the workbench do with a task goes
through here, and the types they render are re-exported from here.

An open task's writer is one object, `TaskService`: the operator's verbs (step, answer,
memory changes, limits, rewind, re-run, export...) and its reports. The workbench's engine
child forwards calls to it by name, so its public methods are the workbench's protocol. Beside
it: finding and creating tasks, the read models the views draw, and the types they render.
Locks, file writing and the executor stay inside the engine.

The rule is held by tests/test_import_contract.py: `forgetui/cli/` and `forgetui/tui/` import
`forgetui.engine.api` and no other engine module.

Every name is imported the first time it is asked for (`from forgetui.engine.api import X`
asks): importing the door costs nothing, and a command or the workbench's first paint loads
only the engine modules holding the names it uses, not the compiler, the executor or the
pydantic models of what it never touches. `_WHERE` says where each name lives; the imports
under TYPE_CHECKING say the same to the type checker."""

from __future__ import annotations

from typing import TYPE_CHECKING

from forgetui.engine.base.lazy_names import lazy_getattr

if TYPE_CHECKING:
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
    from forgetui.engine.base.one_line import printable
    from forgetui.engine.base.text_diff import TextDiff, more_lines
    from forgetui.engine.base.yamlio import FAST_LOADER as YAML_LOADER
    from forgetui.engine.base.yamlio import safe_load as load_yaml
    from forgetui.engine.context import CompiledContext
    from forgetui.engine.context.health import ContextHealth, context_health
    from forgetui.engine.folder.memory import EditForm, Leaving, WorkingMemory
    from forgetui.engine.folder.model_options import ModelOptions
    from forgetui.engine.folder.seal import TaskChange
    from forgetui.engine.folder.task_folder import CheckOutput, TaskFolder
    from forgetui.engine.folder.task_spec import Check, Plan
    from forgetui.engine.folder.task_state import FINISHED, Escalation, TaskState
    from forgetui.engine.history.diff import DiffEntry, context_diff, previous_on_branch
    from forgetui.engine.history.replay_export import ReplayExport
    from forgetui.engine.history.rerun import Adoption, RecordedAnswer, Rerun, recorded_answer
    from forgetui.engine.history.rewind import RewindConflict, RewindReport, fork_task, rewind_task
    from forgetui.engine.history.section_diff import SectionDiff, section_diff
    from forgetui.engine.history.stats import stats_rows, token_series
    from forgetui.engine.history.step_tokens import StepTokens
    from forgetui.engine.llm.doctor import DoctorReport, doctor
    from forgetui.engine.llm.doctor_probes import ProbeResult
    from forgetui.engine.llm.factory import model_problem
    from forgetui.engine.llm.server_findings import (
        Findings,
        remember,
        server_findings,
        server_options,
        server_tag,
    )
    from forgetui.engine.operator.file_diff import FileDiff
    from forgetui.engine.operator.inbox import InboxEntry, escalation_inbox, find_entry
    from forgetui.engine.operator.log_row import IN_FLIGHT, INTERRUPTED, LogRow
    from forgetui.engine.operator.log_rows import (
        find_log_rows,
        log_row_count,
        log_row_matches,
        log_row_of_step,
        log_rows,
    )
    from forgetui.engine.operator.memory_row import MemoryRow
    from forgetui.engine.operator.project_memory import (
        PROJECT_KINDS,
        ProjectRow,
        ProjectView,
        add_project_entry,
        edit_project_entry,
        project_rows,
        project_view,
        project_workspace,
        promote_answer_to_project,
        promote_to_project,
        remove_project_entry,
    )
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
    from forgetui.engine.operator.views import RecordDetail, memory_rows, record_detail, saved_steps
    from forgetui.engine.sandbox import ProjectEnvironment, SandboxMode, sandbox_mode, start_probe
    from forgetui.engine.sandbox.editable import environment_warnings, workspace_environment
    from forgetui.engine.start.overview import TaskOverview
    from forgetui.engine.start.runs import (
        DEFAULT_KEEP,
        Pruned,
        RunCopy,
        remove_run,
        run_copies,
        run_dir_of,
        runs_root,
        shown_in_workbench,
        to_prune,
    )
    from forgetui.engine.start.sample_dirs import find_sample, opens_a_sample
    from forgetui.engine.start.samples import init_sample
    from forgetui.engine.step.reports import StepEvent, StepReport
    from forgetui.engine.step.runner import run

# module -> the names it gives the door
_WHERE: dict[str, tuple[str, ...]] = {
    "forgetui.engine.api.files": ("save_text", "save_yaml", "yaml_text"),
    "forgetui.engine.api.reads": (
        "check_output", "leaving_context", "log_count", "log_entries", "parse_memory_edit",
        "preview_context", "project_environment", "saved_context", "task_change",
    ),
    "forgetui.engine.api.service": ("TaskService",),
    "forgetui.engine.api.tasks": (
        "TaskList", "create_task", "human_prompt", "lock_holder", "open_task", "phases_of",
        "repair_task", "tasks_at", "unlock_task",
    ),
    "forgetui.engine.base.errors": ("EXIT_OK", "ForgeError", "first_error"),
    "forgetui.engine.base.one_line": ("printable",),
    "forgetui.engine.base.text_diff": ("TextDiff", "more_lines"),
    "forgetui.engine.base.yamlio": ("YAML_LOADER", "load_yaml"),
    "forgetui.engine.context": ("CompiledContext",),
    "forgetui.engine.context.health": ("ContextHealth", "context_health"),
    "forgetui.engine.folder.memory": ("EditForm", "Leaving", "WorkingMemory"),
    "forgetui.engine.folder.model_options": ("ModelOptions",),
    "forgetui.engine.folder.seal": ("TaskChange",),
    "forgetui.engine.folder.task_folder": ("CheckOutput", "TaskFolder"),
    "forgetui.engine.folder.task_spec": ("Check", "Plan"),
    "forgetui.engine.folder.statuses": ("FINISHED",),
    "forgetui.engine.folder.task_state": ("Escalation", "TaskState"),
    "forgetui.engine.history.diff": ("DiffEntry", "context_diff", "previous_on_branch"),
    "forgetui.engine.history.replay_export": ("ReplayExport",),
    "forgetui.engine.history.rerun": ("Adoption", "RecordedAnswer", "Rerun", "recorded_answer"),
    "forgetui.engine.history.rewind": (
        "RewindConflict", "RewindReport", "fork_task", "rewind_task",
    ),
    "forgetui.engine.history.section_diff": ("SectionDiff", "section_diff"),
    "forgetui.engine.history.stats": ("stats_rows", "token_series"),
    "forgetui.engine.history.step_tokens": ("StepTokens",),
    "forgetui.engine.llm.doctor": ("DoctorReport", "doctor"),
    "forgetui.engine.llm.doctor_probes": ("ProbeResult",),
    "forgetui.engine.llm.factory": ("model_problem",),
    "forgetui.engine.llm.server_findings": (
        "Findings", "remember", "server_findings", "server_options", "server_tag",
    ),
    "forgetui.engine.operator.file_diff": ("FileDiff",),
    "forgetui.engine.operator.inbox": ("InboxEntry", "escalation_inbox", "find_entry"),
    "forgetui.engine.operator.project_memory": (
        "PROJECT_KINDS", "ProjectRow", "ProjectView", "add_project_entry", "edit_project_entry",
        "project_rows", "project_view", "project_workspace", "promote_answer_to_project",
        "promote_to_project", "remove_project_entry",
    ),
    "forgetui.engine.operator.replies": (
        "TAKEOVER_FORMS", "check_answer", "modify_answer", "parse_limits",
    ),
    "forgetui.engine.operator.verbs": (
        "add_note", "edit_memory", "evict", "memory_edit_form", "memory_frozen", "pin",
        "set_limits",
    ),
    # the values a snapshot holds, apart from their readers: unpickled without the file models
    "forgetui.engine.operator.log_row": ("INTERRUPTED", "IN_FLIGHT", "LogRow"),
    "forgetui.engine.operator.memory_row": ("MemoryRow",),
    # where log rows are made, not views.py: the first view's rows come without the rest
    "forgetui.engine.operator.log_rows": (
        "find_log_rows", "log_row_count", "log_row_matches", "log_row_of_step", "log_rows",
    ),
    "forgetui.engine.operator.views": (
        "RecordDetail", "memory_rows", "record_detail", "saved_steps",
    ),
    "forgetui.engine.sandbox": (
        "ProjectEnvironment", "SandboxMode", "sandbox_mode", "start_probe",
    ),
    "forgetui.engine.sandbox.editable": ("environment_warnings", "workspace_environment"),
    "forgetui.engine.start.overview": ("TaskOverview",),
    "forgetui.engine.start.runs": (
        "DEFAULT_KEEP", "Pruned", "RunCopy", "remove_run", "run_copies", "run_dir_of",
        "runs_root", "shown_in_workbench", "to_prune",
    ),
    "forgetui.engine.start.sample_dirs": ("find_sample", "opens_a_sample"),
    "forgetui.engine.start.samples": ("init_sample",),
    "forgetui.engine.step.reports": ("StepEvent", "StepReport"),
    "forgetui.engine.step.runner": ("run",),
}  # fmt: skip
_RENAMED = {"YAML_LOADER": "FAST_LOADER", "load_yaml": "safe_load"}  # door name -> module's
_MODULE_OF = {name: module for module, names in _WHERE.items() for name in names}


# a name of the door, imported from its module the first time it is asked for
__getattr__ = lazy_getattr(globals(), _MODULE_OF, _RENAMED)


__all__ = [
    "DEFAULT_KEEP",
    "EXIT_OK",
    "FINISHED",
    "INTERRUPTED",
    "IN_FLIGHT",
    "PROJECT_KINDS",
    "TAKEOVER_FORMS",
    "YAML_LOADER",
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
    "Findings",
    "ForgeError",
    "InboxEntry",
    "Leaving",
    "LogRow",
    "MemoryRow",
    "ModelOptions",
    "Plan",
    "ProbeResult",
    "ProjectEnvironment",
    "ProjectRow",
    "ProjectView",
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
    "add_project_entry",
    "check_answer",
    "check_output",
    "context_diff",
    "context_health",
    "create_task",
    "doctor",
    "edit_memory",
    "edit_project_entry",
    "environment_warnings",
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
    "opens_a_sample",
    "parse_limits",
    "parse_memory_edit",
    "phases_of",
    "pin",
    "preview_context",
    "previous_on_branch",
    "printable",
    "project_environment",
    "project_rows",
    "project_view",
    "project_workspace",
    "promote_answer_to_project",
    "promote_to_project",
    "record_detail",
    "recorded_answer",
    "remember",
    "remove_project_entry",
    "remove_run",
    "repair_task",
    "rewind_task",
    "run",
    "run_copies",
    "run_dir_of",
    "runs_root",
    "sandbox_mode",
    "save_text",
    "save_yaml",
    "saved_context",
    "saved_steps",
    "section_diff",
    "server_findings",
    "server_options",
    "server_tag",
    "set_limits",
    "shown_in_workbench",
    "start_probe",
    "stats_rows",
    "task_change",
    "tasks_at",
    "to_prune",
    "token_series",
    "unlock_task",
    "workspace_environment",
    "yaml_text",
]
