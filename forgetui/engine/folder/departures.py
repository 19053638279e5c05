"""What leaving working memory leaves in state.yaml: the reason (`departed`, until the next
saved context records it) and, for an output the agent asked to see, a one-line trace the
context keeps showing ("read_file src/x.py: 4,120 tokens, pushed out at step 31"), so an output
that went is one the agent knows it had and can read again, not one it silently lost."""

from __future__ import annotations

import json
from collections.abc import Sequence

from forgetui.engine.base.compress import one_line
from forgetui.engine.base.tokens import counter_for
from forgetui.engine.folder.memory import Departure, MemoryItem, departed_with
from forgetui.engine.folder.task_state import OutputTrace, TaskState

KEEP_TRACES = 10  # traces state.yaml holds; the context shows the newest few
WHAT_CHARS = 100
MIN_TRACED_TOKENS = 200  # a smaller output leaves no trace


def record_departures(state: TaskState, gone: Sequence[Departure], step: int) -> None:
    """Note in `state` why each item in `gone` left at `step`, and trace the outputs."""
    if not gone:
        return
    state.departed = departed_with(state.departed, gone, step)
    traces = [trace for departure in gone if (trace := _trace(departure, step)) is not None]
    if traces:
        refs = {trace.ref for trace in traces}
        kept = [trace for trace in state.dropped_outputs if trace.ref not in refs]
        state.dropped_outputs = [*kept, *traces][-KEEP_TRACES:]


def _trace(departure: Departure, step: int) -> OutputTrace | None:
    """An output's trace; none for a note or a decision (short, and kept elsewhere), for an
    item a newer one of the same key replaced (the newer one is there), or for an output so
    small that its trace would cost about what reading it again does."""
    item = departure.item
    if departure.reason == "replaced":
        return None
    content = item.content
    if item.type == "action_result" and isinstance(content, dict) and content.get("output"):
        text = str(content["output"])
    elif item.type == "loaded_context":
        text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    else:
        return None
    tokens = counter_for(None).count(text)
    if tokens < MIN_TRACED_TOKENS:
        return None
    return OutputTrace(
        ref=item.ref,
        what=what_of(item),
        tokens=tokens,
        step=step,
        reason=departure.reason,
    )


def what_of(item: MemoryItem) -> str:
    """What an item holds, on one line: a result's summary, a loaded item's key. The context
    leaves out the trace of an output whose item is back in memory by this."""
    content = item.content
    if item.type == "action_result" and isinstance(content, dict):
        what = str(content.get("summary") or content.get("action") or item.ref)
    else:
        what = f"load_context {item.key}" if item.key else item.ref
    return one_line(what, WHAT_CHARS)
