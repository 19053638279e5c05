"""How working-memory items read in current_state: their attributes, which ones are sized to
the room left (elastic), and the traces of outputs that left."""

from __future__ import annotations

import textwrap
from collections.abc import Iterable

from forgetui.engine.context.tree import Scalar
from forgetui.engine.folder.departures import what_of
from forgetui.engine.folder.memory import MemoryItem
from forgetui.engine.folder.task_state import TaskState

LONG_TEXT_CHARS = 500  # a one-line note longer than this is sized by lines (wrapped)
WRAP_CHARS = 160
TEXT_TYPES = ("loaded_context", "note", "decision")


def elastic_text(item: MemoryItem) -> str | None:
    """A memory item's text as an elastic part sizes it, by lines; None for one that stays
    whole (short, structured, or an error output, which the error rules cut). A long single
    line is wrapped so that it, too, can be cut by lines."""
    content = item.content
    if not isinstance(content, str) or errorish(item) or item.type not in TEXT_TYPES:
        return None
    if "\n" in content.strip():
        return content
    if len(content) > LONG_TEXT_CHARS:
        wrapped = textwrap.wrap(content, WRAP_CHARS, drop_whitespace=False, break_on_hyphens=False)
        return "\n".join(wrapped)
    return None


def errorish(item: MemoryItem) -> bool:
    return (item.key or "").split(":", 1)[0] in ("test_output", "error_details")


def memory_attrs(item: MemoryItem, next_step: int) -> tuple[tuple[str, Scalar], ...]:
    """The item's ref, its type where the ref does not say it (`note@5` does), `pinned` only
    when it is, and the steps left before it expires if it does: each key is a cost every
    step pays."""
    said = item.ref.startswith(f"{item.type}@") or (
        item.type == "loaded_context" and item.key is not None
    )
    return (
        ("ref", item.ref),
        ("type", None if said else item.type),
        ("pinned", True if item.pinned else None),
        ("expires_in_steps", item.steps_left(next_step)),
    )


def items_phrase(count: int) -> str:
    return f"{count} memory item{'' if count == 1 else 's'}"


def trace_lines(state: TaskState, held: Iterable[MemoryItem]) -> list[str]:
    """Outputs that left working memory, oldest first, one line each; none for an output
    the agent has loaded again (an item of the same summary or key is back in memory)."""
    back = {what_of(item) for item in held}
    return [
        f"{trace.what}: {trace.tokens:,} tokens, {trace.reason} at step {trace.step}; read again"
        for trace in state.dropped_outputs
        if trace.what not in back
    ]
