"""Read-only views of a task for the front ends: working-memory rows and action-log rows.

Both the CLI (`memory list`, `log`) and the workbench show these, so what a row says about an
item or a record is decided once, here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from forgetui.engine import memory as wm
from forgetui.engine.actionlog import AnyRecord
from forgetui.engine.catalog import action_target
from forgetui.engine.errors import ForgeError
from forgetui.engine.records import IntentRecord, OperatorRecord, ResultRecord
from forgetui.engine.state import TaskState
from forgetui.engine.store import TaskFolder
from forgetui.engine.yamlio import dump_yaml


@dataclass(frozen=True)
class MemoryRow:
    """One working-memory item as the operator sees it."""

    ref: str
    type: str
    summary: str
    step: int | None
    tokens: int
    expires_in: int | None
    pinned: bool
    visible: bool  # shown in the next context (not expired)
    content: str

    def to_json(self) -> dict[str, Any]:
        """The `memory list --json` line."""
        return {
            "ref": self.ref,
            "type": self.type,
            "step": self.step,
            "tokens": self.tokens,
            "expires_in": self.expires_in,
            "pinned": self.pinned,
            "visible": self.visible,
        }


def memory_rows(
    folder: TaskFolder,
    state: TaskState | None = None,
    memory: wm.WorkingMemory | None = None,
) -> list[MemoryRow]:
    """Working memory, one row per item, from one read of state and memory (or the ones given)."""
    from forgetui.engine.tokens import counter_for

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
                summary=_memory_summary(item),
                step=item.step,
                tokens=counter.count(text),
                expires_in=item.steps_left(state.next_step),
                pinned=item.pinned,
                visible=id(item) in visible,
                content=_memory_content(item.content),
            )
        )
    return rows


def _memory_content(content: Any) -> str:
    """An item as the operator reads it: text as is; a result's fields as YAML with its tool
    output after them verbatim (line numbers and all), not folded into a YAML block."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict) and isinstance(content.get("output"), str):
        fields = {key: value for key, value in content.items() if key != "output"}
        return f"{dump_yaml(fields).rstrip()}\noutput:\n{content['output']}"
    return dump_yaml(content)


def _memory_summary(item: wm.MemoryItem) -> str:
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
class LogRow:
    """One record of actions.yaml as a row of the action log."""

    index: int
    kind: str  # intent | result | operator
    step: int
    action: str
    target: str
    result: str
    summary: str
    tokens: int | None
    cost: float | None


def log_row(index: int, record: AnyRecord) -> LogRow:
    if isinstance(record, IntentRecord):
        took = f" in {record.model_ms / 1000:.1f}s" if record.model_ms >= 100 else ""
        return LogRow(
            index,
            "intent",
            record.step,
            record.action,
            action_target(record.args),
            "intent",
            f"{record.model or 'model'} answered{took}",
            record.context_tokens,
            record.cost,
        )
    if isinstance(record, ResultRecord):
        return LogRow(
            index,
            "result",
            record.step,
            record.action,
            action_target(record.args),
            record.result,
            record.summary,
            None,
            None,
        )
    assert isinstance(record, OperatorRecord)
    return LogRow(
        index,
        "operator",
        record.step,
        f"operator:{record.op}",
        record.key or "",
        "",
        (record.text or "").replace("\n", " "),
        None,
        None,
    )


def log_rows(folder: TaskFolder, start: int, stop: int) -> list[LogRow]:
    """Rows `start` to `stop` of the log, read by index (never the whole log)."""
    return [log_row(start + i, record) for i, record in enumerate(folder.log.records(start, stop))]


@dataclass(frozen=True)
class RecordDetail:
    """Everything about one log record: the record itself, the model's raw answer for its step
    and the context as sent."""

    row: LogRow
    record_yaml: str
    raw_response: str | None
    context_messages: tuple[tuple[str, str], ...]
    context_note: str | None = None


def record_detail(folder: TaskFolder, index: int) -> RecordDetail:
    """One record in full, with its step's intent (the raw answer) and saved context."""
    log = folder.log
    record = log.record_at(index)
    intent: IntentRecord | None = record if isinstance(record, IntentRecord) else None
    if intent is None and isinstance(record, ResultRecord):
        for back in log.records(max(0, index - 8), index)[::-1]:
            if isinstance(back, IntentRecord) and back.step == record.step:
                intent = back
                break
    messages: tuple[tuple[str, str], ...] = ()
    note = None
    if isinstance(record, OperatorRecord):
        note = "an operator change: no model call, no context"
    else:
        try:
            saved = folder.load_saved_context(record.step)
            messages = tuple((m["role"], m["content"]) for m in saved["messages"])
        except ForgeError as exc:
            note = exc.message
    data = record.model_dump(mode="json", exclude_none=True)
    data.pop("raw_response", None)
    return RecordDetail(
        row=log_row(index, record),
        record_yaml=dump_yaml(data),
        raw_response=intent.raw_response if intent is not None else None,
        context_messages=messages,
        context_note=note,
    )


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
    some (a failing command's), else the failing checks' details, else the last error."""
    for scanned, record in enumerate(folder.log.iter_backwards(kinds=("result",))):
        if scanned >= FAILURE_LOOKBACK:
            break
        if (
            isinstance(record, ResultRecord)
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
