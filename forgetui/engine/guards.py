"""The loop guard (DESIGN.md section 6): an action's signature is its name plus its sorted
arguments; the Nth identical attempt and an A-B-A-B alternation are blocked, not executed."""

from __future__ import annotations

from forgetui.engine.state import LoopGuardState
from forgetui.engine.task import Guards


def loop_block_reason(signature: str, guard: LoopGuardState, limits: Guards) -> str | None:
    """Why this attempt must not run, or None. Looks only at the recent window."""
    window = guard.recent[-(limits.alternation_window - 1) :]
    repeats = window.count(signature)
    if repeats >= limits.identical_limit - 1:
        return (
            f"attempt {repeats + 1} of an identical action in the last {limits.alternation_window}"
        )
    if len(window) >= 3:
        a, b, c = window[-3:]
        if a == c and b == signature and a != b:
            return "A-B-A-B alternation between two actions"
    return None


def remember(guard: LoopGuardState, signature: str, window: int, blocked: bool) -> LoopGuardState:
    recent = [*guard.recent, signature][-window:]
    blocked_list = guard.blocked
    if blocked and signature not in blocked_list:
        blocked_list = [*blocked_list, signature][-10:]
    streak = guard.block_streak + 1 if blocked else 0
    return LoopGuardState(recent=recent, blocked=blocked_list, block_streak=streak)
