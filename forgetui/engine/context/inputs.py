"""What a context is compiled from and what compiling it gives: the public types, and the one
place that reads a task folder into `ContextInputs` (the API and the executor both preview and
send through it, so what the operator sees is what the model gets)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from forgetui.engine.memory import WorkingMemory
from forgetui.engine.records import ResultRecord
from forgetui.engine.state import TaskState
from forgetui.engine.store import TaskFolder
from forgetui.engine.task import TaskSpec

RECENT_RESULTS = 3


@dataclass(frozen=True)
class ContextInputs:
    spec: TaskSpec
    state: TaskState
    memory: WorkingMemory
    recent: Sequence[ResultRecord]  # newest last; the compiler uses the last 3
    workspace: Path  # target-file excerpts are read from here
    model: str | None = None  # picks the token encoding (else spec.model)


@dataclass(frozen=True)
class Section:
    name: str
    budget: int
    text: str
    tokens: int
    compressions: tuple[str, ...] = ()


@dataclass(frozen=True)
class CompiledContext:
    step: int
    format: str
    sections: tuple[Section, ...]
    total_tokens: int
    max_tokens: int
    messages: tuple[dict[str, str], ...]  # exactly (system, user)
    memory_refs: tuple[str, ...]  # MemoryItem.ref of the items shown, in order
    over_budget: tuple[str, ...]  # reasons the step must not go out; empty when it may

    def section(self, name: str) -> Section:
        return next(section for section in self.sections if section.name == name)

    def to_json(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "total_tokens": self.total_tokens,
            "max_tokens": self.max_tokens,
            "format": self.format,
            "sections": [
                {
                    "name": section.name,
                    "tokens": section.tokens,
                    "budget": section.budget,
                    "text": section.text,
                    "compressions": list(section.compressions),
                }
                for section in self.sections
            ],
            "messages": [dict(message) for message in self.messages],
            "memory_refs": list(self.memory_refs),
            "over_budget": list(self.over_budget),
        }


def effective_phase(folder: TaskFolder, state: TaskState) -> str:
    """A task with `decompose: true` and no plan yet spends its first step decomposing."""
    if folder.spec.decompose and state.plan is None:
        return "decompose"
    return state.phase


def agent_results(folder: TaskFolder, n: int) -> list[ResultRecord]:
    """The last n results of the agent's own actions, oldest first: a failed model call
    (`transport`) is the operator's, and showing it to the model only costs tokens."""
    found: list[ResultRecord] = []
    for record in folder.log.iter_backwards(("result",)):
        if isinstance(record, ResultRecord) and not record.transport:
            found.append(record)
            if len(found) == n:
                break
    return found[::-1]


def context_inputs(
    folder: TaskFolder,
    model: str | None = None,
    state: TaskState | None = None,
    memory: WorkingMemory | None = None,
) -> ContextInputs:
    """Everything the next step's context is compiled from, read from disk (or given: a
    reader that already holds state and memory does not read them again)."""
    state = state or folder.load_state()
    phase = effective_phase(folder, state)
    if phase != state.phase:
        state = state.model_copy(update={"phase": phase})
    return ContextInputs(
        spec=folder.spec,
        state=state,
        memory=memory or folder.load_memory(),
        recent=agent_results(folder, RECENT_RESULTS),
        workspace=folder.workspace,
        model=model or folder.spec.model,
    )
