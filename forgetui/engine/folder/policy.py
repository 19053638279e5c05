"""When a step must wait for the operator: escalations, approvals and the step and cost limits,
and the words the operator is asked in, one function per reason, so the engine that raises an
escalation never spells one out."""

from __future__ import annotations

from typing import Any

from forgetui.engine.base.clock import now_iso
from forgetui.engine.folder.catalog import ACTIONS, action_target
from forgetui.engine.folder.task_spec import TaskSpec
from forgetui.engine.folder.task_state import Escalation, EscalationReason, PendingAction, TaskState

WRITE_ACTIONS = tuple(name for name, spec in ACTIONS.items() if spec.changes_workspace)
UNPARSED_ESCALATION = 3  # unparseable answers in a row before the operator is asked
RAW_EVIDENCE_CHARS = 600  # of each raw answer, in the unparseable escalation's evidence
CONTINUE_OR_ABORT = ["continue", "abort"]

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


# --- the operator's questions, one per reason ---------------------------------------------------


def limit_escalation(spec: TaskSpec, state: TaskState, step: int) -> Escalation | None:
    """Out of steps or money, asked before the model is called."""
    reached = limit_reached(spec, state)
    if reached is None:
        return None
    reason, question, evidence = reached
    return escalation(reason, question, step, options=CONTINUE_OR_ABORT, evidence=evidence)


def window_too_small(step: int, problem: str, problems: list[str]) -> Escalation:
    """The model's window cannot hold the context: a smaller budget cannot help."""
    return escalation(
        "context_window", problem, step, options=CONTINUE_OR_ABORT, evidence=problems or [problem]
    )


def over_budget(step: int, problems: list[str]) -> Escalation:
    question = "The context is over budget: unpin or evict working memory, then resume."
    return escalation("over_budget", question, step, options=CONTINUE_OR_ABORT, evidence=problems)


def window_refused(step: int, error: str) -> Escalation:
    """The provider refused the prompt as too long: the same prompt can never fit."""
    return escalation(
        "context_window",
        f"The context does not fit the model's window: {error}. Set the task's "
        "model_options context_window (the context is then kept under it) or lower "
        "max_output_tokens or the token budgets, then continue.",
        step,
        options=CONTINUE_OR_ABORT,
        evidence=[error],
    )


def interrupted(step: int, action: str, args: dict[str, Any], done: str) -> Escalation:
    """A step a crash cut short between its intent and its result: `done` says how far it got,
    so re-running a write or a command is a choice, not a surprise."""
    return escalation(
        "interrupted",
        f"Step {step} ({action}) was interrupted before its result was recorded; {done}. "
        "Re-run its action, or skip it?",
        step,
        options=["re-run", "skip"],
        evidence=[f"intent: {action} {action_target(args)}", done],
        pending=PendingAction(action=action, args=args),
    )


def model_failed(step: int, error: str, retry_helps: bool) -> Escalation:
    """A failed model call: "retry" is offered only when another try can help."""
    if retry_helps:
        question, options = f"The model call failed: {error.rstrip('.')}. Retry?", ["retry"]
    else:
        question, options = f"{error[:1].upper()}{error[1:]}.", []
    return escalation("model_error", question, step, options=options, evidence=[error])


def loop(step: int, action: str, reason: str, evidence: list[str]) -> Escalation:
    return escalation(
        "loop",
        f"The agent keeps repeating {action} ({reason}). How to proceed?",
        step,
        options=CONTINUE_OR_ABORT,
        evidence=evidence,
    )


def approval(step: int, action: str, args: dict[str, Any]) -> Escalation:
    return escalation(
        "approval",
        " ".join(filter(None, ("Approve", action, action_target(args)))) + "?",
        step,
        options=["approve", "modify", "reject"],
        pending=PendingAction(action=action, args=args),
    )


def regression(step: int, regressions: list[str]) -> Escalation:
    return escalation(
        "regression",
        "Verification regressed: " + "; ".join(regressions),
        step,
        options=CONTINUE_OR_ABORT,
        evidence=regressions,
    )


def failed_approaches(step: int, streak: int, errors: list[str]) -> Escalation:
    return escalation(
        "failed_approaches",
        f"{streak} failed attempts in a row. What should the agent try?",
        step,
        evidence=errors,
    )


def unparseable(
    step: int, streak: int, last_error: str | None, answers: list[tuple[int, str | None]]
) -> Escalation:
    """`answers`: (step, raw answer) of the last ones, shown clipped: a model that cannot
    write the answer form will not learn it from another error line."""
    return escalation(
        "unparseable",
        f"The model's answers could not be parsed ({streak} in a row; the "
        f"last error: {_first_line(last_error)}). Change the model or its options "
        "(system_role, tools, max_output_tokens), then continue, or abort?",
        step,
        options=CONTINUE_OR_ABORT,
        evidence=[f"step {n}: {_clip_raw(raw or '(empty answer)')}" for n, raw in answers],
    )


def agent_asks(step: int, question: str, options: list[str]) -> Escalation:
    return escalation("agent", question or "The agent asks for help.", step, options=options)


def confirm_complete(step: int, summary: str) -> Escalation:
    """No check can prove the task done: the operator confirms instead of a refusal forever."""
    said = f": {summary}" if summary else ""
    return escalation(
        "confirm_complete",
        f"The agent says the task is done{said}. Accept, or keep working?",
        step,
        options=["accept", "keep working"],
    )


def _first_line(text: str | None, limit: int = 200) -> str:
    return (text or "").strip().split("\n", 1)[0][:limit]


def _clip_raw(raw: str) -> str:
    raw = raw.strip()
    if len(raw) <= RAW_EVIDENCE_CHARS:
        return raw
    return f"{raw[:RAW_EVIDENCE_CHARS]}... ({len(raw) - RAW_EVIDENCE_CHARS} more characters)"
