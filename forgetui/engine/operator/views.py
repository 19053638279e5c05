"""Read-only views of a task for the front ends: working-memory rows, one log record in full,
the saved contexts; the action log's rows are log_rows.py, their names importable from here.

Both the CLI (`memory list`, `log`) and the workbench show these, so what a row says about an
item or a record is decided once, here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from forgetui.engine.base.errors import ForgeError
from forgetui.engine.base.yamlio import dump_yaml
from forgetui.engine.folder import memory as wm
from forgetui.engine.folder.action_log import AnyRecord
from forgetui.engine.folder.catalog import action_target
from forgetui.engine.folder.records import IntentRecord, OperatorRecord, ResultRecord
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.folder.task_state import TaskState, superseded_steps
from forgetui.engine.operator.file_diff import FileDiff, record_file_diffs
from forgetui.engine.operator.log_rows import (
    IN_FLIGHT,
    INTERRUPTED,
    LogRow,
    find_log_rows,
    log_row_count,
    log_row_matches,
    log_row_of_step,
    log_rows,
    record_row,
    rewind_mark,
)
from forgetui.engine.operator.memory_row import MemoryRow


def memory_rows(
    folder: TaskFolder,
    state: TaskState | None = None,
    memory: wm.WorkingMemory | None = None,
) -> list[MemoryRow]:
    """Working memory, one row per item, from one read of state and memory (or the ones given).
    A finished task has no next context for an item to leave: none says it will (`expires_in`
    None; an item that expired already stays 0)."""
    from forgetui.engine.base.tokens import counter_for

    state = state or folder.load_state()
    memory = memory or folder.load_memory()
    counter = counter_for(folder.spec.model)
    visible = {id(item) for item in wm.visible_items(memory, state.next_step)}
    rows = []
    for item in memory.items:
        text = item.content if isinstance(item.content, str) else dump_yaml(item.content)
        rows.append(
            MemoryRow(
                ref=item.ref,
                type=item.type,
                summary=memory_summary(item),
                step=item.step,
                tokens=counter.count(text),
                expires_in=_expires_in(item, state),
                pinned=item.pinned,
                visible=id(item) in visible,
                content=_memory_content(item.content),
            )
        )
    return rows


def _expires_in(item: wm.MemoryItem, state: TaskState) -> int | None:
    left = item.steps_left(state.next_step)
    return None if state.finished and left else left


def _memory_content(content: Any) -> str:
    """An item as the operator reads it: text as is; a result's fields as YAML with its tool
    output after them verbatim (line numbers and all), not folded into a YAML block."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict) and isinstance(content.get("output"), str):
        fields = {key: value for key, value in content.items() if key != "output"}
        return f"{dump_yaml(fields).rstrip()}\noutput:\n{content['output']}"
    return dump_yaml(content)


def memory_summary(item: wm.MemoryItem) -> str:
    """A loaded item by its key; a note or a decision by its text; a result by what it did."""
    content = item.content
    if item.key and item.type not in ("note", "decision"):
        return item.key
    if isinstance(content, dict):
        action, result = content.get("action"), content.get("result")
        summary = content.get("summary", "")
        head = str(action or result or "")
        if action and result and result != "success":
            head = f"{action} {result}"
        return f"{head}: {summary}" if summary else head
    text = content if isinstance(content, str) else dump_yaml(content)
    return text.strip().splitlines()[0] if text.strip() else ""


@dataclass(frozen=True)
class RecordDetail:
    """Everything about one log record: the record itself, the model's raw answer for its step
    and the context as sent."""

    row: LogRow
    record_yaml: str
    raw_response: str | None
    context_messages: tuple[tuple[str, str], ...]
    context_note: str | None = None
    # what the context left out and why, what its sections gave up: one line each
    context_left: tuple[str, ...] = ()
    context_squeezed: tuple[str, ...] = ()
    file_diffs: tuple[FileDiff, ...] = ()  # a write_file or edit_file result: what it changed


def record_detail(folder: TaskFolder, index: int) -> RecordDetail:
    """One record in full, with its step's intent (the raw answer) and saved context. A result
    shows its intent's fields after its own: a log row is the two merged."""
    log = folder.log
    record = log.record_at(index)
    intent: IntentRecord | None = record if isinstance(record, IntentRecord) else None
    intent_at = index
    if intent is None and isinstance(record, ResultRecord):
        start = max(0, index - 8)
        for offset, back in reversed(list(enumerate(log.records(start, index)))):
            if isinstance(back, IntentRecord) and back.step == record.step:
                intent, intent_at = back, start + offset
                break
    messages: tuple[tuple[str, str], ...] = ()
    note = None
    left: tuple[str, ...] = ()
    squeezed: tuple[str, ...] = ()
    if isinstance(record, OperatorRecord):
        note = "an operator change: no model call, no context"
    else:
        try:
            saved = folder.load_saved_context(record.step)
            messages = tuple((m["role"], m["content"]) for m in saved["messages"])
            left = tuple(e.describe() for e in wm.saved_exclusions(saved) or ())
            compressions = saved.get("compressions") or {}
            squeezed = tuple(f"{name}: {'; '.join(notes)}" for name, notes in compressions.items())
        except ForgeError as exc:
            note = exc.message
    record_yaml = _record_yaml(record)
    if intent is not None and intent is not record:
        record_yaml += f"\n# its intent, record {intent_at + 1}\n{_record_yaml(intent)}"
    return RecordDetail(
        row=record_row(index, record),
        record_yaml=record_yaml,
        raw_response=intent.raw_response if intent is not None else None,
        context_messages=messages,
        context_note=note,
        context_left=left,
        context_squeezed=squeezed,
        file_diffs=record_file_diffs(folder, record),
    )


def _record_yaml(record: AnyRecord) -> str:
    """A record's fields as YAML; the raw answer has a tab of its own."""
    data = record.model_dump(mode="json", exclude_none=True)
    data.pop("raw_response", None)
    return dump_yaml(data)


def saved_steps(folder: TaskFolder) -> list[int]:
    """Steps whose context was saved, oldest first (a directory listing, no parsing)."""
    if not folder.contexts_dir.is_dir():
        return []
    steps = []
    for path in folder.contexts_dir.glob("step-*.yaml"):
        number = path.stem.removeprefix("step-")
        if number.isdigit():
            steps.append(int(number))
    return sorted(steps)


FAILURE_LOOKBACK = 50  # results searched back for the last failure with output


def last_failure(folder: TaskFolder, state: TaskState) -> str | None:
    """What load_context(error_details) loads: the output of the last step that failed with
    some (a failing command's), else the failing checks' details, else the last error. A step
    a rewind superseded is not the agent's to see."""
    superseded = superseded_steps(state.rewinds)
    for scanned, record in enumerate(folder.log.iter_backwards(kinds=("result",))):
        if scanned >= FAILURE_LOOKBACK:
            break
        if (
            isinstance(record, ResultRecord)
            and record.step not in superseded
            and record.result in ("failure", "error")
            and record.output
        ):
            head = f"step {record.step}: {record.action} {action_target(record.args)}"
            return f"{head} -> {record.error}\n{record.output}"
    failing = [
        f"check {name} failing: {check.details}"
        for name, check in state.verification.checks.items()
        if not check.passing and check.details
    ]
    if failing:
        return "\n".join(failing)
    return state.probe.last_errors[-1] if state.probe.last_errors else None


__all__ = [
    "INTERRUPTED",
    "IN_FLIGHT",
    "LogRow",
    "MemoryRow",
    "RecordDetail",
    "find_log_rows",
    "last_failure",
    "log_row_count",
    "log_row_matches",
    "log_row_of_step",
    "log_rows",
    "memory_rows",
    "memory_summary",
    "record_detail",
    "rewind_mark",
    "saved_steps",
]
