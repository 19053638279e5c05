"""The counterfactual meter: per step, the tokens forgetui sent next to what the same run would
have sent had it kept the whole conversation.

`sent` is what the step's request carried by forgetui's count: the two messages
(`context_tokens`) and the tool schemas beside them (`tool_tokens`), the figure max_tokens
bounds. `naive` is that same request grown the usual way: the first step's two messages and
the step's tool schemas, then, for every earlier step, the model's answer (its raw text, else
the action written as a replay script writes it) and the tool's output as the log keeps it
(capped at 6,000 characters, else the result's summary; with its error when it failed).
Both count message contents only, with one encoding (the first step's model's), and no
per-message framing, so the two are comparable. Steps of a superseded branch (a rewind) and
failed or stopped model calls add nothing: the agent never saw them.

`TokenSeries` reads the log once and then only what was appended, each answer and output
tokenized once: O(steps), so the workbench can keep it beside the log."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from forgetui.engine.base.errors import ForgeError
from forgetui.engine.base.tokens import TokenCounter, counter_for
from forgetui.engine.base.yamlio import dump_yaml
from forgetui.engine.folder.action_log import ActionLog, AnyRecord
from forgetui.engine.folder.records import IntentRecord, ResultRecord
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.folder.task_state import TaskState, superseded_steps
from forgetui.engine.history.step_tokens import StepTokens

if TYPE_CHECKING:
    from forgetui.engine.context.health import ContextHealth

BATCH = 1000  # records parsed per read
STATS_STEPS = (1, 5, 10, 50, 100, 200, 300)  # the rows of `forgetui stats`, and the last step


def answer_text(intent: IntentRecord) -> str:
    """The model's answer as a conversation would keep it: the raw answer, else the action as
    the replay model writes one."""
    if intent.raw_response:
        return intent.raw_response
    return dump_yaml({"action": intent.action, "args": intent.args})


def tool_text(result: ResultRecord) -> str:
    """The tool's message: its output as the log keeps it, else the result's summary; and the
    error when the action failed (the agent is told it, in a conversation as here)."""
    text = result.output or result.summary
    if result.error and result.error not in text:
        text = f"{text}\n{result.error}"
    return text


def _key(record: AnyRecord) -> tuple[int, str, str]:
    return record.step, record.kind, record.at


class TokenSeries:
    """sent and naive per step of one task, brought up to date by `refresh`."""

    def __init__(self, folder: TaskFolder) -> None:
        self.folder = folder
        self._reset(frozenset(), 0)

    def _reset(self, superseded: frozenset[int], rewinds: int) -> None:
        self._superseded = superseded
        self._rewinds = rewinds
        self._records = 0  # log records read
        self._last: tuple[int, str, str] | None = None  # the last one read, to see a rewrite
        self._counter: TokenCounter | None = None
        self._base = 0  # the first step's two messages
        self._grown = 0  # the answers and outputs a conversation would have appended so far
        self._open: IntentRecord | None = None  # the intent whose result is still to come
        self._points: dict[int, StepTokens] = {}

    @property
    def points(self) -> list[StepTokens]:
        return list(self._points.values())

    @property
    def encoding(self) -> str | None:
        return self._counter.encoding_name if self._counter else None

    def refresh(self, state: TaskState | None = None, max_records: int | None = None) -> bool:
        """Read what was appended since the last call (all of the log after a rewind or a log
        rewritten); at most `max_records` records, so a caller on a budget can go on later.
        True when the series is up to date."""
        state = state or self.folder.load_state()
        if len(state.rewinds) != self._rewinds:
            self._reset(frozenset(superseded_steps(state.rewinds)), len(state.rewinds))
        log: ActionLog = self.folder.log
        count = log.refresh()
        if count < self._records or (
            self._records and _key(log.record_at(self._records - 1)) != self._last
        ):
            self._reset(self._superseded, self._rewinds)
        stop = count if max_records is None else min(count, self._records + max_records)
        for start in range(self._records, stop, BATCH):
            self._add(log.records(start, min(stop, start + BATCH)))
        return self._records == count

    def _add(self, records: Sequence[AnyRecord]) -> None:
        for record in records:
            if record.step in self._superseded:
                continue
            if isinstance(record, IntentRecord):
                self._open = record
                self._point(record)
            elif isinstance(record, ResultRecord):
                intent, self._open = self._open, None
                if intent is not None and intent.step == record.step and not record.transport:
                    self._grow(intent, record)
        if records:
            self._records += len(records)
            self._last = _key(records[-1])

    def _point(self, intent: IntentRecord) -> None:
        if self._counter is None:
            self._counter = counter_for(intent.model or self.folder.spec.model)
            self._base = self._first_messages(intent, self._counter)
        tools = intent.tool_tokens or 0
        sent = intent.context_tokens + tools
        self._points[intent.step] = StepTokens(intent.step, sent, self._base + tools + self._grown)

    def _grow(self, intent: IntentRecord, result: ResultRecord) -> None:
        """The step's answer and its tool's output join the conversation: counted once."""
        if self._counter is not None:
            self._grown += sum(self._counter.count_each([answer_text(intent), tool_text(result)]))

    def _first_messages(self, intent: IntentRecord, counter: TokenCounter) -> int:
        """The two messages of the run's first step as saved; its recorded count when the file
        is gone."""
        try:
            saved = self.folder.load_saved_context(intent.step)
        except ForgeError:
            return intent.context_tokens
        return sum(counter.count_each([m["content"] for m in saved["messages"]]))


# One series per open task folder, kept as long as its log object (as views.py keeps rows).
_SERIES: WeakKeyDictionary[ActionLog, TokenSeries] = WeakKeyDictionary()


def token_series(
    folder: TaskFolder, state: TaskState | None = None, max_records: int | None = None
) -> tuple[list[StepTokens], bool]:
    """The task's series, read on from where the last call on this folder stopped; and whether
    it is complete (False: `max_records` ran out first)."""
    series = _SERIES.get(folder.log)
    if series is None:
        series = _SERIES[folder.log] = TokenSeries(folder)
    done = series.refresh(state, max_records)
    return series.points, done


def stats_rows(steps: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The rows `forgetui stats` prints from the `steps` of its JSON: steps 1, 5, 10, 50, 100,
    200, 300 and the last, those that exist."""
    by_step = {row["step"]: row for row in steps}
    wanted = [*STATS_STEPS, steps[-1]["step"]] if steps else []
    return [by_step[step] for step in dict.fromkeys(wanted) if step in by_step]


def ratio(naive: int, sent: int) -> float | None:
    return round(naive / sent, 1) if sent else None


def series_stats(
    folder: TaskFolder, state: TaskState, health: ContextHealth | None = None
) -> dict[str, Any]:
    """The `stats --json` object (api.task_stats): the per-step series, a summary, and the
    context health."""
    series = TokenSeries(folder)
    series.refresh(state)
    points = series.points
    cap = folder.spec.limits.max_tokens
    sent_total = sum(point.sent for point in points)
    naive_total = sum(point.naive for point in points)
    over = next((point.step for point in points if point.naive > cap), None)
    last = points[-1] if points else None
    summary = {
        "steps": len(points),
        "last_step": last.step if last else None,
        "sent_last": last.sent if last else None,
        "naive_last": last.naive if last else None,
        "ratio_last": ratio(last.naive, last.sent) if last else None,
        "sent_max": max((point.sent for point in points), default=None),
        "sent_total": sent_total,
        "naive_total": naive_total,
        "ratio_total": ratio(naive_total, sent_total),
        "cap": cap,
        # from this step on a whole-conversation run would no longer fit the cap
        "naive_over_cap_from": over,
        "encoding": series.encoding,
    }
    return {
        "task_id": state.task_id,
        "steps": [point.to_json() for point in points],
        "summary": summary,
        "health": health.to_json() if health is not None else None,
    }
