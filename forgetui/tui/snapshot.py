"""What the panes show, as immutable views built off the UI thread from the engine API.

`TaskReader` owns a read-only TaskFolder of its own (the executor has another), so reading never
needs the task lock and never races the writer's log index. Widgets receive these views in
messages; they never read a file themselves. Nothing here parses the whole action log: the log
is read by index windows (ActionLog.records) and by its tail."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from forgetui.engine.actionlog import AnyRecord
from forgetui.engine.catalog import PHASES
from forgetui.engine.errors import ForgeError
from forgetui.engine.records import IntentRecord, OperatorRecord, ResultRecord
from forgetui.engine.store import TaskFolder
from forgetui.engine.yamlio import dump_yaml

if TYPE_CHECKING:
    from forgetui.engine.diff import DiffEntry
    from forgetui.engine.state import Escalation
    from forgetui.engine.task import Plan

Level = Literal["ok", "warn", "over"]
WARN_AT = 0.85  # a meter turns to the warning colour at 85% of its budget
TAIL_ROWS = 64  # log rows sent with every snapshot: the pane's usual window
FINISHED = ("complete", "failed", "aborted")
_TARGET_ARGS = ("path", "item", "cmd", "name", "pattern", "question", "summary", "text")


def meter_level(tokens: int, budget: int) -> Level:
    if budget <= 0 or tokens > budget:
        return "over" if tokens > budget else "ok"
    return "warn" if tokens >= WARN_AT * budget else "ok"


@dataclass(frozen=True)
class SectionView:
    name: str
    budget: int
    tokens: int
    text: str
    compressions: tuple[str, ...] = ()

    @property
    def level(self) -> Level:
        return meter_level(self.tokens, self.budget)


@dataclass(frozen=True)
class ContextView:
    """A compiled context: the next step's preview, or (saved) the one sent at `step`."""

    step: int
    saved: bool
    sections: tuple[SectionView, ...]
    total_tokens: int
    max_tokens: int
    messages: tuple[tuple[str, str], ...]
    over_budget: tuple[str, ...] = ()
    diff: tuple[DiffEntry, ...] = ()
    diff_error: str | None = None

    @property
    def title(self) -> str:
        return f"as sent at step {self.step}" if self.saved else "next step preview"

    @property
    def level(self) -> Level:
        return meter_level(self.total_tokens, self.max_tokens)


@dataclass(frozen=True)
class CriterionView:
    text: str
    passing: bool | None  # None: no check names this criterion


@dataclass(frozen=True)
class CheckView:
    name: str
    passing: bool | None  # None: not run yet
    details: str
    changed_at_step: int | None
    criterion: str | None = None


@dataclass(frozen=True)
class MemoryRow:
    ref: str
    type: str
    summary: str
    step: int | None
    tokens: int
    expires_in: int | None
    pinned: bool
    visible: bool
    content: str


@dataclass(frozen=True)
class LogRow:
    """One record of actions.yaml as a row of the action log pane."""

    index: int
    kind: str  # intent | result | operator
    step: int
    action: str
    target: str
    result: str
    summary: str
    tokens: int | None
    cost: float | None


@dataclass(frozen=True)
class RecordDetail:
    """Everything about one log record: the record itself, the model's raw answer for its step
    and the context as sent."""

    row: LogRow
    record_yaml: str
    raw_response: str | None
    context_messages: tuple[tuple[str, str], ...]
    context_note: str | None = None


@dataclass(frozen=True)
class LockHolder:
    pid: int
    command: str


@dataclass(frozen=True)
class TaskSnapshot:
    task_id: str
    task_type: str
    goal: str
    phase: str
    phases: tuple[str, ...]
    status: str
    step: int
    criteria: tuple[CriterionView, ...]
    constraints: tuple[str, ...]
    plan: Plan | None
    checks: tuple[CheckView, ...]
    ready: bool
    memory: tuple[MemoryRow, ...]
    context: ContextView | None
    context_error: str | None
    log_count: int
    tail_rows: tuple[LogRow, ...]
    cost: float
    escalation: Escalation | None
    holder: LockHolder | None  # another process writing this task: we are read-only
    approval: str = "auto"
    recent: tuple[LogRow, ...] = field(default_factory=tuple)

    @property
    def next_step(self) -> int:
        return self.step + 1

    @property
    def finished(self) -> bool:
        return self.status in FINISHED

    @property
    def read_only(self) -> bool:
        return self.holder is not None


def _target(args: dict[str, Any]) -> str:
    for key in _TARGET_ARGS:
        value = args.get(key)
        if value:
            text = " ".join(map(str, value)) if isinstance(value, list) else str(value)
            return text.splitlines()[0] if text.strip() else ""
    return ""


def log_row(index: int, record: AnyRecord) -> LogRow:
    if isinstance(record, IntentRecord):
        return LogRow(
            index,
            "intent",
            record.step,
            record.action,
            _target(record.args),
            "intent",
            f"{record.model or 'model'} answered"
            + (f" in {record.model_ms / 1000:.1f}s" if record.model_ms >= 100 else ""),
            record.context_tokens,
            record.cost,
        )
    if isinstance(record, ResultRecord):
        return LogRow(
            index,
            "result",
            record.step,
            record.action,
            _target(record.args),
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


def _all_passing(results: list[bool | None]) -> bool | None:
    """A criterion passes when every check proving it passes; unknown until all have run."""
    if not results or any(result is None for result in results):
        return None
    return all(results)


def _memory_content(content: Any) -> str:
    """An item as the operator reads it: text as is; a result's fields as YAML with its tool
    output after them verbatim (line numbers and all), not folded into a YAML block."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict) and isinstance(content.get("output"), str):
        fields = {key: value for key, value in content.items() if key != "output"}
        return f"{dump_yaml(fields).rstrip()}\noutput:\n{content['output']}"
    return dump_yaml(content)


def _memory_summary(item_type: str, key: str | None, content: Any) -> str:
    """A loaded item by its key; a note or a decision by its text; a result by what it did."""
    if key and item_type not in ("note", "decision"):
        return key
    if isinstance(content, dict):
        action, result = content.get("action"), content.get("result")
        summary = content.get("summary", "")
        head = str(action or result or "")
        if action and result and result != "success":
            head = f"{action} {result}"
        return f"{head}: {summary}" if summary else head
    text = content if isinstance(content, str) else dump_yaml(content)
    first = text.strip().splitlines()[0] if text.strip() else ""
    return first


class TaskReader:
    """Builds views of one task folder. Thread-safe: one read at a time."""

    def __init__(
        self, path: Path, model: str | None = None,
        owns_lock: Callable[[int], bool] = lambda pid: False,
    ) -> None:  # fmt: skip
        self.folder = TaskFolder.open(path)
        self.model = model
        self.owns_lock = owns_lock  # our own engine process holds the lock: not read-only
        self._lock = threading.Lock()

    @property
    def path(self) -> Path:
        return self.folder.path

    def snapshot(self) -> TaskSnapshot:
        with self._lock:
            return self._snapshot()

    def _snapshot(self) -> TaskSnapshot:
        from forgetui.engine import api  # the context compiler: loaded off the UI thread

        folder = self.folder
        spec = folder.spec
        state = folder.load_state()
        checks_state = state.verification.checks
        by_criterion: dict[str, list[bool | None]] = {}
        checks: list[CheckView] = []
        for check in spec.checks:
            result = checks_state.get(check.name)
            passing = result.passing if result is not None else None
            checks.append(
                CheckView(
                    check.name,
                    passing,
                    result.details if result else "not run yet",
                    result.changed_at_step if result else None,
                    check.criterion,
                )
            )
            if check.criterion:
                by_criterion.setdefault(check.criterion, []).append(passing)
        criteria = tuple(
            CriterionView(text, _all_passing(by_criterion.get(text, [])))
            for text in spec.success_criteria
        )
        memory = folder.load_memory()
        rows = api.memory_rows(folder)
        memory_view = tuple(
            MemoryRow(
                ref=row["ref"],
                type=row["type"],
                summary=_memory_summary(item.type, item.key, item.content),
                step=row["step"],
                tokens=row["tokens"],
                expires_in=row["expires_in"],
                pinned=row["pinned"],
                visible=row["visible"],
                content=_memory_content(item.content),
            )
            for row, item in zip(rows, memory.items, strict=True)
        )
        context: ContextView | None = None
        context_error: str | None = None
        if state.status not in FINISHED:
            try:
                context = self._preview(state.step + 1)
            except ForgeError as exc:
                context_error = exc.message
        count = folder.log.refresh()
        start = max(0, count - TAIL_ROWS)
        tail = tuple(log_row(start + i, r) for i, r in enumerate(folder.log.records(start, count)))
        holder_info = folder.lock.holder()
        holder = None
        if (
            holder_info is not None
            and not holder_info.is_mine
            and not self.owns_lock(holder_info.pid)
        ):
            holder = LockHolder(holder_info.pid, holder_info.command)
        return TaskSnapshot(
            task_id=spec.id,
            task_type=spec.task_type,
            goal=spec.goal,
            phase=state.phase,
            phases=PHASES[spec.task_type],
            status=state.status,
            step=state.step,
            criteria=criteria,
            constraints=tuple(spec.constraints),
            plan=state.plan,
            checks=tuple(checks),
            ready=state.verification.ready_for_completion,
            memory=memory_view,
            context=context,
            context_error=context_error,
            log_count=count,
            tail_rows=tail,
            cost=state.totals.cost_usd,
            escalation=state.pending_escalation,
            holder=holder,
            approval=spec.approval,
            recent=tuple(row for row in tail if row.kind == "result")[-3:],
        )

    def _preview(self, step: int) -> ContextView:
        from forgetui.engine import api

        ctx = api.preview_context(self.folder, self.model)
        return ContextView(
            step=step,
            saved=False,
            sections=tuple(
                SectionView(s.name, s.budget, s.tokens, s.text, tuple(s.compressions))
                for s in ctx.sections
            ),
            total_tokens=ctx.total_tokens,
            max_tokens=ctx.max_tokens,
            messages=tuple((m["role"], m["content"]) for m in ctx.messages),
            over_budget=tuple(ctx.over_budget),
        )

    def saved_context(self, step: int) -> ContextView:
        """The context as sent at `step`, with why it differs from step-1's."""
        from forgetui.engine.diff import context_diff

        with self._lock:
            folder = self.folder
            saved = folder.load_saved_context(step)
            budgets = folder.spec.limits.budgets()
            tokens: dict[str, int] = saved.get("sections") or {}
            diff: tuple[DiffEntry, ...] = ()
            diff_error = None
            try:
                diff = tuple(context_diff(folder, step))
            except ForgeError as exc:
                diff_error = exc.message
            return ContextView(
                step=step,
                saved=True,
                sections=tuple(
                    SectionView(name, budgets.get(name, 0), int(count), "")
                    for name, count in tokens.items()
                ),
                total_tokens=int(saved.get("total_tokens") or 0),
                max_tokens=folder.spec.limits.max_tokens,
                messages=tuple((m["role"], m["content"]) for m in saved["messages"]),
                diff=diff,
                diff_error=diff_error,
            )

    def saved_steps(self) -> list[int]:
        """Steps whose context was saved, oldest first (a directory listing, no parsing)."""
        with self._lock:
            folder = self.folder
            if not folder.contexts_dir.is_dir():
                return []
            steps = []
            for path in folder.contexts_dir.glob("step-*.yaml"):
                number = path.stem.removeprefix("step-")
                if number.isdigit():
                    steps.append(int(number))
            return sorted(steps)

    def log_rows(self, start: int, stop: int) -> tuple[LogRow, ...]:
        with self._lock:
            records = self.folder.log.records(start, stop)
            return tuple(log_row(start + i, record) for i, record in enumerate(records))

    def record_detail(self, index: int) -> RecordDetail:
        """One record in full, with its step's intent (the raw answer) and saved context."""
        with self._lock:
            log = self.folder.log
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
                    saved = self.folder.load_saved_context(record.step)
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
