"""The operator's side of a task: answering an escalation and
changing working memory. Each change takes the task lock and is logged as an operator record."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from forgetui.engine.base.clock import now_iso
from forgetui.engine.base.errors import ForgeError
from forgetui.engine.base.yamlio import (
    atomic_write_text,
    dump_yaml,
    load_model,
    parse_yaml,
    read_text,
)
from forgetui.engine.folder import memory as wm
from forgetui.engine.folder import policy
from forgetui.engine.folder import seal as task_seal
from forgetui.engine.folder.catalog import PHASES
from forgetui.engine.folder.departures import record_departures
from forgetui.engine.folder.records import OperatorRecord
from forgetui.engine.folder.task_folder import TASK_FILE, TaskFolder
from forgetui.engine.folder.task_spec import TaskSpec
from forgetui.engine.folder.task_state import (
    FINISHED,
    Decision,
    Escalation,
    FoldedDecisions,
    Resolution,
    TaskState,
)
from forgetui.engine.operator.replies import (
    RERUN_WORDS,
    Takeover,
    first_word,
    resolution_for,
    takeover_for,
)
from forgetui.engine.operator.views import memory_summary

MemoryChange = Callable[[wm.WorkingMemory], tuple[wm.WorkingMemory, str]]


# Decisions keep to this share of current_state's budget; older ones fold into a file.
DECISIONS_SHARE = 4
DECISIONS_FILE = "artifacts/decisions.yaml"
ROUTINE = ("approve", "rerun")  # operator events in the log, not decisions in the context
# escalations about the model or its server, not the agent's work: "retry"/"continue" is routine
OPERATOR_REASONS = ("model_error", "context_window", "unparseable")


def answer(folder: TaskFolder, text: str) -> Decision:
    """Answer the pending escalation. For an approval, 'approve' / 'reject [why]' / 'modify
    {json args}'; for an interrupted step, 're-run' / 'skip'.

    A routine approve (or re-run) is an operator event in the log and costs the context
    nothing. Any other answer is an immutable decision in state.yaml, shown in every later
    context, as a short summary (never a file's content)."""
    text = text.strip()
    if not text:
        raise ForgeError("an answer needs some text")
    with folder.lock:
        state = folder.load_state()
        pending = state.pending_escalation
        if pending is None:
            raise ForgeError(f"task {state.task_id} has no pending escalation to answer")
        takeover = takeover_for(pending, text, PHASES[folder.spec.task_type])
        resolution = None if takeover else resolution_for(pending, text)
        status: str = "paused"
        if first_word(text) == "abort" and pending.reason != "approval":
            status = "aborted"
        if takeover and pending.reason == "approval" and takeover.status is None:
            # the waiting action is not run: its step is recorded as refused, then work goes on
            why = f"operator took over: {text}"
            resolution = Resolution(kind="reject", step=pending.step, reason=why)
        routine = (resolution is not None and resolution.kind in ROUTINE) or (
            pending.reason in OPERATOR_REASONS and first_word(text) in (*RERUN_WORDS, "continue")
        )  # going on after the operator's own problem decides nothing the agent must keep
        decision = Decision(
            step=pending.step,
            question=pending.question,
            answer=_decision_summary(pending, resolution, text),
            at=now_iso(),
        )
        decisions = state.decisions if routine else [*state.decisions, decision]
        update: dict[str, Any] = {
            "decisions": decisions,
            "pending_escalation": None,
            "resolution": resolution,
            "status": status,
            "failed_streak": 0,
            "unparsed_streak": 0,
        }
        if takeover is not None:
            update.update(_takeover_update(folder, state, takeover))
        elif pending.reason == "loop":
            update["loop_guard"] = state.loop_guard.model_copy(update={"block_streak": 0})
        elif status != "aborted" and pending.reason == "max_steps":
            update["extra_steps"] = state.extra_steps + folder.spec.limits.max_steps
        elif status != "aborted" and pending.reason == "max_cost":
            update["extra_cost_usd"] = state.extra_cost_usd + (folder.spec.limits.max_cost_usd or 0)
        new_state = state.model_copy(update=update)
        folded = _fold_decisions(folder, new_state)
        folder.save_state(new_state)
        op = (resolution.kind if resolution else "retry") if routine else "answer"
        _log_answer(folder, state.step, pending, decision.answer, op)
        if folded:
            assert new_state.folded_decisions is not None
            folder.log.append(
                OperatorRecord(
                    step=state.step,
                    at=now_iso(),
                    op="fold_decisions",
                    text=new_state.folded_decisions.describe(),
                    detail={"folded": folded, "file": DECISIONS_FILE},
                )
            )
    return decision


def _log_answer(folder: TaskFolder, step: int, pending: Escalation, text: str, op: str) -> None:
    """The answer in the log with the question beside it: the inbox lists them from here
    (routine answers leave no decision in state.yaml)."""
    folder.log.append(
        OperatorRecord(
            step=step,
            at=now_iso(),
            op=op,
            text=text,
            detail={
                "reason": pending.reason,
                "question": pending.question,
                "asked_step": pending.step,
            },
        )
    )


def _takeover_update(folder: TaskFolder, state: TaskState, takeover: Takeover) -> dict[str, Any]:
    spec = folder.spec
    if takeover.status is not None:
        return {"status": takeover.status, "resolution": None}
    if takeover.phase is not None:
        return {"phase": takeover.phase}
    if takeover.more_steps is not None:
        return {
            "max_steps": max(state.step, policy.max_steps_of(spec, state)) + takeover.more_steps
        }
    if takeover.more_cost is not None:
        spent = max(state.totals.cost_usd, policy.max_cost_of(spec, state) or 0.0)
        return {"max_cost_usd": round(spent + takeover.more_cost, 6)}
    return {}


def set_limits(folder: TaskFolder, max_steps: int | None, max_cost_usd: float | None) -> Decision:
    """The operator sets the step or cost limit mid-run (not only extends it): a decision the
    agent sees. A limit escalation the new limit lifts is cleared."""
    if max_steps is None and max_cost_usd is None:
        raise ForgeError("limits needs --max-steps N or --max-cost X")
    if max_steps is not None and max_steps < 1:
        raise ForgeError(f"--max-steps {max_steps}: must be 1 or more")
    if max_cost_usd is not None and max_cost_usd < 0:
        raise ForgeError(f"--max-cost {max_cost_usd}: must be 0 or more")
    with folder.lock:
        state = folder.load_state()
        update: dict[str, Any] = {}
        said = []
        if max_steps is not None:
            update["max_steps"] = max_steps
            said.append(f"max_steps {max_steps}")
        if max_cost_usd is not None:
            update["max_cost_usd"] = max_cost_usd
            said.append(f"max_cost ${max_cost_usd:.2f}")
        decision = Decision(
            step=state.step, question="limits set by the operator", answer=", ".join(said),
            at=now_iso(),
        )  # fmt: skip
        new_state = state.model_copy(update={**update, "decisions": [*state.decisions, decision]})
        pending = new_state.pending_escalation
        lifted = policy.limit_reached(folder.spec, new_state) is None
        if pending is not None and pending.reason in ("max_steps", "max_cost") and lifted:
            new_state = new_state.model_copy(
                update={"pending_escalation": None, "status": "paused"}
            )
        _fold_decisions(folder, new_state)
        folder.save_state(new_state)
        folder.log.append(
            OperatorRecord(
                step=state.step, at=now_iso(), op="limits", text=decision.answer,
                detail=dict(update),
            )
        )  # fmt: skip
    return decision


def accept_task_change(folder: TaskFolder) -> str:
    """Accept task.yaml as it is now (the operator reviewed it): steps run again, with the new
    task. Returns what was accepted, as the log records it."""
    with folder.lock:
        state = folder.load_state()
        new_state, record = task_seal.accepted(folder.path, state)
        if record is None:
            return "task.yaml is unchanged since it was accepted: nothing to accept"
        folder.spec = load_model(folder.path / TASK_FILE, TaskSpec)
        folder.save_state(new_state)
        folder.log.append(record)
        return record.text or ""


def _decision_summary(pending: Escalation, resolution: Resolution | None, text: str) -> str:
    """What a decision says in every later context: the operator's words, but a modify's new
    arguments as names and sizes (a file's content never rides along)."""
    if resolution is not None and resolution.kind == "modify" and resolution.args is not None:
        action = pending.pending_action.action if pending.pending_action else "the action"
        return f"modify {action}: {_args_summary(resolution.args)}"
    return text


def _args_summary(args: dict[str, Any]) -> str:
    parts = []
    for name, value in args.items():
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        if "\n" in shown or len(shown) > 60:
            parts.append(f"{name}=<{len(shown)} characters>")
        else:
            parts.append(f"{name}={shown}")
    return ", ".join(parts) or "no arguments"


def _fold_decisions(folder: TaskFolder, state: TaskState) -> int:
    """Keep the decisions shown in full within their share of current_state's budget: the
    oldest move, whole, to artifacts/decisions.yaml, and the context names how many and where.
    Returns how many were folded now."""
    from forgetui.engine.base.tokens import counter_for

    budget = folder.spec.limits.budgets()["current_state"] // DECISIONS_SHARE
    counter = counter_for(folder.spec.model)
    costs = [counter.count(f"{d.question}\n{d.answer}") + 8 for d in state.decisions]
    if sum(costs) <= budget:
        return 0
    keep, used = 0, 0
    for cost in reversed(costs):  # the newest stay, in full, within half the share
        if used + cost > budget // 2:
            break
        used += cost
        keep += 1
    fold = state.decisions[: len(state.decisions) - keep]
    path = folder.path / DECISIONS_FILE
    earlier = parse_yaml(read_text(path), path) if path.is_file() else []
    records = [*(earlier or []), *(d.model_dump(mode="json") for d in fold)]
    atomic_write_text(path, dump_yaml(records))
    before = state.folded_decisions
    state.folded_decisions = FoldedDecisions(
        count=(before.count if before else 0) + len(fold),
        first_step=before.first_step if before else fold[0].step,
        last_step=fold[-1].step,
        file=DECISIONS_FILE,
    )
    state.decisions = state.decisions[len(fold) :]
    return len(fold)


def memory_frozen(status: str) -> str:
    """Why working memory cannot change in a task of `status` ("" if it can). A finished task's
    memory is history: no next step would show a change, and its record of how it ended stays
    true. One rule for every change (pin, evict, edit, note, a pinned answer); a rewind or a
    fork gives a task that goes on, whose memory is the operator's again."""
    if status in FINISHED:
        return f"the task is {status}: rewind or fork to change its memory"
    return ""


def _change_memory(
    folder: TaskFolder,
    change: MemoryChange,
    op: str,
    text: str | None,
    gone: list[wm.Departure] | None = None,
) -> str:
    """Apply `change` under the lock and log it. What it took out of memory (`gone`, filled
    by `change`) is noted in state.yaml, so the next saved context says why each item left."""
    with folder.lock:
        state = folder.load_state()
        if frozen := memory_frozen(state.status):
            raise ForgeError(frozen)
        new_memory, resolved = change(folder.load_memory())
        folder.save_memory(new_memory)
        if gone:
            record_departures(state, gone, state.step)
            folder.save_state(state)
        folder.log.append(
            OperatorRecord(step=state.step, at=now_iso(), op=op, key=resolved, text=text)
        )
        return resolved


def pin(folder: TaskFolder, ref: str, pinned: bool = True) -> str:
    def change(memory: wm.WorkingMemory) -> tuple[wm.WorkingMemory, str]:
        item = memory.items[memory.find(ref)]
        return wm.set_pinned(memory, ref, pinned), item.ref

    return _change_memory(folder, change, "pin" if pinned else "unpin", None)


def evict(folder: TaskFolder, ref: str) -> str:
    gone: list[wm.Departure] = []

    def change(memory: wm.WorkingMemory) -> tuple[wm.WorkingMemory, str]:
        new_memory, departure = wm.evict(memory, ref)
        gone.append(departure)
        return new_memory, departure.ref

    return _change_memory(folder, change, "evict", None, gone)


def memory_edit_form(folder: TaskFolder, ref: str) -> wm.EditForm:
    """Item `ref` as the operator edits it (structured content as YAML). Reads only."""
    return wm.edit_form(folder.load_memory(), ref)


def edit_memory(folder: TaskFolder, ref: str, content: str) -> str:
    """Replace an item's content with `content`: as text for a text item; for structured
    content (a result's fields) the YAML must parse back to the same shape, else ForgeError
    and nothing is saved."""

    def change(memory: wm.WorkingMemory) -> tuple[wm.WorkingMemory, str]:
        item = memory.items[memory.find(ref)]
        parsed = wm.parse_edit(content, wm.shape_of(item.content))
        return wm.edit(memory, ref, parsed), item.ref

    return _change_memory(folder, change, "edit", content)


def add_note(folder: TaskFolder, text: str, key: str | None = None, pinned: bool = False) -> str:
    """An operator note: a memory item the agent sees from the next step on. Returns its ref,
    followed by what it pushed out of a full memory, if anything: the operator learns it now,
    not from a diff two steps later. `key` names it (default note@STEP; an item with that key
    is replaced); `pinned` keeps it from FIFO and expiry (a promoted answer, inbox.py)."""
    if not text.strip():
        raise ForgeError("a note needs some text")
    pushed: list[str] = []
    departures: list[wm.Departure] = []

    def change(memory: wm.WorkingMemory) -> tuple[wm.WorkingMemory, str]:
        step = folder.load_state().step
        taken = {item.ref for item in memory.items}
        ref = key or next(
            k
            for n in range(1, 1000)
            if (k := f"note@{step}" + (f".{n}" if n > 1 else "")) not in taken
        )
        item = wm.MemoryItem(type="note", step=step, key=ref, content=text, pinned=pinned)
        new_memory, gone = wm.add_item(memory, item)
        departures.extend(gone)
        fifo = [departure for departure in gone if departure.reason == "pushed out"]
        pushed.extend(_departed(departure) for departure in fifo)
        if fifo:  # an item of the same key it replaced is not news: the key says so
            pushed.append(f" — memory holds at most {memory.max_items} items")
        return new_memory, item.ref

    return _change_memory(folder, change, "note", text, departures) + "".join(pushed)


def _departed(departure: wm.Departure) -> str:
    """'; pushed out action_result@2 (list_dir: listed .)': the item by ref and what it was."""
    summary = memory_summary(departure.item)
    if len(summary) > 60:
        summary = summary[:59] + "…"
    what = f" ({summary})" if summary and summary != departure.ref else ""
    return f"; {departure.reason} {departure.ref}{what}"
