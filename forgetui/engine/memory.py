"""working_memory.yaml: the bounded rolling buffer (DESIGN.md section 5), and the pure rules that
change it. Operations return a new buffer plus what left it and why, so the caller can record it
and the TUI can explain a context diff."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field

from forgetui.engine.clock import now_iso
from forgetui.engine.errors import MemoryKeyError
from forgetui.engine.task import Strict

ItemType = Literal["action_result", "loaded_context", "note", "decision"]
LOAD_KINDS: tuple[str, ...] = (
    "full_file", "related_files", "test_output", "spec_section", "error_details",
)  # fmt: skip
DEFAULT_EXPIRY_STEPS = 3


class MemoryItem(Strict):
    type: ItemType
    step: int | None = None  # the step it was added at
    key: str | None = None
    content: str | dict[str, Any] | list[Any]
    added_at: str = Field(default_factory=now_iso)
    expires_after_steps: int | None = Field(None, ge=1)
    pinned: bool = False

    @property
    def ref(self) -> str:
        """How the operator names this item: its key, else type@step."""
        return self.key or f"{self.type}@{self.step if self.step is not None else '?'}"

    def expires_at(self, next_step: int) -> int | None:
        """The first step whose context no longer shows this item (None: never expires).

        An item added at step 5 with expires_after_steps 3 shows in the contexts of steps 6, 7
        and 8. An undated item (written by hand) counts from the last recorded step."""
        if self.expires_after_steps is None or self.pinned:
            return None
        added = self.step if self.step is not None else next_step - 1
        return added + self.expires_after_steps + 1

    def steps_left(self, next_step: int) -> int | None:
        """How many more contexts, starting with `next_step`'s, will show this item."""
        end = self.expires_at(next_step)
        return None if end is None else max(0, end - next_step)


class WorkingMemory(Strict):
    max_items: int = Field(5, ge=1)
    items: list[MemoryItem] = Field(default_factory=list)

    def find(self, ref: str) -> int:
        """Index of the item named by key, type@step, or #N (1-based position)."""
        if ref.startswith("#") and ref[1:].isdigit():
            index = int(ref[1:]) - 1
            if 0 <= index < len(self.items):
                return index
        for index, item in enumerate(self.items):
            if item.ref == ref or item.key == ref:
                return index
        known = ", ".join(item.ref for item in self.items) or "none"
        raise MemoryKeyError(f"no memory item {ref!r} (items: {known})")


@dataclass(frozen=True)
class Departure:
    ref: str
    reason: Literal["evicted", "expired", "operator"]
    item: MemoryItem


def _replace(memory: WorkingMemory, items: list[MemoryItem]) -> WorkingMemory:
    return memory.model_copy(update={"items": items})


def add_item(memory: WorkingMemory, item: MemoryItem) -> tuple[WorkingMemory, list[Departure]]:
    """Append; an item with the same key replaces the old one; beyond max_items the oldest
    unpinned item is evicted (FIFO). If every item is pinned, nothing is evicted."""
    items = [old for old in memory.items if not (item.key and old.key == item.key)]
    items.append(item)
    gone: list[Departure] = []
    while len(items) > memory.max_items:
        victim = next((i for i, old in enumerate(items[:-1]) if not old.pinned), None)
        if victim is None:
            break
        old = items.pop(victim)
        gone.append(Departure(old.ref, "evicted", old))
    return _replace(memory, items), gone


def expire(memory: WorkingMemory, next_step: int) -> tuple[WorkingMemory, list[Departure]]:
    """Drop items the context of `next_step` no longer shows; date undated items."""
    kept: list[MemoryItem] = []
    gone: list[Departure] = []
    for item in memory.items:
        if item.step is None:
            item = item.model_copy(update={"step": next_step - 1})
        end = item.expires_at(next_step)
        if end is not None and next_step >= end:
            gone.append(Departure(item.ref, "expired", item))
        else:
            kept.append(item)
    return _replace(memory, kept), gone


def visible_items(memory: WorkingMemory, next_step: int) -> list[MemoryItem]:
    """What the context of `next_step` shows, without changing anything."""
    return [
        item
        for item in memory.items
        if (end := item.expires_at(next_step)) is None or next_step < end
    ]


def set_pinned(memory: WorkingMemory, ref: str, pinned: bool) -> WorkingMemory:
    index = memory.find(ref)
    items = list(memory.items)
    items[index] = items[index].model_copy(update={"pinned": pinned})
    return _replace(memory, items)


def evict(memory: WorkingMemory, ref: str) -> tuple[WorkingMemory, Departure]:
    index = memory.find(ref)
    items = list(memory.items)
    old = items.pop(index)
    return _replace(memory, items), Departure(old.ref, "operator", old)


def edit(memory: WorkingMemory, ref: str, content: str | dict[str, Any]) -> WorkingMemory:
    index = memory.find(ref)
    items = list(memory.items)
    items[index] = items[index].model_copy(update={"content": content})
    return _replace(memory, items)
