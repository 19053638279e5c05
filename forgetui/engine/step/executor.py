"""One step of the agent loop, crash-safe (section 3), guarded (section 6).

load state -> compile context -> one model call -> parse one action -> guard -> execute ->
verify -> record -> update working memory + state. Pause, single-step and escalation are engine
state on disk, never a parked thread: `Executor.step()` runs exactly one step and returns.
The control actions, the policy (approvals, limits), the progress bookkeeping and the report
types live in their own modules; this one holds the pipeline and the writer's lifecycle. It
runs a little over 400 lines because the pipeline reads best top to bottom as one step, in the
order crash recovery depends on."""

from __future__ import annotations

import shlex
import time
from collections.abc import Callable

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
from forgetui.engine.base.errors import ForgeError
from forgetui.engine.base.one_line import shown
from forgetui.engine.checks.verify import run_checks
from forgetui.engine.context import (
    compile_context,
    context_inputs,
    effective_phase,
    validate_context,
)
from forgetui.engine.context.compiler import compressions_of, step_exclusions
from forgetui.engine.context.inputs import asked_fit
from forgetui.engine.folder import consistency, policy
from forgetui.engine.folder import memory as wm
from forgetui.engine.folder import seal as task_seal
from forgetui.engine.folder.catalog import ACTIONS, action_target, actions_of
from forgetui.engine.folder.interrupts import interrupts_deferred
from forgetui.engine.folder.records import STOPPED, UNPARSED, IntentRecord, ResultRecord
from forgetui.engine.folder.stored_args import expanded
from forgetui.engine.folder.task_folder import TaskFolder, step_name
from forgetui.engine.folder.task_state import (
    EscalationReason,
    PendingAction,
    Resolution,
    Verification,
    superseded_steps,
)
from forgetui.engine.integrity.recovery import landed_write, recover
from forgetui.engine.llm import Model
from forgetui.engine.llm.stream import AnswerStream, StreamProgress
from forgetui.engine.operator.views import last_failure
from forgetui.engine.step import guards
from forgetui.engine.step.control import run_control
from forgetui.engine.step.draft import StepDraft
from forgetui.engine.step.progress import (
    KEEP_COMMANDS,
    KEEP_SCRATCHPAD,
    add_usage,
    remember_result,
    update_progress,
)
from forgetui.engine.step.reports import StepEvent, StepReport, verification_json

MEMORY_OUTPUT_CHARS = 6000
UNPARSED_ESCALATION = 3  # unparseable answers in a row before the operator is asked
RAW_EVIDENCE_CHARS = 600  # of each raw answer, in the escalation's evidence


def _first_line(text: str | None, limit: int = 200) -> str:
    return (text or "").strip().split("\n", 1)[0][:limit]


def _clip_raw(raw: str) -> str:
    raw = raw.strip()
    if len(raw) <= RAW_EVIDENCE_CHARS:
        return raw
    return f"{raw[:RAW_EVIDENCE_CHARS]}... ({len(raw) - RAW_EVIDENCE_CHARS} more characters)"


class StepNotAllowed(ForgeError):
    title = "cannot step"


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
        """Take the lock, check the files agree and repair what a crash left; returns notices
        for the operator. Whatever raises on the way releases the lock (`with Executor(...)`
        never reaches __exit__ when __enter__ raises)."""
        self.folder.lock.acquire()  # names the command: `forgetui run ...`, `forgetui open ...`
        try:
            notices: list[str] = []
            # checked first: a log refused for another bad line keeps its torn tail in place,
            # so a refusal changes no byte (the check already reads past a torn last line)
            consistency.check(self.folder)
            torn = self.folder.log.repair()
            if torn is not None:
                notices.append(torn.describe())
            repaired, resync = recover(self.folder)
            notices.extend(repaired)
            notices.extend(self._sealed())
            if resync:
                self._sync_model()
        except BaseException:
            self.folder.release()
            raise
        self._opened = True
        self.notices = notices
        return notices

    def _sealed(self) -> list[str]:
        """A task laid out before task.yaml was sealed is sealed now, as it stands; a sealed
        one must still match its seal."""
        state = self.folder.load_state()
        if state.task_sha256 is not None:
            task_seal.refuse_if_changed(self.folder.path, state, shlex.quote(str(self.folder.path)))
            return []
        sealed, record = task_seal.accepted(self.folder.path, state)
        self.folder.save_state(sealed)
        if record is not None:
            self.folder.log.append(record)
        return [
            "task.yaml sealed: a later change to it stops the run until the operator "
            "accepts it (forgetui accept-task-change)"
        ]

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

    def _sync_model(self) -> None:
        """Keep a replay script's position in step with the log after a crash."""
        sync = getattr(self.model, "sync_to_log", None)
        if sync is not None:
            sync(self.folder.log, superseded_steps(self.folder.load_state().rewinds))

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
        task_seal.refuse_if_changed(self.folder.path, state, shlex.quote(str(self.folder.path)))
        if state.finished:
            raise StepNotAllowed(f"task is {state.status}; nothing to step")
        if state.pending_escalation is not None:
            raise StepNotAllowed(
                f"task is escalated ({state.pending_escalation.reason}): answer it first"
            )
        number = state.step + 1
        memory, expired = wm.expire(self.folder.load_memory(), number)
        departed = wm.departed_with(state.departed, expired, number)
        draft = StepDraft(
            number=number,
            state=state.model_copy(update={"status": "running", "departed": departed}),
            memory=memory,
            verified_before=state.verification,
        )
        if state.next_step_decided:
            assert state.resolution is not None
            return self._finish_resolution(draft, state.resolution)
        limit = policy.limit_reached(self.folder.spec, state)
        if limit is not None:
            return self._escalate_before_call(draft, *limit)
        self._emit(number, "context")
        inputs = context_inputs(self.folder, self.model.name, state, fit=asked_fit(self.model))
        ctx = compile_context(inputs)
        draft.ctx = ctx
        problems = list(ctx.over_budget) or validate_context(ctx, inputs)
        if ctx.window_problem is not None:  # a smaller budget cannot help: the model must change
            return self._escalate_before_call(
                draft, "context_window", ctx.window_problem, problems or [ctx.window_problem]
            )
        if problems:
            return self._escalate_before_call(
                draft,
                "over_budget",
                "The context is over budget: unpin or evict working memory, then resume.",
                problems,
            )
        phase = effective_phase(self.folder, state)
        exclusions = [
            e.model_dump(exclude_none=True)
            for e in step_exclusions(ctx, memory, draft.state.departed)
        ]
        compressions = compressions_of(ctx)
        draft.state.departed = []  # recorded with this context from here on
        context_file = self.folder.save_context(
            number,
            list(ctx.messages),
            {
                "phase": phase,  # the phase the step ran in (a decompose step's, say)
                "total_tokens": ctx.total_tokens,
                "max_tokens": ctx.max_tokens,  # the cap applied: max_tokens or the model's window
                "tool_tokens": ctx.tool_tokens,  # the schemas sent as tools, beside the messages
                "sections": {s.name: s.tokens for s in ctx.sections},
                "memory_refs": list(ctx.memory_refs),
                # the step from which each expiring item is gone, so a diff can say "expired"
                "memory_expires": {
                    item.ref: end
                    for item in memory.items
                    if (end := item.expires_at(number)) is not None
                },
                # every memory item out of this context and why, what each section gave up
                "exclusions": exclusions,
                "compressions": compressions,
            },
        )
        self._emit(number, "model", self.model.name)
        self._answer = self._answer_stream(number)
        try:
            reply = self.model.complete(list(ctx.messages), actions_of(phase), self._answer)
        finally:
            self._answer = None
        draft.reply = reply
        draft.action = reply.action
        draft.args = dict(reply.args)
        self.folder.log.append(
            IntentRecord(
                step=number,
                at=now_iso(),
                action=reply.action or reply.attempted or (STOPPED if reply.stopped else UNPARSED),
                args=draft.args,
                model=reply.model,
                raw_response=reply.raw,
                context_tokens=ctx.total_tokens,
                prompt_tokens=reply.prompt_tokens,
                completion_tokens=reply.completion_tokens,
                cost=reply.cost,
                model_ms=reply.latency_ms,
                finish_reason=reply.finish_reason,
                system_role=reply.system_role,
                tools_sent=reply.tools_sent or None,  # absent: not sent (or no request at all)
                tool_tokens=ctx.tool_tokens or None,
                streamed=reply.streamed or None,
                context_file=context_file,
                exclusions=exclusions or None,  # absent when nothing is out
                compressions=compressions or None,
            )
        )
        if reply.stopped:  # the operator's doing: recorded, kept from the agent, and a pause
            draft.result = "skipped"
            draft.summary = (
                f"operator stopped the answer after {reply.completion_tokens} tokens"
                " (the partial answer is in the log)"
            )
            draft.state.status = "paused"
            return self._record(draft)
        if reply.transport_failed:
            error = reply.error or "no answer"
            if reply.retry_helps:
                draft.summary = f"model call failed: {error}"
                question, options = (
                    f"The model call failed: {error.rstrip('.')}. Retry?",
                    ["retry"],
                )
            else:
                draft.summary = error
                question, options = f"{error[:1].upper()}{error[1:]}.", []
            draft.result, draft.error = "error", error
            if reply.failure_kind == "context_window":  # the same prompt can never fit
                draft.escalation = policy.escalation(
                    "context_window",
                    f"The context does not fit the model's window: {error}. Set the task's "
                    "model_options context_window (the context is then kept under it) or lower "
                    "max_output_tokens or the token budgets, then continue.",
                    number,
                    options=["continue", "abort"],
                    evidence=[error],
                )
                return self._record(draft)
            draft.escalation = policy.escalation(
                "model_error", question, number, options=options, evidence=[error]
            )
            return self._record(draft)
        if reply.action is None:
            draft.result, draft.error = "failure", reply.error or "no action in the response"
            draft.summary = (
                f"invalid {shown(reply.attempted)}: {draft.error}"
                if reply.attempted
                else f"unparsed response: {draft.error}"
            )
            return self._record(draft)
        return self._guard_and_run(draft)

    def _guard_and_run(self, draft: StepDraft) -> StepReport:
        assert draft.action is not None
        spec = self.folder.spec
        signature = action_signature(draft.action, draft.args)
        reason = guards.loop_block_reason(signature, draft.state.loop_guard, spec.guards)
        draft.state.loop_guard = guards.remember(
            draft.state.loop_guard, signature, spec.guards.alternation_window, blocked=bool(reason)
        )
        if reason:
            draft.result, draft.summary = "blocked", f"blocked {draft.action}: {reason}"
            if draft.state.loop_guard.block_streak >= spec.guards.repeated_blocks:
                draft.escalation = policy.escalation(
                    "loop",
                    f"The agent keeps repeating {draft.action} ({reason}). How to proceed?",
                    draft.number,
                    options=["continue", "abort"],
                    evidence=self._matching_steps(signature),
                )
            return self._record(draft)
        if policy.needs_approval(spec, draft.action):
            draft.state.pending_escalation = policy.escalation(
                "approval",
                " ".join(filter(None, ("Approve", draft.action, action_target(draft.args)))) + "?",
                draft.number,
                options=["approve", "modify", "reject"],
                pending=PendingAction(action=draft.action, args=draft.args),
            )
            draft.state.status = "escalated"
            add_usage(draft.state, draft.reply)  # the model was called; its cost counts now
            if draft.ctx is not None:  # beside the provider's count add_usage just kept
                draft.state.last_context_tokens = draft.ctx.request_tokens
            self.folder.save_state(draft.state)
            return self._report(
                draft, result="escalated", summary=f"waiting for approval of {draft.action}"
            )
        return self._run_action(draft)

    def _run_action(self, draft: StepDraft) -> StepReport:
        assert draft.action is not None
        self._emit(draft.number, "execute", draft.action)
        started = time.perf_counter()
        if draft.action in CONTROL_ACTIONS:
            try:
                draft.args = validate_args(draft.action, draft.args)
            except ActionArgsError as exc:
                draft.result, draft.error = "failure", exc.message
                draft.summary = f"invalid arguments for {draft.action}: {exc.message}"
                return self._record(draft)
            run_control(draft, self.folder.spec)
        else:
            self._run_workspace_action(draft)
        draft.tool_ms = (time.perf_counter() - started) * 1000
        return self._record(draft)

    def _run_workspace_action(self, draft: StepDraft) -> None:
        assert draft.action is not None
        state = draft.state

        def keep_outputs(outputs: dict[str, str]) -> None:
            self.folder.save_check_outputs(draft.number, outputs)

        env = ActionEnv(
            workspace=self.folder.workspace,
            spec=self.folder.spec,
            step=draft.number,
            snapshot=lambda rel, before, after: self.folder.snapshot(
                draft.number, rel, before, after
            ),
            last_error=last_failure(self.folder, state) if draft.action == "load_context" else None,
            verification=state.verification,
            keep_check_outputs=keep_outputs,
        )
        landed = (
            landed_write(self.folder, draft.number, draft.action, draft.args)
            if draft.rerun
            else None
        )
        if landed is not None:
            rel, summary = landed
            snapshots = self.folder.snapshots_dir / step_name(draft.number)
            kept = sorted(p.relative_to(self.folder.path).as_posix() for p in snapshots.rglob("*"))
            outcome = ActionOutcome(
                "success", summary, files_changed=[rel], snapshots=kept, changed_workspace=True
            )
        else:
            outcome = execute(draft.action, draft.args, env)
        draft.outcome = outcome
        draft.result, draft.summary, draft.error = outcome.result, outcome.summary, outcome.error
        if outcome.note:
            state.scratchpad = [*state.scratchpad, outcome.note][-KEEP_SCRATCHPAD:]
        if outcome.memory_item is not None:
            item = outcome.memory_item.model_copy(update={"step": draft.number})
            draft.memory, gone = wm.add_item(draft.memory, item)
            state.departed = wm.departed_with(state.departed, gone, draft.number)
        if outcome.command is not None:
            runs = [*state.probe.recent_commands, outcome.command][-KEEP_COMMANDS:]
            state.probe = state.probe.model_copy(update={"recent_commands": runs})
        if draft.action == "run_check" and outcome.verification is not None:
            self._apply_verification(draft, outcome.verification)
        elif outcome.changed_workspace:
            self._emit(draft.number, "verify")
            verification = run_checks(
                self.folder.spec, self.folder.workspace, state.verification, draft.number,
                keep_outputs=keep_outputs,
            )  # fmt: skip
            self._apply_verification(draft, verification)

    # --- waiting on the operator ---------------------------------------------------------------

    def _finish_resolution(self, draft: StepDraft, resolution: Resolution) -> StepReport:
        """Finish a step that waited: approved/modified/re-run actions execute now, without
        another model call; rejected/skipped ones are recorded as such."""
        draft.state.resolution = None
        intent = self.folder.log.last_step_status()
        assert intent is not None
        # as the model gave them: the log keeps a long argument by reference
        draft.action, draft.args = intent[0].action, expanded(intent[0].args, self.folder.path)
        if resolution.kind == "reject":
            draft.result = "refused"
            why = f": {resolution.reason}" if resolution.reason else ""
            draft.summary = f"operator rejected {draft.action}{why}"
            return self._record(draft)
        if resolution.kind == "skip":
            draft.result = "skipped"
            draft.summary = f"operator skipped interrupted {draft.action}"
            return self._record(draft)
        if resolution.kind == "modify" and resolution.args is not None:
            draft.args = expanded(resolution.args, self.folder.path)
        draft.rerun = resolution.kind == "rerun"
        if draft.action not in ACTIONS:
            draft.result, draft.summary = "skipped", f"nothing to re-run for {draft.action}"
            return self._record(draft)
        return self._run_action(draft)

    def _escalate_before_call(
        self, draft: StepDraft, reason: EscalationReason, question: str, evidence: list[str]
    ) -> StepReport:
        """Stop before the model is called: nothing was attempted, so no step is consumed."""
        draft.state.pending_escalation = policy.escalation(
            reason, question, draft.number, options=["continue", "abort"], evidence=evidence
        )
        draft.state.status = "escalated"
        self.folder.save_state(draft.state)
        self.folder.save_memory(draft.memory)
        return self._report(draft, result="escalated", summary=question)

    def _matching_steps(self, signature: str) -> list[str]:
        return [
            f"step {record.step}: {record.action} {record.args}"
            for record in self.folder.log.last_intents(10)
            if action_signature(record.action, record.args) == signature
        ]

    # --- recording -----------------------------------------------------------------------------

    def _apply_verification(self, draft: StepDraft, verification: Verification) -> None:
        draft.state.verification = verification
        if verification.regressions and draft.escalation is None:
            draft.escalation = policy.escalation(
                "regression",
                "Verification regressed: " + "; ".join(verification.regressions),
                draft.number,
                options=["continue", "abort"],
                evidence=verification.regressions,
            )

    def _record(self, draft: StepDraft) -> StepReport:
        """Result, memory, state — in the order that lets a crash be repaired (recovery.py)."""
        state = draft.state
        spec = self.folder.spec
        outcome = draft.outcome
        result = ResultRecord(
            step=draft.number,
            at=now_iso(),
            action=draft.action
            or (draft.reply and draft.reply.attempted)
            or (STOPPED if draft.reply and draft.reply.stopped else UNPARSED),
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
            transport=True
            if draft.reply is not None and (draft.reply.transport_failed or draft.reply.stopped)
            else None,
        )
        draft.memory = remember_result(draft.memory, result, state)
        # state
        add_usage(state, draft.reply)
        if draft.ctx is not None:
            state.last_context_tokens = draft.ctx.request_tokens
        if not result.transport:  # the agent did not fail: it was never asked
            failed = draft.result in ("failure", "error")
            state.failed_streak = state.failed_streak + 1 if failed else 0
            self._count_unparsed(draft)
        update_progress(state, result, spec, self.folder.workspace, draft.verified_before)
        if result.files_changed:
            state.loop_guard = guards.workspace_changed(state.loop_guard)
        if state.failed_streak >= spec.guards.failed_approaches and draft.escalation is None:
            draft.escalation = policy.escalation(
                "failed_approaches",
                f"{state.failed_streak} failed attempts in a row. What should the agent try?",
                draft.number,
                evidence=list(state.probe.last_errors),
            )
        if draft.escalation is not None:
            state.pending_escalation = draft.escalation
            state.status = "escalated"
        elif state.status == "running" and not self.keep_running:
            state.status = "paused"
        state.step = draft.number
        state.last_result = result.model_dump(mode="json", exclude_none=True)
        with interrupts_deferred():  # the three files describe the same last step
            # what a rewind to this step restores; first, so state.yaml's fsync commits it
            self.folder.save_checkpoint(draft.number, state, draft.memory)
            self.folder.save_memory(draft.memory)
            self.folder.save_state(state)
            self.folder.log.append(result)
        return self._report(draft, result=draft.result, summary=draft.summary)

    def _count_unparsed(self, draft: StepDraft) -> None:
        """Answers in a row that named no action at all. After UNPARSED_ESCALATION of them the
        operator is asked, with the raw answers to look at: a model that cannot write the
        answer form will not learn it from another error line, and "retry" cannot help."""
        state, reply = draft.state, draft.reply
        if reply is None or draft.action is not None:
            state.unparsed_streak = 0
            return
        if reply.attempted is not None or reply.stopped:
            return  # an action with bad arguments was understood; a stop was the operator's
        state.unparsed_streak += 1
        if state.unparsed_streak < UNPARSED_ESCALATION or draft.escalation is not None:
            return
        evidence = [
            f"step {intent.step}: {_clip_raw(intent.raw_response or '(empty answer)')}"
            for intent in self.folder.log.last_intents(UNPARSED_ESCALATION)
        ]
        draft.escalation = policy.escalation(
            "unparseable",
            f"The model's answers could not be parsed ({state.unparsed_streak} in a row; the "
            f"last error: {_first_line(draft.error)}). Change the model or its options "
            "(system_role, tools, max_output_tokens), then continue, or abort?",
            draft.number,
            options=["continue", "abort"],
            evidence=evidence,
        )

    def _report(self, draft: StepDraft, *, result: str, summary: str) -> StepReport:
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

    # --- a streamed answer ----------------------------------------------------------------------

    _answer: AnswerStream | None = None  # the answer in flight, while the model is called

    def stop_answer(self) -> bool:
        """Stop the answer in flight (from any thread, or a signal handler: no lock is taken);
        True if there was one. The model returns what had arrived, recorded as stopped."""
        answer = self._answer
        if answer is None:
            return False
        answer.request_stop()
        return True

    def _answer_stream(self, number: int) -> AnswerStream:
        """The answer as it arrives, to the observer as 'answer' events (the text so far)."""

        def show(progress: StreamProgress) -> None:
            if self.observer is not None:
                self.observer(
                    StepEvent(number, "answer", progress.text, progress.tokens, progress.elapsed_s)
                )

        return AnswerStream(show)

    def _emit(self, step: int, stage: str, detail: str = "") -> None:
        if self.observer is not None:
            self.observer(StepEvent(step, stage, detail))
