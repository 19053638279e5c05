"""The `log --json` shape: a step's intent and result merged into one
entry, operator records beside them, read from the whole log or back from its end."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from forgetui.engine.folder.records import IntentRecord, OperatorRecord, ResultRecord

if TYPE_CHECKING:  # the log hands itself in: merging reads it, never the other way round
    from forgetui.engine.folder.action_log import ActionLog, AnyRecord


def merged(log: ActionLog, tail: int | None = None) -> Iterator[dict[str, Any]]:
    """The log as `log --json` entries, oldest first: all of them, or
    the last `tail`, reading back only as far as those need."""
    if tail is None:
        return merge_steps(log.iter_records())
    return iter(_merged_tail(log, tail)) if tail > 0 else iter(())


def _merged_tail(log: ActionLog, n: int) -> list[dict[str, Any]]:
    """Merge a window read back from the end (2n+2 records hold n+1 entries at least), minus
    a step its start may have cut; widen it until it yields n entries or covers the file."""
    newest_first = log.iter_backwards()
    window: list[AnyRecord] = []
    want = 2 * n + 2
    while True:
        for record in newest_first:
            window.append(record)
            if len(window) >= want:
                break
        else:
            return list(merge_steps(reversed(window)))[-n:]
        oldest_first = window[::-1]
        entries = list(merge_steps(_drop_cut_entry(oldest_first)))
        if len(entries) >= n:
            return entries[-n:]
        want *= 2


def _drop_cut_entry(records: list[AnyRecord]) -> list[AnyRecord]:
    """A window cut out of the log may start inside a step (its intent left outside): drop the
    records up to the last result before the window's first intent."""
    first_intent = next(
        (i for i, record in enumerate(records) if isinstance(record, IntentRecord)), len(records)
    )
    last_result = max(
        (i for i in range(first_intent) if isinstance(records[i], ResultRecord)), default=-1
    )
    return records[last_result + 1 :]


def step_entry(intent: IntentRecord | None, result: ResultRecord | None) -> dict[str, Any]:
    """One `log --json` step: an intent and its result merged (result `interrupted` if none)."""
    base = result or intent
    assert base is not None
    return {
        "step": base.step,
        "action": base.action,
        "args": (result.args if result and result.args else intent.args if intent else {}),
        "result": result.result if result else "interrupted",
        "summary": result.summary if result else "interrupted before its result was recorded",
        "context_tokens": intent.context_tokens if intent else 0,
        "prompt_tokens": intent.prompt_tokens if intent else 0,
        "prompt_tokens_by": intent.prompt_tokens_by if intent else None,  # server | tokenize | ...
        "completion_tokens": intent.completion_tokens if intent else 0,
        "cost": intent.cost if intent else 0.0,
        "model": intent.model if intent else None,
        # how the answer came: what a run against a new server is judged by (docs/local-models)
        "tool_tokens": (intent.tool_tokens or 0) if intent else 0,
        "system_role": intent.system_role if intent else None,
        "finish_reason": intent.finish_reason if intent else None,
        "model_ms": intent.model_ms if intent else 0.0,
        "raw_response": intent.raw_response if intent else None,
        # the memory items out of the step's context and why, and what its sections gave up:
        # absent when there were none (or the step was recorded before they were)
        **{
            name: value
            for name in ("exclusions", "compressions")
            if intent is not None and (value := getattr(intent, name))
        },
    }


def operator_entry(record: OperatorRecord) -> dict[str, Any]:
    entry: dict[str, Any] = {"operator": record.op, "step": record.step}
    if record.key is not None:
        entry["key"] = record.key
    if record.text is not None:
        entry["text"] = record.text
    if record.detail:
        entry["detail"] = record.detail
    entry["at"] = record.at
    return entry


def merge_steps(records: Iterable[AnyRecord]) -> Iterator[dict[str, Any]]:
    """Merge a stream of records (oldest first) into `log --json` entries, in log order.

    One writer runs one step at a time, so at most one intent is open: a new intent means the
    open one never got its result (interrupted). Operator records written while an intent is
    open follow its entry."""
    open_intent: IntentRecord | None = None
    held: list[dict[str, Any]] = []  # operator entries waiting behind the open intent

    def flush(result: ResultRecord | None = None) -> Iterator[dict[str, Any]]:
        nonlocal open_intent
        if open_intent is not None:
            yield step_entry(open_intent, result)
        open_intent = None
        yield from held
        held.clear()

    for record in records:
        if isinstance(record, IntentRecord):
            yield from flush()
            open_intent = record
        elif isinstance(record, ResultRecord):
            if open_intent is not None and open_intent.step == record.step:
                yield from flush(record)
            else:
                yield from flush()
                yield step_entry(None, record)
        elif open_intent is not None:
            held.append(operator_entry(record))
        else:
            yield operator_entry(record)
    yield from flush()
