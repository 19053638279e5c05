"""Crash recovery (DESIGN.md section 3): bring the log and state.yaml into agreement when a
writer opens a task that a crashed run left behind."""

from __future__ import annotations

from forgetui.engine import policy
from forgetui.engine.records import ResultRecord
from forgetui.engine.state import PendingAction
from forgetui.engine.store import TaskFolder


def recover(folder: TaskFolder) -> tuple[list[str], bool]:
    """Repair what a crash left; returns notices for the operator and whether a replay
    script's position must be re-synced with the log."""
    state = folder.load_state()
    if state.finished:  # the operator ended it (a waiting action's step stays unrecorded)
        return [], False
    if state.status == "running":  # the run that said so is gone
        state.status = "paused"
        folder.save_state(state)
    logged = folder.log.tail(1, kinds=("result",))
    if state.last_result and (not logged or logged[0].step < state.step):
        # The step finished and state was saved, but its result never reached the log.
        folder.log.append(ResultRecord.model_validate(state.last_result))
        return [f"step {state.step}: result restored to the log from state.yaml"], False
    last = folder.log.last_step_status()
    intent, result = last if last else (None, None)
    if intent is None or result is not None or intent.step != state.step + 1:
        return [], True
    pending = state.pending_escalation
    if (pending and pending.step == intent.step) or (
        state.resolution and state.resolution.step == intent.step
    ):
        return [], False  # waiting on the operator, or already answered: not interrupted
    escalation = policy.escalation(
        "interrupted",
        f"Step {intent.step} ({intent.action}) was interrupted before its result was "
        "recorded. Re-run its action, or skip it?",
        intent.step,
        options=["re-run", "skip"],
        evidence=[f"intent: {intent.action} {intent.args}"],
        pending=PendingAction(action=intent.action, args=intent.args),
    )
    folder.save_state(
        state.model_copy(update={"pending_escalation": escalation, "status": "escalated"})
    )
    return [f"step {intent.step} was interrupted: escalated (re-run or skip)"], True
