"""The loop guard: tell a loop from work.

An action's signature is its name plus its sorted arguments. An attempt is a repeat only if no
workspace file changed since the previous identical attempt, so edit -> run tests -> edit ->
run tests is work, while the third identical read of an unchanged workspace, or an A-B-A-B
alternation with nothing changed, is a loop: blocked, not executed. Blocked signatures leave
the list as soon as a file changes."""

from __future__ import annotations

from forgetui.engine.folder.task_spec import Guards
from forgetui.engine.folder.task_state import Attempt, LoopGuardState


def loop_block_reason(signature: str, guard: LoopGuardState, limits: Guards) -> str | None:
    """Why this attempt must not run, or None. Looks only at the recent window, and only at
    the attempts made since the workspace last changed."""
    window = guard.recent[-(limits.alternation_window - 1) :]
    unchanged = [attempt for attempt in window if attempt.workspace == guard.workspace]
    repeats = sum(attempt.signature == signature for attempt in unchanged)
    if repeats >= limits.identical_limit - 1:
        return (
            f"attempt {repeats + 1} of an identical action in the last "
            f"{limits.alternation_window}, with no file changed in between"
        )
    if len(unchanged) >= 3 and unchanged[-3:] == window[-3:]:
        a, b, c = (attempt.signature for attempt in window[-3:])
        if a == c and b == signature and a != b:
            return "A-B-A-B alternation between two actions, with no file changed in between"
    return None


def remember(guard: LoopGuardState, signature: str, window: int, blocked: bool) -> LoopGuardState:
    recent = [*guard.recent, Attempt(signature=signature, workspace=guard.workspace)][-window:]
    blocked_list = guard.blocked
    if blocked and signature not in blocked_list:
        blocked_list = [*blocked_list, signature][-10:]
    streak = guard.block_streak + 1 if blocked else 0
    return guard.model_copy(
        update={"recent": recent, "blocked": blocked_list, "block_streak": streak}
    )


def workspace_changed(guard: LoopGuardState) -> LoopGuardState:
    """A step changed a file: every earlier attempt may now do something new."""
    return guard.model_copy(update={"workspace": guard.workspace + 1, "blocked": []})
