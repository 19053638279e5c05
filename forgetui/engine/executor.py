"""One step of the agent loop (DESIGN.md section 1), crash-safe (section 3), guarded (section 6).

load state -> compile context -> one model call -> parse one action -> guard -> execute ->
verify -> record -> update working memory + state. Pause, single-step and escalation are engine
state on disk, never a parked thread: `Executor.step()` runs exactly one step and returns."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from forgetui.engine import guards
from forgetui.engine import memory as wm
from forgetui.engine.actions import (
    CONTROL_ACTIONS,
    ActionArgsError,
    ActionEnv,
    ActionOutcome,
    action_signature,
    execute,
    validate_args,
)
from forgetui.engine.answers import first_word, resolution_for
from forgetui.engine.api import context_inputs, effective_phase, verification_json
from forgetui.engine.catalog import ACTIONS, actions_of
from forgetui.engine.clock import now_iso
from forgetui.engine.context import CompiledContext, compile_context, validate_context
from forgetui.engine.errors import ForgeError
from forgetui.engine.llm import Model, ModelReply
from forgetui.engine.records import IntentRecord, OperatorRecord, ResultKind, ResultRecord
from forgetui.engine.state import (
    Decision,
    Escalation,
    EscalationReason,
    PendingAction,
    Resolution,
    TaskState,
    Verification,
)
from forgetui.engine.store import TaskFolder
from forgetui.engine.verify import run_checks

FINISHED = ("complete", "failed", "aborted")
WRITE_ACTIONS = tuple(name for name, spec in ACTIONS.items() if spec.changes_workspace)
KEEP_COMPLETED = 20
KEEP_SCRATCHPAD = 50
MEMORY_OUTPUT_CHARS = 6000


@dataclass(frozen=True)
class StepReport:
    """What one call of `Executor.step()` did: the `run --json` line of DESIGN.md section 9."""

    step: int
    action: str | None
    args: dict[str, Any]
    result: str
    summary: str
    context_tokens: int
    status: str
    verification: dict[str, Any]
    escalation: Escalation | None = None
    model_called: bool = False
    cost: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "action": self.action,
            "args": self.args,
            "result": self.result,
            "summary": self.summary,
            "context_tokens": self.context_tokens,
            "status": self.status,
            "verification": self.verification,
        }


@dataclass(frozen=True)
class StepEvent:
    """Progress inside a step, for a live display: 'context', 'model', 'execute', 'verify'."""

    step: int
    stage: str
    detail: str = ""


class StepNotAllowed(ForgeError):
    title = "cannot step"


@dataclass
class _Step:
    """Mutable scratch for one step; turned into records and a report at the end."""

    number: int
    state: TaskState
    memory: wm.WorkingMemory
    ctx: CompiledContext | None = None
    reply: ModelReply | None = None
    action: str | None = None
    args: dict[str, Any] = field(default_factory=dict)
    outcome: ActionOutcome | None = None
    result: ResultKind = "success"
    summary: str = ""
    error: str | None = None
    escalation: Escalation | None = None
    tool_ms: float = 0.0  # action + verification time, apart from the engine's own


class Executor:
    """Runs steps of one task. Holds the task's single-writer lock while it lives."""

    def __init__(
        self,
        folder: TaskFolder,
        model: Model,
        observer: Callable[[StepEvent], None] | None = None,
    ) -> None:
        self.folder = folder
        self.model = model
        self.observer = observer
        self.notices: list[str] = []
        # True while a run loop steps back to back: state.yaml then says "running" between
        # steps, so a workbench attached to this run shows what is happening.
        self.keep_running = False
        self._opened = False

    # --- lifecycle ----------------------------------------------------------------------------

    def __enter__(self) -> Executor:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def open(self) -> list[str]:
        """Take the lock and repair what a crash left; returns notices for the operator."""
        torn = self.folder.acquire(command="forgetui executor")
        self._opened = True
        notices: list[str] = []
        if torn is not None:
            notices.append(torn.describe())
        notices.extend(self._recover())
        self.notices = notices
        return notices

    def settle(self) -> None:
        """A run loop ended: a task left "running" is paused."""
        self.keep_running = False
        state = self.folder.load_state()
        if state.status == "running":
            state.status = "paused"
            self.folder.save_state(state)

    def close(self) -> None:
        if self._opened:
            self.folder.release()
            self._opened = False

    def _recover(self) -> list[str]:
        """Bring log and state into agreement after a crash."""
        state = self.folder.load_state()
        if state.status == "running":  # the run that said so is gone
            state.status = "paused"
            self.folder.save_state(state)
        logged = self.folder.log.tail(1, kinds=("result",))
        if state.last_result and (not logged or logged[0].step < state.step):
            # The step finished and state was saved, but its result never reached the log.
            self.folder.log.append(ResultRecord.model_validate(state.last_result))
            return [f"step {state.step}: result restored to the log from state.yaml"]
        last = self.folder.log.last_step_status()
        intent, result = last if last else (None, None)
        if intent is not None and result is None and intent.step == state.step + 1:
            pending = state.pending_escalation
            if (pending and pending.step == intent.step) or (
                state.resolution and state.resolution.step == intent.step
            ):
                return []  # waiting on the operator, or already answered: not interrupted
            escalation = self._escalation(
                "interrupted",
                f"Step {intent.step} ({intent.action}) was interrupted before its result was "
                "recorded. Re-run its action, or skip it?",
                intent.step,
                options=["re-run", "skip"],
                evidence=[f"intent: {intent.action} {intent.args}"],
                pending=PendingAction(action=intent.action, args=intent.args),
            )
            state = state.model_copy(
                update={"pending_escalation": escalation, "status": "escalated"}
            )
            self.folder.save_state(state)
            self._sync_model()
            return [f"step {intent.step} was interrupted: escalated (re-run or skip)"]
        self._sync_model()
        return []

    def _sync_model(self) -> None:
        """Keep a replay script's position in step with the log after a crash."""
        sync = getattr(self.model, "sync_to_log", None)
        if sync is not None:
            sync(self.folder.log)

    # --- one step ------------------------------------------------------------------------------

    def step(self, model: Model | None = None) -> StepReport:
        """Exactly one step: at most one model call, then everything recorded.

        `model` overrides the executor's model for this step (the TUI's human model: the
        operator types the action first, then the step runs with it)."""
        if model is not None:
            previous, self.model = self.model, model
            try:
                return self.step()
            finally:
                self.model = previous
        if not self._opened:
            self.open()
        state = self.folder.load_state()
        if state.status in FINISHED:
            raise StepNotAllowed(f"task is {state.status}; nothing to step")
        if state.pending_escalation is not None:
            raise StepNotAllowed(
                f"task is escalated ({state.pending_escalation.reason}): answer it first"
            )
        number = state.step + 1
        memory, _gone = wm.expire(self.folder.load_memory(), number)
        st = _Step(
            number=number, state=state.model_copy(update={"status": "running"}), memory=memory
        )
        if state.resolution is not None and state.resolution.step == number:
            return self._finish_resolution(st, state.resolution)
        limit = self._limit_reached(state)
        if limit is not None:
            return self._escalate_before_call(st, *limit)
        self._emit(number, "context")
        inputs = context_inputs(self.folder, self.model.name, state)
        ctx = compile_context(inputs)
        st.ctx = ctx
        problems = list(ctx.over_budget) or validate_context(ctx, inputs)
        if problems:
            return self._escalate_before_call(
                st,
                "over_budget",
                "The context is over budget: unpin or evict working memory, then resume.",
                problems,
            )
        context_file = self.folder.save_context(
            number,
            list(ctx.messages),
            {
                "total_tokens": ctx.total_tokens,
                "sections": {s.name: s.tokens for s in ctx.sections},
                "memory_refs": list(ctx.memory_refs),
                # the step from which each expiring item is gone, so a diff can say "expired"
                "memory_expires": {
                    item.ref: end
                    for item in memory.items
                    if (end := item.expires_at(number)) is not None
                },
            },
        )
        self._emit(number, "model", self.model.name)
        phase = effective_phase(self.folder, state)
        reply = self.model.complete(list(ctx.messages), actions_of(phase))
        st.reply = reply
        st.action = reply.action
        st.args = dict(reply.args)
        self.folder.log.append(
            IntentRecord(
                step=number,
                at=now_iso(),
                action=reply.action or "(unparsed)",
                args=st.args,
                model=reply.model,
                raw_response=reply.raw,
                context_tokens=ctx.total_tokens,
                prompt_tokens=reply.prompt_tokens,
                completion_tokens=reply.completion_tokens,
                cost=reply.cost,
                model_ms=reply.latency_ms,
                context_file=context_file,
            )
        )
        if reply.transport_failed:
            st.result, st.summary, st.error = (
                "error",
                f"model call failed: {reply.error}",
                reply.error,
            )
            st.escalation = self._escalation(
                "model_error",
                f"The model call failed after retries: {reply.error}. Retry?",
                number,
                options=["retry"],
                evidence=[reply.error or ""],
            )
            return self._record(st)
        if reply.action is None:
            st.result, st.error = "failure", reply.error or "no action in the response"
            st.summary = f"unparsed response: {st.error}"
            return self._record(st)
        if reply.action not in {spec.name for spec in actions_of(phase)}:
            st.result, st.error = "refused", f"{reply.action} is not available in phase {phase}"
            st.summary = st.error
            return self._record(st)
        return self._guard_and_run(st)

    def _guard_and_run(self, st: _Step) -> StepReport:
        assert st.action is not None
        spec = self.folder.spec
        signature = action_signature(st.action, st.args)
        reason = guards.loop_block_reason(signature, st.state.loop_guard, spec.guards)
        st.state.loop_guard = guards.remember(
            st.state.loop_guard, signature, spec.guards.alternation_window, blocked=bool(reason)
        )
        if reason:
            st.result, st.summary = "blocked", f"blocked {st.action}: {reason}"
            if st.state.loop_guard.block_streak >= spec.guards.repeated_blocks:
                evidence = self._matching_steps(signature)
                st.escalation = self._escalation(
                    "loop",
                    f"The agent keeps repeating {st.action} ({reason}). How to proceed?",
                    st.number,
                    options=["continue", "abort"],
                    evidence=evidence,
                )
            return self._record(st)
        if self._needs_approval(st.action):
            st.state.pending_escalation = self._escalation(
                "approval",
                f"Approve {st.action} {st.args}?",
                st.number,
                options=["approve", "modify", "reject"],
                pending=PendingAction(action=st.action, args=st.args),
            )
            st.state.status = "escalated"
            _add_usage(st.state, st.reply)  # the model was called; its cost counts now
            self.folder.save_state(st.state)
            return self._report(
                st, result="escalated", summary=f"waiting for approval of {st.action}"
            )
        return self._run_action(st)

    def _run_action(self, st: _Step) -> StepReport:
        assert st.action is not None
        self._emit(st.number, "execute", st.action)
        started = time.perf_counter()
        if st.action in CONTROL_ACTIONS:
            try:
                st.args = validate_args(st.action, st.args)
            except ActionArgsError as exc:
                st.result, st.error = "failure", exc.message
                st.summary = f"invalid arguments for {st.action}: {exc.message}"
                return self._record(st)
            self._control(st)
        else:
            env = ActionEnv(
                workspace=self.folder.workspace,
                spec=self.folder.spec,
                step=st.number,
                snapshot=lambda rel, before, after: self.folder.snapshot(
                    st.number, rel, before, after
                ),
                last_error=st.state.probe.last_errors[-1] if st.state.probe.last_errors else None,
                verification=st.state.verification,
            )
            outcome = execute(st.action, st.args, env)
            st.outcome = outcome
            st.result, st.summary, st.error = outcome.result, outcome.summary, outcome.error
            if outcome.note:
                st.state.scratchpad = [*st.state.scratchpad, outcome.note][-KEEP_SCRATCHPAD:]
            if outcome.memory_item is not None:
                item = outcome.memory_item.model_copy(update={"step": st.number})
                st.memory, _ = wm.add_item(st.memory, item)
            if outcome.command is not None:
                runs = [*st.state.probe.recent_commands, outcome.command][-5:]
                st.state.probe = st.state.probe.model_copy(update={"recent_commands": runs})
            if st.action == "run_check" and outcome.verification is not None:
                self._apply_verification(st, outcome.verification)
            elif outcome.changed_workspace:
                self._emit(st.number, "verify")
                self._apply_verification(
                    st,
                    run_checks(
                        self.folder.spec, self.folder.workspace, st.state.verification, st.number
                    ),
                )
        st.tool_ms = (time.perf_counter() - started) * 1000
        return self._record(st)

    # --- control actions -----------------------------------------------------------------------

    def _control(self, st: _Step) -> None:
        action, args, state = st.action, st.args, st.state
        if action == "escalate":
            question = str(args.get("question", "")).strip() or "The agent asks for help."
            options = [str(o) for o in args.get("options") or []]
            st.escalation = self._escalation("agent", question, st.number, options=options)
            st.result, st.summary = "escalated", f"asked the operator: {question}"
        elif action == "complete":
            self._complete(st)
        elif action == "mark_subtask_complete":
            self._advance_plan(st, bool(args.get("success")), str(args.get("reason", "")))
        elif action == "set_plan":
            from forgetui.engine.task import Plan

            try:
                state.plan = Plan.model_validate(args.get("plan") or args)
            except ValueError as exc:
                st.result, st.error = "failure", f"invalid plan: {str(exc).splitlines()[0]}"
                st.summary = st.error
                return
            st.summary = f"plan set: {len(state.plan.tasks)} tasks"

    def _complete(self, st: _Step) -> None:
        """`complete` ends a phase or the task. Planning hands over to execution; RED hands over
        to GREEN once the tests are seen failing; anything else ends the task once verified."""
        state = st.state
        summary = str(st.args.get("summary", "")).strip()
        if state.phase == "planning":
            self._enter_phase(st, "execution", summary)
            return
        if state.phase == "implement_red":
            failing = [
                n
                for n, c in state.verification.checks.items()
                if not c.passing and n in self._command_checks()
            ]
            if not failing:
                st.result, st.error = (
                    "refused",
                    ("RED is not shown yet: run the tests and see them fail before completing RED"),
                )
                st.summary = st.error
                return
            self._enter_phase(st, "implement_green", summary)
            return
        if not state.verification.ready_for_completion:
            failing = [n for n, c in state.verification.checks.items() if not c.passing]
            why = f"failing checks: {', '.join(failing)}" if failing else "no verification yet"
            st.result, st.error = "refused", f"complete refused: not ready ({why})"
            st.summary = st.error
            return
        state.status = "complete"
        st.summary = f"task complete: {summary}" if summary else "task complete"

    def _command_checks(self) -> set[str]:
        return {c.name for c in self.folder.spec.checks if c.kind == "command"}

    def _enter_phase(self, st: _Step, phase: str, summary: str) -> None:
        old = st.state.phase
        st.state.phase = phase
        st.summary = f"phase {old} done -> {phase}" + (f": {summary}" if summary else "")

    def _advance_plan(self, st: _Step, success: bool, reason: str) -> None:
        plan = st.state.plan
        where = plan.current() if plan else None
        if plan is None or where is None:
            st.result, st.error = "refused", "no pending subtask in the plan"
            st.summary = st.error
            return
        ti, si = where
        plan = plan.model_copy(deep=True)
        sub = plan.tasks[ti].subtasks[si]
        sub.status, sub.reason = ("done" if success else "failed"), reason or None
        st.state.plan = plan
        st.summary = f"subtask {'done' if success else 'failed'}: {sub.title}"

    # --- approvals, interruptions, limits ------------------------------------------------------

    def _needs_approval(self, action: str) -> bool:
        mode = self.folder.spec.approval
        if mode == "confirm_all":
            return action not in ("escalate",)
        return mode == "confirm_writes" and action in WRITE_ACTIONS

    def _finish_resolution(self, st: _Step, resolution: Resolution) -> StepReport:
        """Finish a step that waited: approved/modified/re-run actions execute now, without
        another model call; rejected/skipped ones are recorded as such."""
        st.state.resolution = None
        intent = self.folder.log.last_step_status()
        assert intent is not None
        st.action, st.args = intent[0].action, dict(intent[0].args)
        if resolution.kind in ("reject", "skip"):
            st.result = "refused" if resolution.kind == "reject" else "skipped"
            st.summary = (
                (
                    f"operator rejected {st.action}"
                    + (f": {resolution.reason}" if resolution.reason else "")
                )
                if resolution.kind == "reject"
                else f"operator skipped interrupted {st.action}"
            )
            return self._record(st)
        if resolution.kind == "modify" and resolution.args is not None:
            st.args = dict(resolution.args)
        if st.action not in ACTIONS:
            st.result, st.summary = "skipped", f"nothing to re-run for {st.action}"
            return self._record(st)
        return self._run_action(st)

    def _limit_reached(self, state: TaskState) -> tuple[EscalationReason, str, list[str]] | None:
        limits = self.folder.spec.limits
        max_steps = limits.max_steps + state.extra_steps
        if state.step >= max_steps:
            return (
                "max_steps",
                f"The task reached its step limit ({max_steps}). Continue for "
                f"{limits.max_steps} more steps, or abort?",
                [f"step {state.step} of {max_steps}"],
            )
        if limits.max_cost_usd is not None:
            max_cost = limits.max_cost_usd + state.extra_cost_usd
            if state.totals.cost_usd >= max_cost:
                return (
                    "max_cost",
                    f"The task reached its cost limit (${max_cost:.2f}). Continue with "
                    f"${limits.max_cost_usd:.2f} more, or abort?",
                    [f"spent ${state.totals.cost_usd:.4f}"],
                )
        return None

    def _escalate_before_call(
        self, st: _Step, reason: EscalationReason, question: str, evidence: list[str]
    ) -> StepReport:
        """Stop before the model is called: nothing was attempted, so no step is consumed."""
        st.state.pending_escalation = self._escalation(
            reason, question, st.number, options=["continue", "abort"], evidence=evidence
        )
        st.state.status = "escalated"
        self.folder.save_state(st.state)
        self.folder.save_memory(st.memory)
        return self._report(st, result="escalated", summary=question)

    def _escalation(
        self,
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

    def _matching_steps(self, signature: str) -> list[str]:
        lines = []
        for record in self.folder.log.last_intents(10):
            if action_signature(record.action, record.args) == signature:
                lines.append(f"step {record.step}: {record.action} {record.args}")
        return lines

    # --- recording -----------------------------------------------------------------------------

    def _apply_verification(self, st: _Step, verification: Verification) -> None:
        st.state.verification = verification
        if verification.regressions and st.escalation is None:
            st.escalation = self._escalation(
                "regression",
                "Verification regressed: " + "; ".join(verification.regressions),
                st.number,
                options=["continue", "abort"],
                evidence=verification.regressions,
            )

    def _record(self, st: _Step) -> StepReport:
        """Result, memory, state — in the order that lets a crash be repaired (see _recover)."""
        state = st.state
        spec = self.folder.spec
        outcome = st.outcome
        result = ResultRecord(
            step=st.number,
            at=now_iso(),
            action=st.action or "(unparsed)",
            args=st.args,
            result=st.result,
            summary=st.summary,
            error=st.error,
            output=outcome.output[:MEMORY_OUTPUT_CHARS] if outcome and outcome.output else None,
            files_changed=outcome.files_changed if outcome else [],
            snapshots=outcome.snapshots if outcome else [],
            duration_ms=round(st.tool_ms, 3),
        )
        # working memory: this step's result, FIFO
        content: dict[str, Any] = {
            "action": result.action,
            "result": result.result,
            "summary": result.summary,
        }
        if result.output and st.action in ("read_file", "search", "list_dir", "run_cmd"):
            content["output"] = result.output
        if result.error:
            content["error"] = result.error
        items = [
            i for i in st.memory.items if not (i.type == "action_result" and i.step == st.number)
        ]
        st.memory = st.memory.model_copy(update={"items": items})
        st.memory, _ = wm.add_item(
            st.memory, wm.MemoryItem(type="action_result", step=st.number, content=content)
        )
        # state
        _add_usage(state, st.reply)
        if st.ctx is not None:
            state.last_context_tokens = st.ctx.total_tokens
        failed = st.result in ("failure", "error")
        state.failed_streak = state.failed_streak + 1 if failed else 0
        self._update_progress(state, result)
        if state.failed_streak >= spec.guards.failed_approaches and st.escalation is None:
            st.escalation = self._escalation(
                "failed_approaches",
                f"{state.failed_streak} failed attempts in a row. What should the agent try?",
                st.number,
                evidence=[e for e in state.probe.last_errors],
            )
        if st.escalation is not None:
            state.pending_escalation = st.escalation
            state.status = "escalated"
        elif state.status == "running" and not self.keep_running:
            state.status = "paused"
        state.step = st.number
        state.last_result = result.model_dump(mode="json", exclude_none=True)
        self.folder.save_memory(st.memory)
        self.folder.save_state(state)
        self.folder.log.append(result)
        return self._report(st, result=st.result, summary=st.summary)

    def _update_progress(self, state: TaskState, result: ResultRecord) -> None:
        probe = state.probe
        written = probe.files_written
        for path in result.files_changed:
            written = [p for p in written if p != path] + [path]
        errors = probe.last_errors
        if result.error:
            errors = [*errors, f"step {result.step}: {result.error[:500]}"][-3:]
        missing = [
            p for p in self.folder.spec.target_files if not (self.folder.workspace / p).exists()
        ]
        state.probe = probe.model_copy(
            update={"files_written": written[-10:], "last_errors": errors, "files_missing": missing}
        )
        progress = state.progress
        completed = progress.completed
        count = progress.completed_count
        if result.result == "success" and result.action not in ("read_file", "list_dir", "search"):
            completed = [*completed, f"{result.step}: {result.summary}"][-KEEP_COMPLETED:]
            count += 1
        pending = [
            f"make check '{name}' pass"
            for name, check in state.verification.checks.items()
            if not check.passing
        ]
        objective = self.folder.spec.goal
        if state.plan and (where := state.plan.current()):
            task = state.plan.tasks[where[0]]
            objective = f"{task.title}: {task.subtasks[where[1]].title}"
            pending = [
                s.title for t in state.plan.tasks for s in t.subtasks if s.status == "pending"
            ] + pending
        state.progress = progress.model_copy(
            update={
                "completed": completed,
                "completed_count": count,
                "pending": pending[:20],
                "objective": objective,
            }
        )

    def _report(self, st: _Step, *, result: str, summary: str) -> StepReport:
        reply = st.reply
        return StepReport(
            step=st.number,
            action=st.action,
            args=st.args,
            result=result,
            summary=summary,
            context_tokens=st.ctx.total_tokens if st.ctx else 0,
            status=st.state.status,
            verification=verification_json(st.state.verification),
            escalation=st.state.pending_escalation,
            model_called=reply is not None,
            cost=reply.cost if reply else 0.0,
        )

    def _emit(self, step: int, stage: str, detail: str = "") -> None:
        if self.observer is not None:
            self.observer(StepEvent(step, stage, detail))


def _add_usage(state: TaskState, reply: ModelReply | None) -> None:
    if reply is None:
        return
    totals = state.totals
    state.totals = totals.model_copy(
        update={
            "prompt_tokens": totals.prompt_tokens + reply.prompt_tokens,
            "completion_tokens": totals.completion_tokens + reply.completion_tokens,
            "cost_usd": round(totals.cost_usd + reply.cost, 6),
            "model_calls": totals.model_calls + 1,
        }
    )


# --- the operator's side ---------------------------------------------------------------------


def answer(folder: TaskFolder, text: str) -> Decision:
    """Answer the pending escalation. The answer is an immutable decision in state.yaml, shown in
    every later context. For an approval, 'approve' / 'reject [why]' / 'modify {json args}';
    for an interrupted step, 're-run' / 'skip'."""
    text = text.strip()
    if not text:
        raise ForgeError("an answer needs some text")
    with folder.lock:
        state = folder.load_state()
        pending = state.pending_escalation
        if pending is None:
            raise ForgeError(f"task {state.task_id} has no pending escalation to answer")
        resolution = resolution_for(pending, text)
        word = first_word(text)
        status = "paused"
        if word == "abort" and pending.reason != "approval":
            status = "aborted"
        decision = Decision(step=pending.step, question=pending.question, answer=text, at=now_iso())
        update: dict[str, Any] = {
            "decisions": [*state.decisions, decision],
            "pending_escalation": None,
            "resolution": resolution,
            "status": status,
            "failed_streak": 0,
        }
        if pending.reason == "loop":
            update["loop_guard"] = state.loop_guard.model_copy(update={"block_streak": 0})
        elif status != "aborted" and pending.reason == "max_steps":
            update["extra_steps"] = state.extra_steps + folder.spec.limits.max_steps
        elif status != "aborted" and pending.reason == "max_cost":
            update["extra_cost_usd"] = state.extra_cost_usd + (folder.spec.limits.max_cost_usd or 0)
        folder.save_state(state.model_copy(update=update))
        folder.log.append(
            OperatorRecord(
                step=state.step,
                at=now_iso(),
                op="answer",
                text=text,
                detail={"reason": pending.reason},
            )
        )
    return decision
