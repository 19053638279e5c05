"""Step N's saved context sent to a model again, with nothing executed: the recorded
answer beside the new one. Adopting the new answer forks the task at N-1 and runs it there as
step N; the task itself is never written.

The messages go out exactly as saved in artifacts/contexts, with the actions of the phase the
step ran in (the saved context's `phase`, else the task's phase before the step, else now).
A replay model answers as it did in the run: with the script's entry after the answers an
export keeps before step N (entry N-1 unless a rewind, a failed call or an interrupted step
came first), its `match:` chosen by the operator's latest decision as it stood when step N's
model was called, and read without the task's replay.pos, which stays where the run left it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from forgetui.engine.base.errors import EXIT_OK, ForgeError
from forgetui.engine.base.one_line import shown
from forgetui.engine.context import effective_phase
from forgetui.engine.folder.catalog import ActionSpec, actions_of
from forgetui.engine.folder.checkpoints import read_checkpoint
from forgetui.engine.folder.records import IntentRecord, OperatorRecord, ResultRecord
from forgetui.engine.folder.stored_args import shortened
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.history.fork_words import ADOPT_FLAGS, ForkWords
from forgetui.engine.history.replay_export import answers_before
from forgetui.engine.llm import ModelReply, ReplayModel
from forgetui.engine.llm.stream import AnswerStream
from forgetui.engine.step.runner import model_for

EXIT_CALL_FAILED = 1  # the model call failed: no answer to compare


@dataclass(frozen=True)
class _Answer:
    model: str | None
    raw_response: str | None
    action: str | None
    args: dict[str, Any]
    finish_reason: str | None
    prompt_tokens: int
    completion_tokens: int
    cost: float
    model_ms: float

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def usage(self) -> str:
        """Time, tokens and cost on one line, as both front ends show them."""
        cost = f" · ${self.cost:.4f}" if self.cost else ""
        return (
            f"{self.model_ms / 1000:.1f} s · {self.prompt_tokens:,} in"
            f" · {self.completion_tokens:,} out tokens{cost}"
        )


@dataclass(frozen=True)
class RecordedAnswer(_Answer):
    """What the run got at step N: the intent's answer and the result of running it (None while
    the step waits for approval or was interrupted)."""

    result: str | None
    summary: str | None

    def outcome(self) -> str:
        if self.result is None:
            return "no result recorded (interrupted or waiting for approval)"
        return f"{self.result}: {self.summary}" if self.summary else self.result


@dataclass(frozen=True)
class NewAnswer(_Answer):
    """The answer of the re-run: parsed as a step's would be, never executed. `error` is the
    parse error, or with `call_failed` why no answer came (timeout, HTTP 500, ...)."""

    error: str | None
    attempted: str | None  # the action an answer named whose arguments did not pass
    call_failed: bool

    def outcome(self) -> str:
        if self.call_failed:
            return f"the model call failed: {self.error}"
        if self.error and self.attempted:
            return f"invalid {shown(self.attempted)}: {self.error}"
        if self.error:
            return f"unparsed: {self.error}"
        return "not executed"


@dataclass(frozen=True)
class Rerun:
    """The `rerun --json` object: step N's recorded answer and the new one, side by side."""

    task: str
    step: int
    phase: str
    messages_tokens: int  # the context as forgetui counted it when it was sent
    recorded: RecordedAnswer
    new: NewAnswer
    reply: ModelReply = field(repr=False, compare=False)  # the new answer as the model gave it

    @property
    def same_action(self) -> bool:
        # a long argument as the log keeps it: by reference
        return self.new.action == self.recorded.action and shortened(self.new.args) == shortened(
            self.recorded.args
        )

    @property
    def different_args(self) -> list[str]:
        """The arguments (by name) whose values differ, when both answers name the same action."""
        if self.new.action != self.recorded.action:
            return []
        new, recorded = shortened(self.new.args), shortened(self.recorded.args)
        return sorted(name for name in {*new, *recorded} if new.get(name) != recorded.get(name))

    @property
    def verdict(self) -> str:
        if self.new.call_failed:
            return "no new answer"
        if self.same_action:
            return "same action"
        differ = self.different_args
        if differ:
            return f"same action {self.new.action}, different args: {', '.join(differ)}"
        return "different action"

    @property
    def not_adoptable(self) -> str | None:
        """Why the new answer cannot be adopted as a fork's step; None when it can."""
        if self.new.call_failed:
            return "the model call failed"
        if self.new.action is None:
            return "the answer names no action"
        return None

    @property
    def exit_code(self) -> int:
        """0 when an answer arrived (parsed or not), 1 when the call itself failed."""
        return EXIT_CALL_FAILED if self.new.call_failed else EXIT_OK

    def to_json(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "step": self.step,
            "phase": self.phase,
            "messages_tokens": self.messages_tokens,
            "recorded": self.recorded.to_json(),
            "new": self.new.to_json(),
            "same_action": self.same_action,
            "different_args": self.different_args,
        }


def recorded_answer(folder: TaskFolder, step: int) -> RecordedAnswer:
    """Step N's recorded answer, if it can be re-run: it reached the model, got an answer and
    its context was saved; else a ForgeError naming the step and why not."""
    where = f"task {folder.task_id}: step {step}"
    if step < 1:
        raise ForgeError(f"{where}: steps are numbered from 1")
    intent, result = _step_records(folder, step)
    if intent is None:
        last = folder.load_state().step
        known = f"steps 1 to {last}" if last else "no step has run yet"
        raise ForgeError(f"{where} is not in the log ({known})")
    if result is not None and result.transport and intent.finish_reason != "stopped":
        raise ForgeError(
            f"{where} has no answer to compare: its model call failed ({result.summary})"
        )
    if not folder.context_path(step).is_file():
        raise ForgeError(f"{where} has no saved context to send ({folder.context_path(step)})")
    return RecordedAnswer(
        model=intent.model,
        raw_response=intent.raw_response,
        action=intent.action,
        args=dict(intent.args),
        result=result.result if result is not None else None,
        summary=result.summary if result is not None else None,
        finish_reason=intent.finish_reason,
        prompt_tokens=intent.prompt_tokens,
        completion_tokens=intent.completion_tokens,
        cost=intent.cost,
        model_ms=intent.model_ms,
    )


def rerun_step(
    folder: TaskFolder,
    step: int,
    model: str,
    *,
    api_base: str | None = None,
    bounds: Mapping[str, Any] | None = None,
) -> Rerun:
    """Send step `step`'s saved messages to `model` (built as a run builds it, `bounds` being
    the model-bound flags) and parse the answer. Reads only: no lock, no file written. A call
    that fails is reported in `new.error`, never raised."""
    if model.strip() == "human":
        raise ForgeError(
            "rerun: the human model cannot answer a re-run; name a litellm model or replay:PATH"
        )
    recorded = recorded_answer(folder, step)
    saved = folder.load_saved_context(step)
    phase = _phase_of(folder, step, saved)
    llm = model_for(folder, model, api_base, **(bounds or {}))
    if isinstance(llm, ReplayModel):  # a position of its own: replay.pos is the run's
        llm = ReplayModel(llm.script_path, decision=decision_before(folder, step))
        llm.set_position(min(answers_before(folder, step), len(llm.entries)))
    messages = [{"role": m["role"], "content": m["content"]} for m in saved["messages"]]
    reply = llm.complete(messages, actions_of(phase), None)
    new = NewAnswer(
        model=reply.model or llm.name,
        raw_response=reply.raw,
        action=reply.action,
        args=dict(reply.args),
        error=reply.error,
        attempted=reply.attempted,
        call_failed=reply.transport_failed,
        finish_reason=reply.finish_reason,
        prompt_tokens=reply.prompt_tokens,
        completion_tokens=reply.completion_tokens,
        cost=reply.cost,
        model_ms=round(reply.latency_ms, 1),
    )
    return Rerun(
        task=str(folder.path),
        step=step,
        phase=phase,
        messages_tokens=int(saved.get("total_tokens") or 0),
        recorded=recorded,
        new=new,
        reply=reply,
    )


@dataclass(frozen=True)
class Adoption:
    """The fork a re-run's answer was adopted into, and how its step N went."""

    folder: Path  # the fork's task folder
    step: int
    action: str | None
    result: str
    summary: str
    status: str

    def to_json(self) -> dict[str, Any]:
        return {**self.__dict__, "folder": str(self.folder)}


class _AdoptedAnswer:
    """A model that hands out one answer already given: the re-run's, as its model parsed it."""

    def __init__(self, reply: ModelReply) -> None:
        self.reply = reply
        self.name = reply.model

    def complete(
        self,
        messages: Sequence[dict[str, str]],
        tools: Sequence[ActionSpec],
        stream: AnswerStream | None = None,
    ) -> ModelReply:
        return self.reply


def adopt_rerun(
    folder: TaskFolder, rerun: Rerun, dest: Path | str, words: ForkWords = ADOPT_FLAGS
) -> Adoption:
    """Fork the task at the end of step N-1 into the new workspace `dest` and run the re-run's
    answer there as step N (executed, verified and recorded as any step). The task itself is
    not changed, and a failure leaves no fork behind."""
    from forgetui.engine.history.fork import fork_path, fork_task, outermost_missing, undo_fork
    from forgetui.engine.step.executor import Executor

    why_not = rerun.not_adoptable
    if why_not is not None:
        raise ForgeError(f"nothing to adopt from the re-run of step {rerun.step}: {why_not}")
    dest = fork_path(dest, words.fork_dir)
    _refuse_stopped_fork(folder, rerun.step, words)
    made = outermost_missing(dest.expanduser().absolute())
    forked = fork_task(folder, rerun.step - 1, dest, words)
    try:
        fork = TaskFolder.open(forked.folder)
        with Executor(fork, _AdoptedAnswer(rerun.reply)) as executor:
            report = executor.step()
    except BaseException:
        undo_fork(forked.workspace, made)  # what fork_task made, as its own failures undo
        raise
    return Adoption(fork.path, report.step, report.action, report.result, report.summary,
                    report.status)  # fmt: skip


def _refuse_stopped_fork(folder: TaskFolder, step: int, words: ForkWords) -> None:
    """A fork at step N-1 takes no step when the task stood there on a question (step N ran
    on the operator's answer) or had ended: said before anything is made."""
    try:
        before = read_checkpoint(folder.checkpoints_dir, step - 1, folder.task_id).state
    except ForgeError:
        return  # fork_task says why it cannot fork there
    asked = before.pending_escalation
    if asked is not None:
        question = " ".join(asked.question.split())[:80]
        raise ForgeError(
            f"{words.adopt}: the task stood escalated after step {step - 1} ({asked.reason}:"
            f" {question}), so a fork there waits for an answer before step {step}; nothing"
            f" made. Fork it with {words.fork_by_hand.format(step=step - 1)}, answer it,"
            f" {words.then}"
        )
    if before.finished:
        raise ForgeError(
            f"{words.adopt}: the task was {before.status} after step {step - 1}, so a fork"
            " there takes no step; nothing made"
        )


DECIDING_OPS = ("answer", "limits")  # the operator records that add a decision to state.yaml


def decision_before(folder: TaskFolder, step: int) -> str | None:
    """The operator's latest decision when step N's model was called, which a replay script's
    `match:` keys on: the last one logged between the step before and step N's intent, else
    the latest in the state the step went on from (its checkpoint)."""
    seen_intent = False
    went_on_from: int | None = None
    for record in folder.log.iter_backwards(("intent", "result", "operator")):
        if not seen_intent:
            seen_intent = isinstance(record, IntentRecord) and record.step == step
            continue
        if isinstance(record, ResultRecord):
            went_on_from = record.step
            break
        if isinstance(record, OperatorRecord):
            if record.op in DECIDING_OPS:
                return record.text
            if record.op == "rewind":
                went_on_from = int(record.detail.get("to", 0))
                break
    if went_on_from is None:
        return None  # step 1 (or no such step): only a decision logged before it counts
    try:
        state = read_checkpoint(folder.checkpoints_dir, went_on_from, folder.task_id).state
    except ForgeError:
        return None
    return state.decisions[-1].answer if state.decisions else None


def _step_records(folder: TaskFolder, step: int) -> tuple[IntentRecord | None, ResultRecord | None]:
    """Step N's intent and result, read from the end of the log back to step N."""
    result: ResultRecord | None = None
    for record in folder.log.iter_backwards(("intent", "result")):
        if record.step == step:
            if isinstance(record, ResultRecord):
                result = result or record
            elif isinstance(record, IntentRecord):
                return record, result
        elif isinstance(record, IntentRecord) and record.step < step:
            break
    return None, None


def _phase_of(folder: TaskFolder, step: int, saved: Mapping[str, Any]) -> str:
    """The phase whose actions step N was offered: saved with its context, else the phase of
    the task before the step (checkpoint N-1), else the task's phase now."""
    phase = saved.get("phase")
    if isinstance(phase, str) and phase:
        return phase
    try:
        before = read_checkpoint(folder.checkpoints_dir, step - 1, folder.task_id).state
    except ForgeError:  # a task older than its checkpoints, or one that does not read
        before = folder.load_state()
    return effective_phase(folder, before)
