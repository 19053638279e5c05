"""Usage tiers: what the compiler gives up as a context fills its cap, before any budget forces
it. The budgets only say what a section may not exceed; a context that runs at 80% of its cap
step after step is one large file away from an escalation, so from each tier on the context is
kept smaller on purpose, and each tier says so in the compressions it leaves.

The usage is the context's share of its cap as its budgets alone would build it (the first
build); the tiers' effects are cumulative and leave the pinned items and operator decisions
alone."""

from __future__ import annotations

from contextlib import suppress
from dataclasses import replace
from typing import TYPE_CHECKING

from forgetui.engine.base.errors import ForgeError
from forgetui.engine.context.tier_thresholds import ALERT as ALERT  # the compiler's, from here
from forgetui.engine.context.tier_thresholds import COMPRESS, MORE, OPTIONAL, TIERS
from forgetui.engine.folder.task_state import TaskState, superseded_steps

if TYPE_CHECKING:  # kept light: the tiers load without the compiler
    from forgetui.engine.context.squeeze import Squeeze
    from forgetui.engine.folder.task_folder import TaskFolder


KEPT_UNPINNED = {OPTIONAL.at: 2, MORE.at: 1}  # the newest unpinned memory items kept
RECENT_VARIANT = 2  # from MORE, recent_actions starts at its third variant (2 lines, cut)


def tier_of(tokens: int, cap: int) -> int:
    """The highest tier `tokens` reach against `cap` (0: under the first)."""
    share = tokens * 100 / cap if cap > 0 else 100.0
    return max((tier.at for tier in TIERS if share >= tier.at), default=0)


def floor_of(tier: int, unpinned: int, has_tree: bool) -> Squeeze:
    """The least compression current_state is built with at `tier`, `unpinned` the memory
    items that may be dropped (a tree that is not there is not said to be dropped)."""
    from forgetui.engine.context.squeeze import COLLAPSE_ALL, Squeeze

    if tier < COMPRESS.at:
        return Squeeze()
    sq = Squeeze(files=True, collapse=COLLAPSE_ALL, cut=True)
    if tier >= OPTIONAL.at:
        kept = KEPT_UNPINNED[MORE.at if tier >= MORE.at else OPTIONAL.at]
        sq = replace(sq, no_tree=has_tree, list_cap=2 if tier >= MORE.at else 5)
        sq = replace(sq, dropped=max(0, unpinned - kept))
    return sq


def at_least(sq: Squeeze, floor: Squeeze) -> Squeeze:
    """`sq`, compressed at least as far as `floor` says in every respect."""
    caps = [cap for cap in (sq.list_cap, floor.list_cap) if cap is not None]
    return replace(
        sq,
        files=sq.files or floor.files,
        collapse=max(sq.collapse, floor.collapse),
        cut=sq.cut or floor.cut,
        list_cap=min(caps) if caps else None,
        no_tree=sq.no_tree or floor.no_tree,
        dropped=max(sq.dropped, floor.dropped),
    )


def tier_notes(tier: int, percent: float, cap: int) -> list[str]:
    """One compression note per tier reached: which, why (the usage) and what it did."""
    why = f"context at {percent:.0f}% of its {cap:,}-token cap"
    return [f"usage tier {t.at}% ({why}): {t.effect}" for t in TIERS if tier >= t.at]


def alert_text(percent: float, cap: int) -> str:
    return (
        f"context at {percent:.0f}% of its {cap:,}-token cap before the usage tiers cut it: "
        "unpin or evict memory items, or raise limits.max_tokens, before a step escalates "
        "over budget"
    )


def previous_tier(folder: TaskFolder, state: TaskState) -> int:
    """The usage tier of the last context compiled on the task's branch: an alert fires as a
    context crosses into the last tier, not at every step that stays there. state.yaml keeps
    it; a task saved before it did reads its last saved context once (0 when none was saved,
    or saved before tiers were noted), passing over the steps a rewind superseded."""
    if state.last_context_tier is not None:
        return state.last_context_tier
    superseded = superseded_steps(state.rewinds)
    step = state.step
    while step in superseded:
        step -= 1
    if step < 1:
        return 0
    with suppress(ForgeError, KeyError, TypeError, ValueError):
        return int(folder.load_saved_context(step).get("usage_tier") or 0)
    return 0
