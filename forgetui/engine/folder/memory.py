"""working_memory.yaml: the bounded rolling buffer, and the pure rules that
change it. Operations return a new buffer plus what left it and why, so the caller can record it
and the TUI can explain a context diff."""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import yaml
from pydantic import Field

from forgetui.engine.base.clock import now_iso
from forgetui.engine.base.errors import ForgeError, MemoryKeyError
from forgetui.engine.base.yamlio import dump_yaml, safe_load
from forgetui.engine.folder.task_spec import Strict

ItemType = Literal["action_result", "loaded_context", "note", "decision"]
LOAD_KINDS: tuple[str, ...] = (
    "full_file", "related_files", "test_output", "spec_section", "error_details",
)  # fmt: skip
DEFAULT_EXPIRY_STEPS = 3
# Why an item leaves, in the words every front end uses (preview, diff, log): "evicted" is only
# ever the operator's `x`; a full buffer "pushes out" its oldest unpinned item (FIFO at
# max_items); an item whose term is over "expired"; one working memory still holds but the
# compiler left out of current_state was "dropped for budget"; a newer item with the same key
# "replaced" it. No action or operator command unloads an item.
DepartureReason = Literal["evicted", "pushed out", "expired", "dropped for budget", "replaced"]
KEEP_DEPARTED = 20  # departures state.yaml holds until the next context is saved
Shape = Literal["text", "mapping", "list"]


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
    reason: DepartureReason
    item: MemoryItem
    detail: str = ""  # the rule that did it, in a few words: "memory holds at most 5 items"


class Exclusion(Strict):
    """An item out of a step's context, and why: kept in state.yaml (`departed`) from where it
    left until the next context is saved, then in that context's file and intent record, so a
    diff reads the reason instead of guessing it. `since_step`: the step it left at (a result
    that pushed it out, the last step before an operator's evict, the step it expired at or
    was dropped from)."""

    ref: str
    reason: DepartureReason
    since_step: int = Field(ge=0)
    detail: str | None = None
    strategy: str | None = None  # a budget drop: how current_state was squeezed before it

    @property
    def why(self) -> str:
        return self.strategy or self.detail or ""

    def describe(self) -> str:
        """'action_result@1: pushed out · memory holds at most 5 items: ...'"""
        return f"{self.ref}: {self.reason}" + (f" · {self.why}" if self.why else "")


def saved_exclusions(saved: Mapping[str, Any]) -> list[Exclusion] | None:
    """The exclusions a saved context (or an intent record) recorded; None when it recorded
    none (saved before they were). An entry that does not read is skipped."""
    raw = saved.get("exclusions")
    if not isinstance(raw, list):
        return None
    found: list[Exclusion] = []
    for entry in raw:
        try:
            found.append(Exclusion.model_validate(entry))
        except ValueError:
            continue
    return found


def departed_with(
    departed: Sequence[Exclusion], gone: Iterable[Departure], step: int
) -> list[Exclusion]:
    """`departed` and the departures `gone` at `step`: one entry per item (its latest), the
    newest KEEP_DEPARTED, so a thousand notes between two steps cannot grow state.yaml."""
    new = [
        Exclusion(ref=d.ref, reason=d.reason, since_step=step, detail=d.detail or None)
        for d in gone
    ]
    if not new:
        return list(departed)
    refs = {exclusion.ref for exclusion in new}
    return [*(e for e in departed if e.ref not in refs), *new][-KEEP_DEPARTED:]


@dataclass(frozen=True)
class Leaving:
    """An item the next step takes out of the context, before it happens: `reason` in the
    words the context diff will use, `why` the rule that does it."""

    ref: str
    reason: DepartureReason
    why: str


def _replace(memory: WorkingMemory, items: list[MemoryItem]) -> WorkingMemory:
    return memory.model_copy(update={"items": items})


def add_item(memory: WorkingMemory, item: MemoryItem) -> tuple[WorkingMemory, list[Departure]]:
    """Append; an item with the same key replaces the old one; beyond max_items the oldest
    unpinned item is pushed out (FIFO). If every item is pinned, nothing is pushed out."""
    gone = [
        Departure(old.ref, "replaced", old, f"{item.ref} of step {item.step} replaced it")
        for old in memory.items
        if item.key and old.key == item.key
    ]
    items = [old for old in memory.items if not (item.key and old.key == item.key)]
    items.append(item)
    while len(items) > memory.max_items:
        victim = next((i for i, old in enumerate(items[:-1]) if not old.pinned), None)
        if victim is None:
            break
        old = items.pop(victim)
        why = f"memory holds at most {memory.max_items} items: {item.ref} pushed it out"
        gone.append(Departure(old.ref, "pushed out", old, why))
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
            gone.append(Departure(item.ref, "expired", item, f"its term of {_term(item)} is over"))
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
    return _replace(memory, items), Departure(old.ref, "evicted", old, "by the operator")


def edit(
    memory: WorkingMemory, ref: str, content: str | dict[str, Any] | list[Any]
) -> WorkingMemory:
    index = memory.find(ref)
    items = list(memory.items)
    items[index] = items[index].model_copy(update={"content": content})
    return _replace(memory, items)


def leaving(memory: WorkingMemory, next_step: int, shown: Collection[str]) -> list[Leaving]:
    """What the next step takes out of the context, so the preview can say it before the diff
    does: items whose term ends (now or after this step), items the compiler left out of
    `shown` (the preview's memory refs) for the budget, and the oldest unpinned item the next
    step's result will push out of a full buffer. One entry per item, soonest first."""
    found: dict[str, Leaving] = {}

    def add(item: MemoryItem, reason: DepartureReason, why: str) -> None:
        found.setdefault(item.ref, Leaving(item.ref, reason, why))

    kept = visible_items(memory, next_step)
    for item in memory.items:
        if not any(item is other for other in kept):
            add(item, "expired", f"its term of {_term(item)} is over: not in step {next_step}'s "
                "context")  # fmt: skip
    for item in kept:
        if item.ref not in shown:
            add(item, "dropped for budget", f"left out of step {next_step}'s context to fit "
                "current_state's budget")  # fmt: skip
    if len(kept) + 1 > memory.max_items:  # the step's result is one item more
        victim = next((item for item in kept if not item.pinned), None)
        if victim is not None:
            add(victim, "pushed out", f"step {next_step}'s result makes {len(kept) + 1} items: "
                f"memory holds at most {memory.max_items}")  # fmt: skip
    for item in kept:
        if item.expires_at(next_step) == next_step + 1:
            add(item, "expired", f"shown for the last time at step {next_step} (a term of "
                f"{_term(item)})")  # fmt: skip
    return list(found.values())


def _term(item: MemoryItem) -> str:
    """'3 steps': how many contexts an expiring item is shown in."""
    steps = item.expires_after_steps
    return f"{steps} step{'' if steps == 1 else 's'}"


# --- editing an item's content ------------------------------------------------------------------


@dataclass(frozen=True)
class EditForm:
    """An item's content as the operator edits it: text as is, structured content as YAML
    that `parse_edit` turns back into the same shape."""

    ref: str
    text: str
    shape: Shape

    @property
    def says(self) -> str:
        """What saving does, in a line: the operator must know a result stays a result."""
        if self.shape == "text":
            return "plain text: saved as text"
        if self.shape == "mapping":
            return "YAML fields: saved as fields, so it must stay YAML key: value lines"
        return "a YAML list: saved as a list, so it must stay YAML - item lines"


def shape_of(content: str | dict[str, Any] | list[Any]) -> Shape:
    if isinstance(content, dict):
        return "mapping"
    return "list" if isinstance(content, list) else "text"


def edit_form(memory: WorkingMemory, ref: str) -> EditForm:
    item = memory.items[memory.find(ref)]
    content = item.content
    text = content if isinstance(content, str) else dump_yaml(content)
    return EditForm(item.ref, text, shape_of(content))


def parse_edit(text: str, shape: Shape) -> str | dict[str, Any] | list[Any]:
    """The edited text as content of `shape`: text as is; structured content only from YAML
    of the same shape, so an edit never turns a result's fields into a string by accident."""
    if shape == "text":
        return text
    try:
        value = safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "not YAML"
        raise ForgeError(f"not valid YAML{where}: {problem}; nothing saved") from None
    if not isinstance(value, dict if shape == "mapping" else list):
        what = "YAML fields (key: value lines)" if shape == "mapping" else "a YAML list"
        raise ForgeError(f"this item holds {what} and must keep that shape; nothing saved")
    # YAML may give dates or number keys; the file keeps what JSON can say
    plain: dict[str, Any] | list[Any] = json.loads(json.dumps(value, default=str))
    return plain
