"""The action log as rows, for the CLI's `log` and the workbench's log pane: a step's intent and
result merged into one row, an operator change a row of its own, read by index windows over the
log (never the whole log), so a row says the same wherever it is shown."""

from __future__ import annotations

from array import array
from weakref import WeakKeyDictionary

from pydantic import ValidationError

from forgetui.engine.base.errors import ForgeError
from forgetui.engine.folder.action_log import ActionLog, AnyRecord
from forgetui.engine.folder.catalog import action_target
from forgetui.engine.folder.records import IntentRecord, OperatorRecord, ResultRecord
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.folder.task_state import RewindMark, superseded_steps
from forgetui.engine.operator.log_row import AWAITING, IN_FLIGHT, INTERRUPTED, LogRow

SCAN_BATCH = 1000  # records parsed at a time while the row index catches up


def record_row(index: int, record: AnyRecord) -> LogRow:
    """One record as a row, for its detail (`index`: the record's place in the log)."""
    if isinstance(record, IntentRecord):
        took = f" in {record.model_ms / 1000:.1f}s" if record.model_ms >= 100 else ""
        return LogRow(
            index, "intent", record.step, record.action, action_target(record.args), "intent",
            f"{record.model or 'model'} answered{took}", record.context_tokens, record.cost,
            record.model_ms or None, index,
        )  # fmt: skip
    if isinstance(record, ResultRecord):
        return LogRow(
            index, "result", record.step, record.action, action_target(record.args),
            record.result, record.summary, None, None, record.duration_ms or None, index,
        )  # fmt: skip
    return _operator_row(index, record, index)


def _operator_row(index: int, record: OperatorRecord, at: int) -> LogRow:
    """An answer's row names the step it answers: the record's own step is the last one
    recorded, one before a step that waits for approval (its answer sat under that step's row
    numbered as the step before)."""
    asked = record.detail.get("asked_step")
    step = asked if isinstance(asked, int) and not isinstance(asked, bool) else record.step
    return LogRow(
        index, "operator", step, f"operator:{record.op}", record.key or "", "",
        (record.text or "").replace("\n", " "), None, None, None, at,
    )  # fmt: skip


def step_row(
    index: int,
    intent: IntentRecord | None,
    result: ResultRecord | None,
    record: int,
    in_flight: bool = False,
    superseded: bool = False,
    awaiting: bool = False,
) -> LogRow:
    """A step's row: what the model asked for (tokens, cost) and what came of it. The args are
    the result's when it has them: an approval may have modified them. `awaiting`: the step in
    flight waits for the operator's approval, not for its action."""
    base = result or intent
    assert base is not None
    args = result.args if result is not None and result.args else intent.args if intent else {}
    outcome: str
    if result is not None:
        outcome, summary = result.result, result.summary
    elif in_flight:
        assert intent is not None
        took = f" in {intent.model_ms / 1000:.1f}s" if intent.model_ms >= 100 else ""
        waits = AWAITING if awaiting else "no result yet"
        outcome, summary = IN_FLIGHT, f"{intent.model or 'model'} answered{took}; {waits}"
    else:
        outcome, summary = INTERRUPTED, "interrupted before its result was recorded"
    ms = (intent.model_ms if intent else 0.0) + (result.duration_ms if result else 0.0)
    return LogRow(
        index, "step", base.step, base.action, action_target(args), outcome, summary,
        intent.context_tokens if intent and intent.context_tokens else None,
        intent.cost if intent and intent.cost else None, ms or None, record, superseded,
    )  # fmt: skip


def log_row_matches(row: LogRow, text: str) -> bool:
    """Whether the row's action, target, result or summary holds `text`, in any case."""
    needle = text.strip().casefold()
    return any(
        needle in field.casefold() for field in (row.action, row.target, row.result, row.summary)
    )


def _record_key(record: AnyRecord) -> tuple[int, str, str]:
    return record.step, record.kind, record.at


def rewind_mark(record: OperatorRecord) -> RewindMark | None:
    """The branch an in-place rewind's record says it superseded (None: another record, or
    one that names no branch)."""
    span = record.detail.get("superseded") if record.op == "rewind" else None
    if not isinstance(span, list) or len(span) != 2:
        return None
    try:
        return RewindMark.model_validate(
            {"to": record.detail.get("to"), "first": span[0], "last": span[1], "at": record.at}
        )
    except ValidationError:
        return None


class LogRowIndex:
    """The action log's rows over its records, so rows read by index windows as records do.

    A step's result folds into its intent's row; operator records keep rows of their own, in log
    order (one written while an approval waits sits after the step's row, as in `log --json`).
    Two integers per row; built once, then extended by what was appended since (each record is
    parsed once here). One caller at a time: the workbench's reader holds a lock."""

    def __init__(self, log: ActionLog) -> None:
        self.log = log
        self._reset()

    def _reset(self) -> None:
        self._first = array("q")  # per row: its first record (intent, operator, or a lone result)
        self._result = array("q")  # per row: its step's result record; -1: none (yet)
        self._by_step: dict[int, int] = {}  # step -> its row
        self._records = 0  # records indexed
        self._last: tuple[int, str, str] | None = None  # the last one indexed, to see a rewrite
        self._open = -1  # the row whose intent still waits for its result
        self._open_step = 0
        self._superseded: set[int] = set()  # steps of branches in-place rewinds left behind

    def __len__(self) -> int:
        return len(self._first)

    def refresh(self) -> int:
        """Index the records appended since the last call (a log that shrank or was rewritten
        is indexed again); returns the number of rows."""
        count = self.log.refresh()
        if count < self._records or (
            self._records and _record_key(self.log.record_at(self._records - 1)) != self._last
        ):
            self._reset()
        for start in range(self._records, count, SCAN_BATCH):
            batch = self.log.records(start, min(count, start + SCAN_BATCH))
            for offset, record in enumerate(batch):
                self._add(start + offset, record)
        return len(self._first)

    def _add(self, at: int, record: AnyRecord) -> None:
        """merge_steps' rule: one step at a time, so a new intent closes the open one and a
        result belongs to the open intent of its step, else stands alone. A rewind's record
        marks the steps it superseded (all before it: rows are read after indexing)."""
        if isinstance(record, IntentRecord):
            self._open, self._open_step = self._new_row(at, -1), record.step
            self._by_step.setdefault(record.step, self._open)
        elif isinstance(record, ResultRecord):
            if self._open >= 0 and self._open_step == record.step:
                self._result[self._open] = at
            else:
                self._by_step.setdefault(record.step, self._new_row(at, at))
            self._open = -1
        else:
            self._new_row(at, -1)
            mark = rewind_mark(record)
            if mark is not None:
                self._superseded |= superseded_steps([mark])
        self._records = at + 1
        self._last = _record_key(record)

    def _new_row(self, first: int, result: int) -> int:
        self._first.append(first)
        self._result.append(result)
        return len(self._first) - 1

    def row_of_step(self, step: int) -> int | None:
        return self._by_step.get(step)

    def open_row(self) -> int:
        """The row whose intent still waits for its result; -1: none."""
        return self._open

    def rows(self, start: int, stop: int, awaiting: int | None = None) -> list[LogRow]:
        """Rows [start, stop) as indexed (refresh first), from one read of their records;
        `awaiting`: the step whose approval the operator is asked for."""
        stop = min(stop, len(self._first))
        if start >= stop:
            return []
        low = self._first[start]
        high = max(max(self._first[row], self._result[row]) for row in range(start, stop))
        records = self.log.records(low, high + 1)
        rows = []
        for row in range(start, stop):
            first_at, result_at = self._first[row], self._result[row]
            first = records[first_at - low]
            if isinstance(first, OperatorRecord):
                rows.append(_operator_row(row, first, first_at))
                continue
            result = records[result_at - low] if result_at >= 0 else None
            assert result is None or isinstance(result, ResultRecord)
            intent = first if isinstance(first, IntentRecord) else None
            opened = result_at if result_at >= 0 else first_at
            rows.append(
                step_row(
                    row, intent, result, opened, in_flight=row == self._open,
                    superseded=first.step in self._superseded,
                    awaiting=row == self._open and first.step == awaiting,
                )
            )  # fmt: skip
        return rows

    def find(self, text: str, start: int = 0) -> list[LogRow]:
        """The rows from `start` on that hold `text` (see log_row_matches), a batch at a time."""
        found: list[LogRow] = []
        for low in range(start, len(self._first), SCAN_BATCH):
            batch = self.rows(low, low + SCAN_BATCH)
            found.extend(row for row in batch if log_row_matches(row, text))
        return found


# The row index lives beside the log's own offset index, as long as the folder's log object.
_ROW_INDEXES: WeakKeyDictionary[ActionLog, LogRowIndex] = WeakKeyDictionary()


def _row_index(folder: TaskFolder) -> LogRowIndex:
    index = _ROW_INDEXES.get(folder.log)
    if index is None:
        index = _ROW_INDEXES[folder.log] = LogRowIndex(folder.log)
    index.refresh()
    return index


def log_row_count(folder: TaskFolder) -> int:
    """Rows in the log now (one per step, one per operator change), indexing only what was
    appended since the last call."""
    return len(_row_index(folder))


def log_rows(folder: TaskFolder, start: int, stop: int) -> list[LogRow]:
    """Rows `start` to `stop` of the log, read by index (never the whole log). A step in flight
    that waits for the operator's approval says so: the log alone cannot tell it from one whose
    action is running, state.yaml can (read only when such a row is in the window)."""
    index = _row_index(folder)
    return index.rows(start, stop, _awaiting(folder) if start <= index.open_row() < stop else None)


def _awaiting(folder: TaskFolder) -> int | None:
    """The step waiting for the operator's approval, if one is (a state.yaml that does not read
    leaves the log readable, without the mark)."""
    try:
        pending = folder.load_state().pending_escalation
    except ForgeError:
        return None
    return pending.step if pending is not None and pending.reason == "approval" else None


def find_log_rows(folder: TaskFolder, text: str, start: int = 0) -> tuple[int, list[LogRow]]:
    """The number of rows, and those from `start` on holding `text`: reads the log from there
    (a filter over a long log belongs off the UI thread)."""
    index = _row_index(folder)
    return len(index), index.find(text, start)


def log_row_of_step(folder: TaskFolder, step: int) -> int | None:
    """The row of step `step`, if the log has it."""
    return _row_index(folder).row_of_step(step)
