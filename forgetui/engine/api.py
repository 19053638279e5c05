"""The engine API both front ends call: open a task, preview its next context, read its status
and log, and change working memory as the operator (DESIGN.md sections 4, 5, 9)."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from forgetui.engine import memory as wm
from forgetui.engine.clock import now_iso
from forgetui.engine.context import CompiledContext, ContextInputs, compile_context
from forgetui.engine.errors import ForgeError
from forgetui.engine.records import OperatorRecord
from forgetui.engine.state import TaskState, Verification
from forgetui.engine.store import TaskFolder
from forgetui.engine.task import Check, TaskSpec
from forgetui.engine.yamlio import dump_yaml

RECENT_RESULTS = 3


def open_task(path: Path | str) -> TaskFolder:
    return TaskFolder.open(Path(path))


def create_task(
    workspace: Path,
    goal: str,
    task_type: str = "generic",
    criteria: Sequence[str] = (),
    check_cmds: Sequence[str] = (),
    task_id: str | None = None,
) -> TaskFolder:
    """`forgetui new`: a task from a goal; each check command becomes a command check."""
    if not workspace.is_dir():
        raise ForgeError(f"--workspace {workspace}: not a directory")
    checks = [
        Check(name=f"check-{i}", kind="command", cmd=shlex.split(cmd))
        for i, cmd in enumerate(check_cmds, start=1)
    ]
    slug = re.sub(r"[^a-z0-9]+", "-", goal.lower()).strip("-")[:40].strip("-") or "task"
    spec = TaskSpec.model_validate(
        {
            "id": task_id or slug,
            "goal": goal,
            "task_type": task_type,
            "success_criteria": list(criteria),
            "checks": [check.model_dump() for check in checks],
        }
    )
    return TaskFolder.create(workspace, spec)


def effective_phase(folder: TaskFolder, state: TaskState) -> str:
    """A task with `decompose: true` and no plan yet spends its first step decomposing."""
    if folder.spec.decompose and state.plan is None:
        return "decompose"
    return state.phase


def context_inputs(
    folder: TaskFolder, model: str | None = None, state: TaskState | None = None
) -> ContextInputs:
    """Everything the next step's context is compiled from, read from disk."""
    state = state or folder.load_state()
    phase = effective_phase(folder, state)
    if phase != state.phase:
        state = state.model_copy(update={"phase": phase})
    return ContextInputs(
        spec=folder.spec,
        state=state,
        memory=folder.load_memory(),
        recent=folder.log.last_results(RECENT_RESULTS),
        workspace=folder.workspace,
        model=model or folder.spec.model,
    )


def preview_context(folder: TaskFolder, model: str | None = None) -> CompiledContext:
    """What the next step will send. Reads only; safe to call at any time."""
    return compile_context(context_inputs(folder, model))


def saved_context(folder: TaskFolder, step: int) -> dict[str, Any]:
    """The two messages exactly as sent at `step` (artifacts/contexts)."""
    return folder.load_saved_context(step)


def verification_json(verification: Verification) -> dict[str, Any]:
    """The public JSON shape of verification (`status --json`, `run --json`)."""
    return {
        "checks": {
            name: {"passing": check.passing, "details": check.details}
            for name, check in verification.checks.items()
        },
        "ready_for_completion": verification.ready_for_completion,
    }


def status(folder: TaskFolder) -> dict[str, Any]:
    state = folder.load_state()
    folder.load_memory()  # a broken working_memory.yaml is reported here, not at the next step
    escalation = state.pending_escalation
    return {
        "task_id": state.task_id,
        "status": state.status,
        "phase": state.phase,
        "step": state.step,
        "verification": verification_json(state.verification),
        "pending_escalation": escalation.model_dump(mode="json", exclude_none=True)
        if escalation
        else None,
    }


def log_entries(folder: TaskFolder, tail: int | None = None) -> Iterator[dict[str, Any]]:
    return folder.log.merged(tail=tail)


# --- operator changes to working memory -------------------------------------------------------


def _record_operator(folder: TaskFolder, op: str, key: str | None, text: str | None = None) -> None:
    step = folder.load_state().step
    folder.log.append(OperatorRecord(step=step, at=now_iso(), op=op, key=key, text=text))


def _change_memory(
    folder: TaskFolder, change: Any, op: str, ref: str | None, text: str | None
) -> str:
    with folder.lock:
        memory = folder.load_memory()
        new_memory, resolved = change(memory)
        folder.save_memory(new_memory)
        _record_operator(folder, op, resolved, text)
        return resolved


def pin(folder: TaskFolder, ref: str, pinned: bool = True) -> str:
    def change(memory: wm.WorkingMemory) -> tuple[wm.WorkingMemory, str]:
        item = memory.items[memory.find(ref)]
        return wm.set_pinned(memory, ref, pinned), item.ref

    return _change_memory(folder, change, "pin" if pinned else "unpin", ref, None)


def evict(folder: TaskFolder, ref: str) -> str:
    def change(memory: wm.WorkingMemory) -> tuple[wm.WorkingMemory, str]:
        new_memory, gone = wm.evict(memory, ref)
        return new_memory, gone.ref

    return _change_memory(folder, change, "evict", ref, None)


def edit_memory(folder: TaskFolder, ref: str, content: str) -> str:
    def change(memory: wm.WorkingMemory) -> tuple[wm.WorkingMemory, str]:
        item = memory.items[memory.find(ref)]
        return wm.edit(memory, ref, content), item.ref

    return _change_memory(folder, change, "edit", ref, content)


def add_note(folder: TaskFolder, text: str) -> str:
    """An operator note: a pinned-by-choice memory item the agent sees from the next step on."""
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

    return _change_memory(folder, change, "note", None, text)


def memory_rows(folder: TaskFolder) -> list[dict[str, Any]]:
    """Working memory as the operator sees it: ref, type, step, tokens, expiry, pin."""
    from forgetui.engine.tokens import counter_for

    state = folder.load_state()
    memory = folder.load_memory()
    counter = counter_for(folder.spec.model)
    visible = {id(item) for item in wm.visible_items(memory, state.next_step)}
    rows = []
    for item in memory.items:
        content = item.content if isinstance(item.content, str) else dump_yaml(item.content)
        rows.append(
            {
                "ref": item.ref,
                "type": item.type,
                "step": item.step,
                "tokens": counter.count(content),
                "expires_in": item.steps_left(state.next_step),
                "pinned": item.pinned,
                "visible": id(item) in visible,
            }
        )
    return rows
