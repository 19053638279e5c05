"""The operator's side of a task (DESIGN.md sections 5, 6): answering an escalation and
changing working memory. Each change takes the task lock and is logged as an operator record."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from forgetui.engine import memory as wm
from forgetui.engine.answers import first_word, resolution_for
from forgetui.engine.clock import now_iso
from forgetui.engine.errors import ForgeError
from forgetui.engine.records import OperatorRecord
from forgetui.engine.state import Decision
from forgetui.engine.store import TaskFolder

MemoryChange = Callable[[wm.WorkingMemory], tuple[wm.WorkingMemory, str]]


def answer(folder: TaskFolder, text: str) -> Decision:
    """Answer the pending escalation. The answer is an immutable decision in state.yaml, shown in
    every later context. For an approval, 'approve' / 'reject [why]' / 'modify {json args}';
    for an interrupted step, 're-run' / 'skip'."""
    text = text.strip()
    if not text:
        raise ForgeError("an answer needs some text")
    with folder.lock:
        state = folder.load_state()
        pending = state.pending_escalation
        if pending is None:
            raise ForgeError(f"task {state.task_id} has no pending escalation to answer")
        resolution = resolution_for(pending, text)
        status = "paused"
        if first_word(text) == "abort" and pending.reason != "approval":
            status = "aborted"
        decision = Decision(step=pending.step, question=pending.question, answer=text, at=now_iso())
        update: dict[str, Any] = {
            "decisions": [*state.decisions, decision],
            "pending_escalation": None,
            "resolution": resolution,
            "status": status,
            "failed_streak": 0,
        }
        if pending.reason == "loop":
            update["loop_guard"] = state.loop_guard.model_copy(update={"block_streak": 0})
        elif status != "aborted" and pending.reason == "max_steps":
            update["extra_steps"] = state.extra_steps + folder.spec.limits.max_steps
        elif status != "aborted" and pending.reason == "max_cost":
            update["extra_cost_usd"] = state.extra_cost_usd + (folder.spec.limits.max_cost_usd or 0)
        folder.save_state(state.model_copy(update=update))
        folder.log.append(
            OperatorRecord(
                step=state.step,
                at=now_iso(),
                op="answer",
                text=text,
                detail={"reason": pending.reason},
            )
        )
    return decision


def _change_memory(folder: TaskFolder, change: MemoryChange, op: str, text: str | None) -> str:
    with folder.lock:
        new_memory, resolved = change(folder.load_memory())
        folder.save_memory(new_memory)
        step = folder.load_state().step
        folder.log.append(OperatorRecord(step=step, at=now_iso(), op=op, key=resolved, text=text))
        return resolved


def pin(folder: TaskFolder, ref: str, pinned: bool = True) -> str:
    def change(memory: wm.WorkingMemory) -> tuple[wm.WorkingMemory, str]:
        item = memory.items[memory.find(ref)]
        return wm.set_pinned(memory, ref, pinned), item.ref

    return _change_memory(folder, change, "pin" if pinned else "unpin", None)


def evict(folder: TaskFolder, ref: str) -> str:
    def change(memory: wm.WorkingMemory) -> tuple[wm.WorkingMemory, str]:
        new_memory, gone = wm.evict(memory, ref)
        return new_memory, gone.ref

    return _change_memory(folder, change, "evict", None)


def edit_memory(folder: TaskFolder, ref: str, content: str) -> str:
    def change(memory: wm.WorkingMemory) -> tuple[wm.WorkingMemory, str]:
        item = memory.items[memory.find(ref)]
        return wm.edit(memory, ref, content), item.ref

    return _change_memory(folder, change, "edit", content)


def add_note(folder: TaskFolder, text: str) -> str:
    """An operator note: a memory item the agent sees from the next step on."""
    if not text.strip():
        raise ForgeError("a note needs some text")

    def change(memory: wm.WorkingMemory) -> tuple[wm.WorkingMemory, str]:
        step = folder.load_state().step
        taken = {item.ref for item in memory.items}
        key = next(
            k
            for n in range(1, 1000)
            if (k := f"note@{step}" + (f".{n}" if n > 1 else "")) not in taken
        )
        item = wm.MemoryItem(type="note", step=step, key=key, content=text)
        new_memory, _gone = wm.add_item(memory, item)
        return new_memory, item.ref

    return _change_memory(folder, change, "note", text)
