"""The stages of one step after the model call: parse one action -> guard -> execute -> verify
-> record, and the operator's answer to a step that waited. Each works on the step's draft.
A stage that stops for the operator raises Escalate; one that ends the step without running
an action returns False, its draft saying how the step ended, and the step is recorded."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import NoReturn

from forgetui.engine.actions import (
    CONTROL_ACTIONS,
    ActionArgsError,
    ActionEnv,
    ActionOutcome,
    action_signature,
    execute,
    validate_args,
)
from forgetui.engine.base.clock import now_iso
from forgetui.engine.base.one_line import shown
from forgetui.engine.checks.verify import run_checks
from forgetui.engine.folder import commit, policy
from forgetui.engine.folder import memory as wm
from forgetui.engine.folder.catalog import ACTIONS
from forgetui.engine.folder.departures import record_departures
from forgetui.engine.folder.records import STOPPED, UNPARSED, ResultRecord
from forgetui.engine.folder.stored_args import expanded
from forgetui.engine.folder.task_folder import TaskFolder, step_name
from forgetui.engine.folder.task_state import Escalation, Verification
from forgetui.engine.integrity.recovery import landed_write
from forgetui.engine.llm import ModelReply
from forgetui.engine.operator.views import last_failure
from forgetui.engine.step import guards
from forgetui.engine.step.control import run_control
from forgetui.engine.step.draft import StepDraft
from forgetui.engine.step.escalate import Escalate
from forgetui.engine.step.progress import (
    KEEP_COMMANDS,
    KEEP_SCRATCHPAD,
    add_usage,
    remember_result,
    update_progress,
)
from forgetui.engine.step.reports import StepReport, verification_json

MEMORY_OUTPUT_CHARS = 6000

Emit = Callable[[int, str, str], None]  # (step, stage, detail): progress for a live display


# --- parse -> guard ------------------------------------------------------------------------------


def parse_action(draft: StepDraft) -> bool:
    """The one action of the answer. False when there is none to run: the operator stopped
    the answer (a pause), or it named no valid action (a failure the agent sees next step).
    A failed call raises Escalate."""
    reply = draft.reply
    assert reply is not None
    if reply.stopped:  # the operator's doing: recorded, kept from the agent, and a pause
        draft.result = "skipped"
        draft.summary = (
            f"operator stopped the answer after {reply.completion_tokens} tokens"
            " (the partial answer is in the log)"
        )
        draft.state.status = "paused"
        return False
    if reply.transport_failed:
        _call_failed(draft, reply)
    if reply.action is None:
        draft.result, draft.error = "failure", reply.error or "no action in the response"
        draft.summary = (
            f"invalid {shown(reply.attempted)}: {draft.error}"
            if reply.attempted
            else f"unparsed response: {draft.error}"
        )
        return False
    return True


def _call_failed(draft: StepDraft, reply: ModelReply) -> NoReturn:
    error = reply.error or "no answer"
    draft.result, draft.error = "error", error
    draft.summary = f"model call failed: {error}" if reply.retry_helps else error
    if reply.failure_kind == "context_window":  # the same prompt can never fit
        raise Escalate(policy.window_refused(draft.number, error))
    raise Escalate(policy.model_failed(draft.number, error, reply.retry_helps))


def guard(folder: TaskFolder, draft: StepDraft) -> bool:
    """The loop guard, then approval. False when the action is blocked as a loop (recorded,
    not run); raises Escalate when the blocks go on, or when the operator must approve."""
    assert draft.action is not None
    limits = folder.spec.guards
    signature = action_signature(draft.action, draft.args)
    reason = guards.loop_block_reason(signature, draft.state.loop_guard, limits)
    draft.state.loop_guard = guards.remember(
        draft.state.loop_guard, signature, limits.alternation_window, blocked=bool(reason)
    )
    if reason:
        draft.result, draft.summary = "blocked", f"blocked {draft.action}: {reason}"
        if draft.state.loop_guard.block_streak >= limits.repeated_blocks:
            evidence = _matching_steps(folder, signature)
            raise Escalate(policy.loop(draft.number, draft.action, reason, evidence))
        return False
    if policy.needs_approval(folder.spec, draft.action):
        approval = policy.approval(draft.number, draft.action, draft.args)
        raise Escalate(approval, ends="for_approval")
    return True


def _matching_steps(folder: TaskFolder, signature: str) -> list[str]:
    return [
        f"step {record.step}: {record.action} {record.args}"
        for record in folder.log.last_intents(10)
        if action_signature(record.action, record.args) == signature
    ]


def take_resolution(folder: TaskFolder, draft: StepDraft) -> bool:
    """The operator answered a step that waited: approved, modified or re-run actions run now,
    without another model call (True); rejected or skipped ones are recorded as such."""
    resolution = draft.state.resolution
    assert resolution is not None
    draft.state.resolution = None
    intent = folder.log.last_step_status()
    assert intent is not None
    # as the model gave them: the log keeps a long argument by reference
    draft.action, draft.args = intent[0].action, expanded(intent[0].args, folder.path)
    if resolution.kind == "reject":
        draft.result = "refused"
        why = f": {resolution.reason}" if resolution.reason else ""
        draft.summary = f"operator rejected {draft.action}{why}"
        return False
    if resolution.kind == "skip":
        draft.result, draft.summary = "skipped", f"operator skipped interrupted {draft.action}"
        return False
    if resolution.kind == "modify" and resolution.args is not None:
        draft.args = expanded(resolution.args, folder.path)
    draft.rerun = resolution.kind == "rerun"
    if draft.action not in ACTIONS:
        draft.result, draft.summary = "skipped", f"nothing to re-run for {draft.action}"
        return False
    return True


# --- execute -> verify ---------------------------------------------------------------------------


def execute_and_verify(folder: TaskFolder, draft: StepDraft, emit: Emit) -> None:
    """Run the action, then the checks if it changed the workspace, timed apart from the
    engine's own work (`tool_ms`). A regression raises Escalate once the time is kept."""
    assert draft.action is not None
    emit(draft.number, "execute", draft.action)
    started = time.perf_counter()
    if draft.action in CONTROL_ACTIONS:
        try:
            draft.args = validate_args(draft.action, draft.args)
        except ActionArgsError as exc:
            draft.result, draft.error = "failure", exc.message
            draft.summary = f"invalid arguments for {draft.action}: {exc.message}"
            return
        try:
            run_control(draft, folder.spec)
        finally:  # a control action that escalates is recorded with its time too
            draft.tool_ms = (time.perf_counter() - started) * 1000
        return
    _take_outcome(draft, outcome := _run_workspace_action(folder, draft))
    for line in outcome.undone:  # a command changed .agentforge/ (allow-list mode): undone
        emit(draft.number, "alert", f"{draft.action} changed .agentforge/, undone: {line}")
    verification = _verify(folder, draft, emit)
    draft.tool_ms = (time.perf_counter() - started) * 1000
    if verification is not None and verification.regressions:
        raise Escalate(policy.regression(draft.number, verification.regressions))


def _run_workspace_action(folder: TaskFolder, draft: StepDraft) -> ActionOutcome:
    """The action on the workspace; a re-run of a write that had landed before a crash
    records what it did instead of running again."""
    assert draft.action is not None
    landed = landed_write(folder, draft.number, draft.action, draft.args) if draft.rerun else None
    if landed is not None:
        rel, summary = landed
        snapshots = folder.snapshots_dir / step_name(draft.number)
        kept = sorted(p.relative_to(folder.path).as_posix() for p in snapshots.rglob("*"))
        return ActionOutcome(
            "success", summary, files_changed=[rel], snapshots=kept, changed_workspace=True
        )
    state = draft.state
    env = ActionEnv(
        workspace=folder.workspace,
        spec=folder.spec,
        step=draft.number,
        snapshot=lambda rel, before, after: folder.snapshot(draft.number, rel, before, after),
        discard_snapshots=folder.discard_snapshots,
        last_error=last_failure(folder, state) if draft.action == "load_context" else None,
        verification=state.verification,
        keep_check_outputs=_output_keeper(folder, draft.number),
    )
    return execute(draft.action, draft.args, env)


def _take_outcome(draft: StepDraft, outcome: ActionOutcome) -> None:
    """The outcome into the draft: its result, and the note, memory item or command it
    leaves in the state."""
    state = draft.state
    draft.outcome = outcome
    draft.result, draft.summary, draft.error = outcome.result, outcome.summary, outcome.error
    if outcome.note:
        state.notes_count = max(state.notes_count, len(state.scratchpad)) + 1
        state.scratchpad = [*state.scratchpad, outcome.note][-KEEP_SCRATCHPAD:]
    if outcome.memory_item is not None:
        item = outcome.memory_item.model_copy(update={"step": draft.number})
        draft.memory, gone = wm.add_item(draft.memory, item)
        record_departures(state, gone, draft.number)
    if outcome.command is not None:
        runs = [*state.probe.recent_commands, outcome.command][-KEEP_COMMANDS:]
        state.probe = state.probe.model_copy(update={"recent_commands": runs})


def _verify(folder: TaskFolder, draft: StepDraft, emit: Emit) -> Verification | None:
    """The step's verification: run_check's own, or the checks run after a change; None when
    nothing was verified."""
    outcome = draft.outcome
    assert outcome is not None
    if draft.action == "run_check" and outcome.verification is not None:
        verification = outcome.verification
    elif outcome.changed_workspace or _never_run(folder, draft.state.verification):
        emit(draft.number, "verify", "")
        verification = run_checks(
            folder.spec, folder.workspace, draft.state.verification, draft.number,
            keep_outputs=_output_keeper(folder, draft.number),
        )  # fmt: skip
    else:
        return None
    draft.state.verification = verification
    return verification


def _never_run(folder: TaskFolder, verification: Verification) -> bool:
    """A check with no result yet (a task made without running its checks, a check added to
    task.yaml since): run them once, so the context shows a result, not "not run"."""
    return any(check.name not in verification.checks for check in folder.spec.checks)


def _output_keeper(folder: TaskFolder, step: int) -> Callable[[dict[str, str]], None]:
    def keep(outputs: dict[str, str]) -> None:
        folder.save_check_outputs(step, outputs)

    return keep


# --- record -> update memory + state -------------------------------------------------------------


def record(folder: TaskFolder, draft: StepDraft, *, keep_running: bool) -> StepReport:
    """The result, then the memory and state it leaves, committed in the order crash
    recovery depends on (folder/commit.py)."""
    result = _result_record(draft)
    draft.memory = remember_result(draft.memory, result, draft.state)
    _update_state(folder, draft, result, keep_running=keep_running)
    commit.commit_step(folder, draft.state, draft.memory, result)
    return report(draft, result=draft.result, summary=draft.summary)


def _result_record(draft: StepDraft) -> ResultRecord:
    outcome, reply = draft.outcome, draft.reply
    return ResultRecord(
        step=draft.number,
        at=now_iso(),
        action=draft.action
        or (reply and reply.attempted)
        or (STOPPED if reply and reply.stopped else UNPARSED),
        args=draft.args,
        result=draft.result,
        summary=draft.summary,
        error=draft.error,
        output=outcome.output[:MEMORY_OUTPUT_CHARS] if outcome and outcome.output else None,
        files_changed=outcome.files_changed if outcome else [],
        snapshots=outcome.snapshots if outcome else [],
        duration_ms=round(draft.tool_ms, 3),
        redacted=outcome.redacted or None if outcome else None,
        # a failed call or a stopped answer: the operator's, not the agent's
        transport=True if reply is not None and (reply.transport_failed or reply.stopped) else None,
    )


def _update_state(
    folder: TaskFolder, draft: StepDraft, result: ResultRecord, *, keep_running: bool
) -> None:
    """What the step leaves in state.yaml: usage, streaks, progress, the loop guard's view
    of the workspace, and the status (escalated, or paused unless a run loop goes on)."""
    state = draft.state
    add_usage(state, draft.reply)
    if draft.ctx is not None:
        state.last_context_tokens = draft.ctx.request_tokens
    unparsed = False
    if not result.transport:  # the agent did not fail: it was never asked
        failed = draft.result in ("failure", "error")
        state.failed_streak = state.failed_streak + 1 if failed else 0
        unparsed = _count_unparsed(draft)
    update_progress(state, result, folder.spec, folder.workspace, draft.verified_before)
    if result.files_changed:
        state.loop_guard = guards.workspace_changed(state.loop_guard)
    if draft.escalation is None:
        draft.escalation = _streak_escalation(folder, draft, unparsed)
    if draft.escalation is not None:
        state.pending_escalation = draft.escalation
        state.status = "escalated"
    elif state.status == "running" and not keep_running:
        state.status = "paused"
    state.step = draft.number
    state.last_result = result.model_dump(mode="json", exclude_none=True)


def _count_unparsed(draft: StepDraft) -> bool:
    """Answers in a row that named no action at all; True when this one counted."""
    state, reply = draft.state, draft.reply
    if reply is None or draft.action is not None:
        state.unparsed_streak = 0
        return False
    if reply.attempted is not None or reply.stopped:
        return False  # an action with bad arguments was understood; a stop was the operator's
    state.unparsed_streak += 1
    return True


def _streak_escalation(folder: TaskFolder, draft: StepDraft, unparsed: bool) -> Escalation | None:
    """A streak this step ends in: unparseable answers first (a model that cannot write the
    answer form is not helped by "retry"), then failed attempts."""
    state = draft.state
    if unparsed and state.unparsed_streak >= policy.UNPARSED_ESCALATION:
        intents = folder.log.last_intents(policy.UNPARSED_ESCALATION)
        answers = [(intent.step, intent.raw_response) for intent in intents]
        return policy.unparseable(draft.number, state.unparsed_streak, draft.error, answers)
    if state.failed_streak >= folder.spec.guards.failed_approaches:
        errors = list(state.probe.last_errors)
        return policy.failed_approaches(draft.number, state.failed_streak, errors)
    return None


def report(draft: StepDraft, *, result: str, summary: str) -> StepReport:
    reply = draft.reply
    return StepReport(
        step=draft.number,
        action=draft.action,
        args=draft.args,
        result=result,
        summary=summary,
        context_tokens=draft.ctx.total_tokens if draft.ctx else 0,
        status=draft.state.status,
        verification=verification_json(draft.state.verification),
        escalation=draft.state.pending_escalation,
        model_called=reply is not None,
        cost=reply.cost if reply else 0.0,
    )
