"""Record -> replay: any run, a real model's included, written as a replay script, so
a good or a bad run becomes a regression test: replayed on a fresh copy of the task, it takes
the same actions and gets the same verification.

Each answer the agent acted on becomes one response. A text answer is kept as `text:` when it
parses back into the action the step recorded (so prose, fences and parse failures replay as
they were); a tool call, or an answer recorded in another form, as `action:` and `args:`.
Left out, because a replay never sees them: steps of a superseded branch (a rewind), model
calls that failed (no answer reached the agent) or answers the operator stopped, and a step
whose result was never recorded. Operator answers cannot be in a model's script: each is a
comment at its place, and must be given again when the replay stops there."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml
from pydantic import ValidationError

from forgetui.engine.base.clock import now_iso
from forgetui.engine.base.errors import ForgeError
from forgetui.engine.base.one_line import printable, shown
from forgetui.engine.base.yamlio import dump_yaml, safe_load
from forgetui.engine.folder.catalog import ACTIONS
from forgetui.engine.folder.records import UNPARSED, IntentRecord, OperatorRecord, ResultRecord
from forgetui.engine.folder.stored_args import expanded
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.folder.task_state import superseded_steps
from forgetui.engine.llm.parse import CUT, parse_text, validate_action
from forgetui.engine.llm.replay import ReplayEntry, parse_script

# operator records that answer an escalation or change a limit: a replay stops at the same
# place and needs the same answer again
ANSWER_OPS = ("answer", "approve", "reject", "modify", "retry", "rerun", "skip", "limits")
# escalations a replay does not raise again: a failed call, the server's window, a crash, the
# cost limit (a replay costs nothing)
NOT_REPLAYED = ("model_error", "context_window", "interrupted", "max_cost")


@dataclass(frozen=True)
class OperatorAnswer:
    after_step: int  # the last step recorded when it was given
    op: str
    text: str
    reason: str | None  # what had escalated (None: limits set by hand)

    @property
    def replayed(self) -> bool:
        """The replay stops here too and waits for the same answer."""
        return self.reason not in NOT_REPLAYED

    def comment(self) -> str:
        said = _one_line(self.text)
        if self.op == "limits":
            return _comment(f"after step {self.after_step}: the operator set limits: {said}")
        where = f"after step {self.after_step}: escalated ({_one_line(self.reason or 'operator')})"
        if not self.replayed:
            return _comment(f"{where}, answered {said!r}; a replay does not stop here")
        return _comment(
            f"{where}; the operator answered {said!r} - give the same answer"
            " (`forgetui answer`) when the replay stops here"
        )


@dataclass(frozen=True)
class ReplayExport:
    """The script, and what it holds and leaves out (the CLI tells the user)."""

    text: str
    task_id: str
    steps: tuple[int, ...]  # the steps whose answers are in the script, in order
    models: tuple[str, ...]
    answers: tuple[OperatorAnswer, ...]
    left_out: dict[str, list[int]] = field(default_factory=dict)  # why -> steps

    @property
    def responses(self) -> int:
        return len(self.steps)

    @property
    def step_ranges(self) -> str:
        return _ranges(self.steps)


def _one_line(text: str, limit: int = 120) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def _comment(text: str) -> str:
    """One comment line of the script, whatever the values (a model's answer, a name, a path)
    interpolated into `text` hold."""
    return f"# {printable(text)}\n"


def _is_structured(raw: str, intent: IntentRecord) -> bool:
    """An answer recorded in a form of forgetui's own: litellm_model's JSON of a tool call, or
    the replay model's YAML of an `action:` response."""
    if raw == dump_yaml({"action": intent.action, "args": intent.args}):
        return True
    if not raw.startswith("{"):
        return False
    try:
        value = json.loads(raw)
    except ValueError:
        return False
    return isinstance(value, dict) and "tool_calls" in value


def _valid(intent: IntentRecord) -> bool:
    """The step's answer named an action with arguments that passed."""
    return intent.action in ACTIONS and validate_action(intent.action, intent.args).error is None


def response_of(intent: IntentRecord) -> dict[str, Any]:
    """The script response that makes the replay model answer as this step's model did."""
    raw = intent.raw_response or ""
    valid = _valid(intent)
    # a cut answer keeps its finish reason, so it replays as refused as it was
    cut = {"finish_reason": CUT} if intent.finish_reason == CUT else {}
    if raw.strip() and not (valid and _is_structured(raw, intent)):
        parsed = parse_text(raw, finish_reason=intent.finish_reason)
        again = (parsed.action or parsed.attempted or UNPARSED, parsed.args)
        if again == (intent.action, intent.args) or not valid:
            return {"text": raw, **cut}  # parses as it did (a failure replays the same)
    if valid:
        return {"action": intent.action, "args": intent.args}
    return {"text": raw, **cut}  # an empty answer, or a tool call that did not validate


def _dump_response(response: dict[str, Any], step: int) -> str:
    """One list item, as readable as it can be and exact: `|` blocks drop trailing spaces, so
    a response that would not read back equal is written in plain quoted YAML."""
    for dump in (dump_yaml, _dump_quoted):
        try:
            text = dump([response])
            if safe_load(text) == [response]:
                return text
        except yaml.YAMLError:
            continue
    raise ForgeError(f"step {step}: the answer cannot be written as YAML that reads back equal")


def _dump_quoted(data: Any) -> str:
    return str(yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100))


def _ranges(steps: Sequence[int]) -> str:
    """1, 2, 3, 7 -> "1-3, 7"."""
    runs: list[list[int]] = []
    for step in sorted(steps):
        if runs and runs[-1][1] == step - 1:
            runs[-1][1] = step
        else:
            runs.append([step, step])
    return ", ".join(f"{a}-{b}" if a != b else f"{a}" for a, b in runs)


def export_replay(folder: TaskFolder) -> ReplayExport:
    """The task's run as a replay script (YAML text) that `load_script` accepts; a ForgeError
    when the run has no answer to export."""
    state = folder.load_state()
    superseded = superseded_steps(state.rewinds)
    blocks: list[str] = []
    steps: list[int] = []
    models: dict[str, None] = {}
    answers: list[OperatorAnswer] = []
    left_out: dict[str, list[int]] = {}
    responses: list[dict[str, Any]] = []
    for intent, result, record in _steps(folder.log.iter_records()):
        if record is not None:  # an operator record
            if record.step in superseded or record.op not in ANSWER_OPS:
                continue
            reason = record.detail.get("reason") if record.op != "limits" else None
            answer = OperatorAnswer(record.step, record.op, record.text or "", reason)
            answers.append(answer)
            blocks.append(answer.comment())
            continue
        assert intent is not None
        step = intent.step
        why = _why_left_out(step in superseded, result)
        if why is not None:
            left_out.setdefault(why, []).append(step)
            continue
        model = shown(intent.model or "model")
        models[model] = None
        action = shown(intent.action)
        said = action if _valid(intent) else f"{action}, did not run"
        response = response_of(_as_answered(intent, folder))
        blocks.append(_comment(f"step {step} ({model}): {said}") + _dump_response(response, step))
        responses.append(response)
        steps.append(step)
    if not steps:
        raise ForgeError(
            f"task {state.task_id}: no model answer to export"
            + (" (no steps recorded)" if state.step == 0 else " (every step was left out)")
        )
    header = _header(folder, steps, list(models), left_out)
    text = header + "".join(blocks)
    _check_reads_back(text, responses, steps, folder)
    return ReplayExport(text, state.task_id, tuple(steps), tuple(models), tuple(answers), left_out)


def answers_before(folder: TaskFolder, step: int) -> int:
    """The responses an export keeps before step N's own on N's branch: the script entry that
    answered step N (a replay run's position then, as the replay model counts it)."""
    before_n = [mark for mark in folder.load_state().rewinds if mark.last < step]
    superseded = superseded_steps(before_n)  # a rewind after step N left N's branch behind
    count = 0
    for intent, result, _ in _steps(folder.log.iter_records()):
        if intent is None:
            continue
        if intent.step >= step:
            break
        count += _why_left_out(intent.step in superseded, result) is None
    return count


def _check_reads_back(
    text: str, responses: list[dict[str, Any]], steps: list[int], folder: TaskFolder
) -> None:
    """The script, read as the replay model reads it, must be the exported responses one for
    one: anything else (an answer that escaped its comment, a response that reads back
    otherwise) would replay actions the run never took. A ForgeError before anything is
    written."""
    where = f"task {folder.task_id}: export-replay"
    try:
        entries = parse_script(text, folder.path / "export-replay")
    except ForgeError as exc:
        problem = shown(str(exc), 200)
        raise ForgeError(f"{where}: the script does not read back ({problem})") from None
    if len(entries) != len(responses):
        raise ForgeError(
            f"{where}: the script reads back as {len(entries)} responses, not the"
            f" {len(responses)} answers exported"
        )
    for step, entry, response in zip(steps, entries, responses, strict=True):
        if not _reads_as(entry, response):
            raise ForgeError(f"{where}: step {step}'s response does not read back as exported")


def _reads_as(entry: ReplayEntry, response: dict[str, Any]) -> bool:
    try:
        return entry == ReplayEntry.model_validate(response)
    except ValidationError:
        return False


def _as_answered(intent: IntentRecord, folder: TaskFolder) -> IntentRecord:
    """The intent with its answer and arguments whole: the log keeps a long one by reference
    (folder/stored_args.py), a script must hold it. Like every record, it holds no secret value."""
    return intent.model_copy(
        update={
            "args": expanded(intent.args, folder.path),
            "raw_response": expanded(intent.raw_response, folder.path),
        }
    )


def _why_left_out(superseded: bool, result: ResultRecord | None) -> str | None:
    """Why a replay would never see this step's answer; None when it would."""
    if superseded:
        return "superseded by a rewind"
    if result is None:
        return "no result recorded (interrupted)"
    if result.transport:
        return "the model call failed or was stopped"
    return None


def _header(
    folder: TaskFolder, steps: list[int], models: list[str], left_out: dict[str, list[int]]
) -> str:
    lines = [
        f"forgetui replay script of task {folder.task_id} ({folder.path})",
        f"exported {now_iso()}: {len(steps)} answers, steps {_ranges(steps)}, "
        f"by {', '.join(models)}",
        "replay it on a fresh copy of the task: forgetui run COPY --model replay:THIS_FILE",
    ]
    lines += [f"left out, {why}: steps {_ranges(left)}" for why, left in left_out.items()]
    return "".join(_comment(line) for line in lines)


def _steps(
    records: Iterable[Any],
) -> Iterator[tuple[IntentRecord | None, ResultRecord | None, OperatorRecord | None]]:
    """(intent, result, None) per step in log order, the result None when it never came;
    (None, None, record) per operator record, after the step it was given in (an approval
    is answered between a step's intent and its result). A step's newest intent wins (a
    re-run after a crash appends another)."""
    open_intent: IntentRecord | None = None
    held: list[OperatorRecord] = []

    def close(result: ResultRecord | None) -> Iterator[tuple[Any, Any, Any]]:
        assert open_intent is not None
        yield open_intent, result, None
        for operator in held:
            yield None, None, operator.model_copy(update={"step": open_intent.step})
        held.clear()

    for record in records:
        if isinstance(record, IntentRecord):
            if open_intent is not None and open_intent.step != record.step:
                yield from close(None)
            open_intent = record
        elif isinstance(record, ResultRecord):
            if open_intent is not None and open_intent.step == record.step:
                yield from close(record)
                open_intent = None
        elif isinstance(record, OperatorRecord):
            if open_intent is None:
                yield None, None, record
            else:
                held.append(record)
    if open_intent is not None:
        yield from close(None)
