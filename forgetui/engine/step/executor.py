"""One step of the agent loop, crash-safe and guarded:

load state -> compile context -> one model call -> parse one action -> guard -> execute ->
verify -> record -> update working memory + state.

Pause, single-step and escalation are engine state on disk, never a parked thread:
`Executor.step()` runs exactly one step and returns. This module holds the writer's lifecycle
and the stages that need the model; the others are in stages.py, the operator's questions in
folder/policy.py, and the order of the step's writes in folder/commit.py. A stage that stops
for the operator raises Escalate, which `step()` alone catches."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from forgetui.engine.base.clock import now_iso
from forgetui.engine.base.errors import ForgeError
from forgetui.engine.context import (
    compile_context,
    context_inputs,
    effective_phase,
    validate_context,
)
from forgetui.engine.context.compiler import compressions_of, step_exclusions
from forgetui.engine.context.inputs import asked_fit
from forgetui.engine.context.tiers import previous_tier
from forgetui.engine.folder import commit, consistency, policy
from forgetui.engine.folder import memory as wm
from forgetui.engine.folder import seal as task_seal
from forgetui.engine.folder.catalog import actions_of
from forgetui.engine.folder.departures import record_departures
from forgetui.engine.folder.policy import UNPARSED_ESCALATION
from forgetui.engine.folder.records import STOPPED, UNPARSED, IntentRecord
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.folder.task_state import TaskState, superseded_steps
from forgetui.engine.integrity.recovery import recover
from forgetui.engine.llm import Model
from forgetui.engine.llm.stream import AnswerStream, StreamProgress
from forgetui.engine.step import stages
from forgetui.engine.step.draft import StepDraft
from forgetui.engine.step.escalate import Escalate
from forgetui.engine.step.progress import add_usage
from forgetui.engine.step.reports import StepEvent, StepReport

# UNPARSED_ESCALATION is the policy's; still importable from here, where the step counts it
__all__ = ["UNPARSED_ESCALATION", "Executor", "StepNotAllowed"]


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
        state = self._state_to_step()
        draft = self._draft(state)
        try:
            if state.next_step_decided:  # the operator's answer chose it: no model call
                runs = stages.take_resolution(self.folder, draft)
            else:
                self._check_limits(draft)
                self._compile_context(draft, state)
                self._call_model(draft, state)
                runs = stages.parse_action(draft) and stages.guard(self.folder, draft)
            if runs:
                stages.execute_and_verify(self.folder, draft, self._emit)
        except Escalate as stop:
            return self._stop_for_operator(draft, stop)
        return stages.record(self.folder, draft, keep_running=self.keep_running)

    def _state_to_step(self) -> TaskState:
        """load state, refusing a task that cannot step: changed by hand, finished, or waiting
        for the operator's answer."""
        state = self.folder.load_state()
        task_seal.refuse_if_changed(self.folder.path, state, shlex.quote(str(self.folder.path)))
        if state.finished:
            raise StepNotAllowed(f"task is {state.status}; nothing to step")
        if state.pending_escalation is not None:
            raise StepNotAllowed(
                f"task is escalated ({state.pending_escalation.reason}): answer it first"
            )
        return state

    def _draft(self, state: TaskState) -> StepDraft:
        """The next step, running, with the memory items whose term ended gone (and noted)."""
        number = state.step + 1
        memory, expired = wm.expire(self.folder.load_memory(), number)
        state = state.model_copy(update={"status": "running"})
        record_departures(state, expired, number)
        return StepDraft(
            number=number,
            state=state,
            memory=memory,
            verified_before=state.verification,
        )

    def _check_limits(self, draft: StepDraft) -> None:
        limit = policy.limit_escalation(self.folder.spec, draft.state, draft.number)
        if limit is not None:
            raise Escalate(limit, ends="before_call")

    def _compile_context(self, draft: StepDraft, state: TaskState) -> None:
        """compile context, and stop before the call if it cannot be sent as it is."""
        self._emit(draft.number, "context")
        inputs = context_inputs(self.folder, self.model.name, state, fit=asked_fit(self.model))
        inputs = replace(inputs, previous_tier=previous_tier(self.folder, state))
        ctx = draft.ctx = compile_context(inputs)
        draft.state.last_context_tier = ctx.usage_tier  # saved with whatever ends the step
        if ctx.alert is not None:  # crossed into the last usage tier: said once, here
            self._emit(draft.number, "alert", ctx.alert)
        problems = list(ctx.over_budget) or validate_context(ctx, inputs)
        if ctx.window_problem is not None:  # a smaller budget cannot help: the model must change
            escalation = policy.window_too_small(draft.number, ctx.window_problem, problems)
            raise Escalate(escalation, ends="before_call")
        if problems:
            raise Escalate(policy.over_budget(draft.number, problems), ends="before_call")

    def _call_model(self, draft: StepDraft, state: TaskState) -> None:
        """one model call: the context is kept as sent, and the answer logged as the step's
        intent before anything of it runs."""
        ctx = draft.ctx
        assert ctx is not None
        phase = effective_phase(self.folder, state)
        notes = _context_notes(draft, phase)
        draft.state.departed = []  # recorded with this context from here on
        context_file = self.folder.save_context(draft.number, list(ctx.messages), notes)
        self._emit(draft.number, "model", self.model.name)
        self._answer = self._answer_stream(draft.number)
        try:
            reply = self.model.complete(list(ctx.messages), actions_of(phase), self._answer)
        finally:
            self._answer = None
        draft.reply, draft.action, draft.args = reply, reply.action, dict(reply.args)
        commit.log_intent(self.folder, _intent_record(draft, context_file, notes))

    def _stop_for_operator(self, draft: StepDraft, stop: Escalate) -> StepReport:
        """The one place an escalation ends a step: recorded with the step's result, or saved
        alone while the step waits (before the model call, or for approval)."""
        if stop.ends == "recorded":
            draft.escalation = stop.escalation
            return stages.record(self.folder, draft, keep_running=self.keep_running)
        draft.state.pending_escalation = stop.escalation
        draft.state.status = "escalated"
        if stop.ends == "before_call":  # nothing was attempted, so no step is used up
            commit.hold(self.folder, draft.state, draft.memory)
            return stages.report(draft, result="escalated", summary=stop.escalation.question)
        add_usage(draft.state, draft.reply)  # the model was called; its cost counts now
        if draft.ctx is not None:  # beside the provider's count add_usage just kept
            draft.state.last_context_tokens = draft.ctx.request_tokens
        commit.hold(self.folder, draft.state)
        summary = f"waiting for approval of {draft.action}"
        return stages.report(draft, result="escalated", summary=summary)

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


# --- what is kept of the call --------------------------------------------------------------------


def _context_notes(draft: StepDraft, phase: str) -> dict[str, Any]:
    """What the context file notes beside the messages; its exclusions and compressions go
    into the intent line too."""
    ctx, memory, number = draft.ctx, draft.memory, draft.number
    assert ctx is not None
    return {
        "phase": phase,  # the phase the step ran in (a decompose step's, say)
        "total_tokens": ctx.total_tokens,
        "max_tokens": ctx.max_tokens,  # the cap applied: max_tokens or the model's window
        "tool_tokens": ctx.tool_tokens,  # the schemas sent as tools, beside the messages
        "sections": {s.name: s.tokens for s in ctx.sections},
        "memory_refs": list(ctx.memory_refs),
        # the step from which each expiring item is gone, so a diff can say "expired"
        "memory_expires": {
            item.ref: end for item in memory.items if (end := item.expires_at(number)) is not None
        },
        # every memory item out of this context and why, what each section gave up
        "exclusions": [
            e.model_dump(exclude_none=True)
            for e in step_exclusions(ctx, memory, draft.state.departed)
        ],
        "compressions": compressions_of(ctx),
        "usage_tier": ctx.usage_tier,  # the next step's alert fires only on a crossing
    }


def _intent_record(draft: StepDraft, context_file: str, notes: dict[str, Any]) -> IntentRecord:
    reply, ctx = draft.reply, draft.ctx
    assert reply is not None and ctx is not None
    return IntentRecord(
        step=draft.number,
        at=now_iso(),
        action=reply.action or reply.attempted or (STOPPED if reply.stopped else UNPARSED),
        args=draft.args,
        model=reply.model,
        raw_response=reply.raw,
        context_tokens=ctx.total_tokens,
        prompt_tokens=reply.prompt_tokens,
        prompt_tokens_by=reply.prompt_tokens_by,
        completion_tokens=reply.completion_tokens,
        cost=reply.cost,
        model_ms=reply.latency_ms,
        finish_reason=reply.finish_reason,
        system_role=reply.system_role,
        tools_sent=reply.tools_sent or None,  # absent: not sent (or no request at all)
        tool_tokens=ctx.tool_tokens or None,
        streamed=reply.streamed or None,
        context_file=context_file,
        exclusions=notes["exclusions"] or None,  # absent when nothing is out
        compressions=notes["compressions"] or None,
    )
