"""Why the context of step N differs from step N-1's: which working-memory items entered, left or
changed, and the reason for each (the workbench's context diff).

Computed from what is on disk only: the saved contexts' `memory_refs`, the log records written
between the two steps (operator changes, the load_context of step N-1) and, for why an item
left, the `exclusions` step N's context file recorded where each departure happened (FIFO,
expiry, the operator's evict, the budget with the squeeze that did it). A context saved before
exclusions were recorded has its reasons inferred from the saved `memory_expires`, the log and
working_memory.yaml. Pure: no writes. A departure's reason uses the words of
memory.DepartureReason, which the next step's preview (memory.leaving) uses too: "evicted" is
the operator's `x` only."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from forgetui.engine.base.errors import ForgeError
from forgetui.engine.folder.action_log import AnyRecord
from forgetui.engine.folder.memory import (
    DEFAULT_EXPIRY_STEPS,
    LOAD_KINDS,
    DepartureReason,
    saved_exclusions,
)
from forgetui.engine.folder.records import IntentRecord, OperatorRecord, ResultRecord
from forgetui.engine.folder.task_folder import TaskFolder

Change = Literal["entered", "left", "changed"]
Reason = Literal["loaded", "pinned", "unpinned", "operator", "added"] | DepartureReason
_ORDER: dict[str, int] = {"entered": 0, "changed": 1, "left": 2}


@dataclass(frozen=True)
class DiffEntry:
    ref: str
    change: Change
    reason: Reason
    # the rule behind a recorded departure ("memory holds at most 5 items: ...") or the squeeze
    # behind a budget drop; an explanation, not part of what changed
    detail: str = field(default="", compare=False)

    def describe(self) -> str:
        why = f": {self.detail}" if self.detail else ""
        return f"{self.change} {self.ref} ({self.reason}{why})"


def saved_memory_refs(folder: TaskFolder, step: int) -> list[str] | None:
    """The memory refs the context of `step` showed; None if no context was saved then."""
    if step < 1 or not folder.context_path(step).is_file():
        return None
    return _refs(folder.load_saved_context(step))


def _refs(saved: dict[str, Any]) -> list[str]:
    return [str(ref) for ref in saved.get("memory_refs") or []]


def context_diff(folder: TaskFolder, step: int) -> list[DiffEntry]:
    """Step `step`'s context against step-1's. Raises ForgeError if step's context was not saved
    (a step that escalated before its model call sends nothing)."""
    saved = folder.load_saved_context(step)  # raises the ForgeError naming a missing file
    current = _refs(saved)
    # recorded where each departure happened: no guessing (an older context has none)
    recorded = {exclusion.ref: exclusion for exclusion in saved_exclusions(saved) or ()}
    since = previous_on_branch(folder, step)
    previous = saved_memory_refs(folder, since) or []
    between = _records_between(folder, step, since)
    ops: dict[str, list[str]] = {}
    loaded: set[str] = set()
    for record in between:
        if isinstance(record, OperatorRecord) and record.key:
            ops.setdefault(record.key, []).append(record.op)
        elif isinstance(record, IntentRecord | ResultRecord) and record.action == "load_context":
            item = str(record.args.get("item", "")).strip()
            if item:
                loaded.add(item)
    before, after = set(previous), set(current)
    entries: list[DiffEntry] = []
    for ref in current:
        if ref not in before:
            entries.append(DiffEntry(ref, "entered", _entered_reason(ref, ops, loaded)))
        elif (reason := _changed_reason(ref, ops, loaded)) is not None:
            entries.append(DiffEntry(ref, "changed", reason))
    for ref in previous:
        if ref in after:
            continue
        if (exclusion := recorded.get(ref)) is not None:
            entries.append(DiffEntry(ref, "left", exclusion.reason, exclusion.why))
        else:
            entries.append(DiffEntry(ref, "left", _left_reason(folder, ref, step, since, ops)))
    entries.sort(key=lambda entry: _ORDER[entry.change])
    return entries


def previous_on_branch(folder: TaskFolder, step: int) -> int:
    """The step whose context `step`'s followed: step-1, unless step-1 ended a branch a rewind
    left behind that `step` is not on (then the step rewound to, through any chain of them)."""
    try:
        rewinds = folder.load_state().rewinds
    except ForgeError:  # the diff still reads when state.yaml does not
        return step - 1
    previous = step - 1
    for mark in reversed(rewinds):
        if mark.last == previous and not mark.first <= step <= mark.last:
            previous = mark.to
    return previous


def _is_loaded_item(ref: str) -> bool:
    return ref.split(":", 1)[0] in LOAD_KINDS


def _entered_reason(ref: str, ops: dict[str, list[str]], loaded: set[str]) -> Reason:
    done = ops.get(ref, [])
    if "note" in done or "edit" in done:
        return "operator"
    if ref in loaded or _is_loaded_item(ref):
        return "loaded"
    if "pin" in done:
        return "pinned"
    return "added"


def _changed_reason(ref: str, ops: dict[str, list[str]], loaded: set[str]) -> Reason | None:
    done = ops.get(ref, [])
    if done:
        last = done[-1]
        if last == "pin":
            return "pinned"
        if last == "unpin":
            return "unpinned"
        return "operator"
    return "loaded" if ref in loaded else None


def _left_reason(
    folder: TaskFolder, ref: str, step: int, since: int, ops: dict[str, list[str]]
) -> Reason:
    """The operator's eviction, else expiry for an item that had shown its full term (or was
    unpinned past it), else the budget for an item still in working memory since before the
    step, else FIFO: pushed out by a newer item. `since` is the step compared against (the
    one before, or the one a rewind went back to): its context says when each item expires."""
    if "evict" in ops.get(ref, []):
        return "evicted"
    if since >= 1 and folder.context_path(since).is_file():
        expires = folder.load_saved_context(since).get("memory_expires")
        if isinstance(expires, dict):  # recorded since the executor saves it: no guessing
            end = expires.get(ref)
            if isinstance(end, int) and end <= step:
                return "expired"
            return "dropped for budget" if _still_held(folder, ref, step) else "pushed out"
    if _still_held(folder, ref, step):
        return "dropped for budget"
    if not _is_loaded_item(ref):
        return "pushed out"
    shown = 0
    for earlier in range(since, max(0, since - DEFAULT_EXPIRY_STEPS), -1):
        refs = saved_memory_refs(folder, earlier)
        if refs is None or ref not in refs:
            break
        shown += 1
    if shown >= DEFAULT_EXPIRY_STEPS or "unpin" in ops.get(ref, []):
        return "expired"
    return "pushed out"


def _still_held(folder: TaskFolder, ref: str, step: int) -> bool:
    """Whether working memory still holds the item `ref` named before `step`: then it never
    left the buffer, and a context without it left it out for the budget. (A file loaded
    again since has a later step, so it does not count.)"""
    try:
        memory = folder.load_memory()
    except ForgeError:
        return False
    return any(
        item.ref == ref and item.step is not None and item.step < step for item in memory.items
    )


def _records_between(folder: TaskFolder, step: int, since: int) -> list[AnyRecord]:
    """What happened between the context of `since` and that of `step`: step-1's records, or
    after a rewind to `since`, that step's own intent and result and the operator's changes
    made since the rewind (stamped step-1, the last step recorded). The abandoned branch's,
    the operator's changes on it included, were undone by the rewind."""
    if since == step - 1:
        return _records_of_step(folder, since)
    own = [r for r in _records_of_step(folder, since) if not isinstance(r, OperatorRecord)]
    later = _records_of_step(folder, step - 1)
    rewound = [i for i, r in enumerate(later) if isinstance(r, OperatorRecord) and r.op == "rewind"]
    start = rewound[-1] + 1 if rewound else len(later)
    return own + [r for r in later[start:] if isinstance(r, OperatorRecord)]


def _records_of_step(folder: TaskFolder, step: int) -> list[AnyRecord]:
    """Records stamped with `step`: its intent and result and the operator changes made after it
    (operator records carry the last recorded step). Found by bisecting the log by step, so an
    old step of a 10,000-record log costs a few parsed lines, not the whole file."""
    log = folder.log
    count = len(log)
    if count == 0 or step < 0:
        return []
    # Steps only grow along the log, except an operator answer written while an approval's
    # intent waits (stamped one step lower): widen the window by a step on each side.
    lo = _first_index_at_least(folder, step - 1, count)
    hi = _first_index_at_least(folder, step + 2, count)
    return [record for record in log.records(lo, hi) if record.step == step]


def _first_index_at_least(folder: TaskFolder, step: int, count: int) -> int:
    lo, hi = 0, count
    while lo < hi:
        mid = (lo + hi) // 2
        if folder.log.record_at(mid).step < step:
            lo = mid + 1
        else:
            hi = mid
    return lo
