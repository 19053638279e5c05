"""The control actions (escalate, complete, mark_subtask_complete, set_plan): they change the
task's course rather than the workspace, so they act on the step's state, not on files."""

from __future__ import annotations

from forgetui.engine.folder import policy
from forgetui.engine.folder.catalog import PHASES
from forgetui.engine.folder.task_spec import Plan, TaskSpec
from forgetui.engine.step.draft import StepDraft
from forgetui.engine.step.escalate import Escalate


def run_control(draft: StepDraft, spec: TaskSpec) -> None:
    """Act on the step's state; `escalate`, and `complete` with no check to prove it, raise
    Escalate once the step's result is set."""
    action, args, state = draft.action, draft.args, draft.state
    if action == "escalate":
        question = str(args.get("question", "")).strip()
        options = [str(o) for o in args.get("options") or []]
        asked = policy.agent_asks(draft.number, question, options)
        draft.result, draft.summary = "escalated", f"asked the operator: {asked.question}"
        raise Escalate(asked)
    elif action == "complete":
        _complete(draft, spec)
    elif action == "mark_subtask_complete":
        _advance_plan(draft, spec, bool(args.get("success")), str(args.get("reason", "")))
    elif action == "set_plan":
        try:
            state.plan = Plan.model_validate(args.get("plan") or args)
        except ValueError as exc:
            draft.fail("failure", f"invalid plan: {str(exc).splitlines()[0]}")
            return
        draft.summary = f"plan set: {len(state.plan.tasks)} tasks"
        if state.phase == "planning":  # the plan is what planning settles: on to the work
            draft.summary += "; phase planning done -> execution"
            state.phase = "execution"


def _complete(draft: StepDraft, spec: TaskSpec) -> None:
    """`complete` ends a phase or the task. Planning hands over to execution; RED hands over
    to GREEN once the tests are seen failing; anything else ends the task once verified."""
    state = draft.state
    summary = str(draft.args.get("summary", "")).strip()
    if state.phase == "planning":
        _enter_phase(draft, "execution", summary)
        return
    if state.phase == "implement_red":
        command_checks = {c.name for c in spec.checks if c.kind == "command"}
        failing = [
            n for n, c in state.verification.checks.items() if not c.passing and n in command_checks
        ]
        if not failing:
            draft.fail(
                "refused",
                "RED is not shown yet: run the tests and see them fail before completing RED",
            )
            return
        _enter_phase(draft, "implement_green", summary)
        return
    if not spec.checks:  # nothing can prove it done: the operator confirms
        draft.result, draft.summary = "escalated", "asked the operator to confirm completion"
        raise Escalate(policy.confirm_complete(draft.number, summary))
    if not state.verification.ready_for_completion:
        failing = [n for n, c in state.verification.checks.items() if not c.passing]
        why = f"failing checks: {', '.join(failing)}" if failing else "no verification yet"
        draft.fail("refused", f"complete refused: not ready ({why})")
        return
    state.status = "complete"
    draft.summary = f"task complete: {summary}" if summary else "task complete"


def _enter_phase(draft: StepDraft, phase: str, summary: str) -> None:
    old = draft.state.phase
    draft.state.phase = phase
    draft.summary = f"phase {old} done -> {phase}" + (f": {summary}" if summary else "")


def _advance_plan(draft: StepDraft, spec: TaskSpec, success: bool, reason: str) -> None:
    plan = draft.state.plan
    where = plan.current() if plan else None
    if plan is None or where is None:
        draft.fail("refused", "no pending subtask in the plan")
        return
    ti, si = where
    plan = plan.model_copy(deep=True)
    sub = plan.tasks[ti].subtasks[si]
    sub.status, sub.reason = ("done" if success else "failed"), reason or None
    draft.state.plan = plan
    draft.summary = f"subtask {'done' if success else 'failed'}: {sub.title}"
    phases = PHASES[spec.task_type]
    if plan.current() is None and "verification" in phases and draft.state.phase != "verification":
        # A finished plan never leaves the agent stuck: prove it, then complete.
        draft.state.phase = "verification"
        draft.summary += "; plan done -> verification"
