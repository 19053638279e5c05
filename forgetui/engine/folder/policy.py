"""When a step must wait for the operator: escalations, approvals and
the step and cost limits."""

from __future__ import annotations

from forgetui.engine.base.clock import now_iso
from forgetui.engine.folder.catalog import ACTIONS
from forgetui.engine.folder.task_spec import TaskSpec
from forgetui.engine.folder.task_state import Escalation, EscalationReason, PendingAction, TaskState

WRITE_ACTIONS = tuple(name for name, spec in ACTIONS.items() if spec.changes_workspace)

Limit = tuple[EscalationReason, str, list[str]]


def escalation(
    reason: EscalationReason,
    question: str,
    step: int,
    *,
    options: list[str] | None = None,
    evidence: list[str] | None = None,
    pending: PendingAction | None = None,
) -> Escalation:
    return Escalation(
        reason=reason,
        question=question,
        options=options or [],
        evidence=evidence or [],
        pending_action=pending,
        step=step,
        raised_at=now_iso(),
    )


def needs_approval(spec: TaskSpec, action: str) -> bool:
    if spec.approval == "confirm_all":
        return action not in ("escalate",)
    return spec.approval == "confirm_writes" and action in WRITE_ACTIONS


def max_steps_of(spec: TaskSpec, state: TaskState) -> int:
    """The step limit in force: the operator's, else the task's plus what was granted."""
    if state.max_steps is not None:
        return state.max_steps
    return spec.limits.max_steps + state.extra_steps


def max_cost_of(spec: TaskSpec, state: TaskState) -> float | None:
    if state.max_cost_usd is not None:
        return state.max_cost_usd
    if spec.limits.max_cost_usd is None:
        return None
    return spec.limits.max_cost_usd + state.extra_cost_usd


def limit_reached(spec: TaskSpec, state: TaskState) -> Limit | None:
    """(reason, question, evidence) when the task is out of steps or money."""
    limits = spec.limits
    max_steps = max_steps_of(spec, state)
    if state.step >= max_steps:
        return (
            "max_steps",
            f"The task reached its step limit ({max_steps}). Continue for "
            f"{limits.max_steps} more steps (or 'continue for N more'), or abort?",
            [f"step {state.step} of {max_steps}"],
        )
    max_cost = max_cost_of(spec, state)
    if max_cost is not None and state.totals.cost_usd >= max_cost:
        more = limits.max_cost_usd or max_cost
        return (
            "max_cost",
            f"The task reached its cost limit (${max_cost:.2f}). Continue with "
            f"${more:.2f} more (or 'continue with N more'), or abort?",
            [f"spent ${state.totals.cost_usd:.4f}"],
        )
    return None
