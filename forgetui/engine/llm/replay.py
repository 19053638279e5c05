"""The embedded model: replays a YAML script of responses, so samples run with no key and no
network.

A script is a list; each response is `text: "..."` (a raw answer, parsed like any model's),
`action: NAME` with `args: {...}`, or `match:` - alternatives chosen by the operator's latest
decision (the first whose `when` occurs in the answer, else the one without `when`).

The position is the number of responses handed out. It lives in `<task_dir>/replay.pos` so a
restarted run continues where it stopped. It advances when a reply is handed out, before the
executor records the step; on opening a task the executor calls `sync_to_log`, which sets it
to the number of replay replies the log holds (`set_position` does the same by hand).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    RootModel,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from forgetui.engine.base.errors import StateFileError
from forgetui.engine.base.one_line import shown
from forgetui.engine.base.yamlio import (
    atomic_write_text,
    dump_yaml,
    load_model,
    parse_yaml,
    read_text,
    validate_data,
)
from forgetui.engine.folder.action_log import ActionLog
from forgetui.engine.folder.catalog import ACTIONS, ActionSpec
from forgetui.engine.folder.records import IntentRecord
from forgetui.engine.folder.task_state import TaskState
from forgetui.engine.llm.base import ModelReply
from forgetui.engine.llm.parse import ParsedAction, parse_text, validate_action
from forgetui.engine.llm.stream import AnswerStream

POSITION_FILE = "replay.pos"
# The script ran out: retrying cannot help, another model must take over.
EXHAUSTED = (
    "the replay script has no step {step}; another model must take over"
    " (a litellm model, or the human model: you type the actions)"
)


class ReplayResponse(BaseModel):
    """One scripted answer: raw `text`, or a structured `action` checked when the script loads."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str | None = None
    action: str | None = None
    args: dict[str, Any] = Field(default_factory=dict, validate_default=True)
    # "length": the recorded answer was cut at the output cap, so it parses as the cut answer
    # did (an unended block is refused, not run half)
    finish_reason: str | None = None

    @field_validator("action")
    @classmethod
    def _known_action(cls, action: str | None) -> str | None:
        if action is not None and action not in ACTIONS:
            shown_name = {"action": shown(action)}
            raise PydanticCustomError("replay", "unknown action '{action}'", shown_name)
        return action

    @field_validator("args")
    @classmethod
    def _args_fit_action(cls, args: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
        if "action" not in info.data or info.data.get("text") is not None:
            return args  # the action or the response's kind is reported instead
        action = info.data["action"]
        if action is None:
            if args:
                raise PydanticCustomError("replay", "args given without an action")
            return args
        checked = validate_action(action, args)
        if checked.error is not None:
            raise PydanticCustomError("replay", "{error}", {"error": checked.error})
        return args

    @model_validator(mode="after")
    def _one_kind(self) -> ReplayResponse:
        if self._kinds() != 1:
            raise PydanticCustomError(
                "replay", "a response has exactly one of `text`, `action` or `match`"
            )
        return self

    def _kinds(self) -> int:
        return (self.text is not None) + (self.action is not None)

    def answer(self, offered: Sequence[ActionSpec]) -> tuple[ParsedAction, str]:
        """The parsed action and the raw text the log keeps."""
        if self.text is not None:
            return parse_text(self.text, offered, self.finish_reason), self.text
        raw = dump_yaml({"action": self.action, "args": self.args})
        return validate_action(self.action, self.args, offered), raw


class ReplayAlternative(ReplayResponse):
    when: str | None = None


class ReplayEntry(ReplayResponse):
    match: list[ReplayAlternative] | None = Field(default=None, min_length=1)

    def _kinds(self) -> int:
        return super()._kinds() + (self.match is not None)

    def choose(self, decision: str | None) -> ReplayResponse | None:
        """This response, or for `match` the alternative the latest decision selects."""
        if self.match is None:
            return self
        answer = (decision or "").casefold()
        for alternative in self.match:
            if alternative.when is not None and decision and alternative.when.casefold() in answer:
                return alternative
        return next((alt for alt in self.match if alt.when is None), None)


class ReplayScript(RootModel[list[ReplayEntry]]):
    pass


def load_script(path: Path) -> list[ReplayEntry]:
    """Read and check a script; any problem is a StateFileError naming file:line:field."""
    try:
        text = read_text(path)
    except FileNotFoundError:
        raise StateFileError(path, "replay script is missing") from None
    return parse_script(text, path)


def parse_script(text: str, path: Path) -> list[ReplayEntry]:
    """A script's text as the replay model reads it (`path` names it in errors): an export
    checks its script with this same reader."""
    data = parse_yaml(text, path, aliases=True)  # PyYAML writes &id001 for repeats
    if data is None:
        data = []
    if not isinstance(data, list):
        raise StateFileError(path, "a replay script is a list of responses", line=1)
    return validate_data(data, ReplayScript, path, text).root


class ReplayModel:
    name = "replay"

    def __init__(
        self, script: Path, task_dir: Path | None = None, *, decision: str | None = None
    ) -> None:
        """`decision`, without a task_dir: the latest decision `match:` keys on (a re-run
        gives the one its step was asked under)."""
        self.script_path = script
        self._decision = decision
        self.entries = load_script(script)
        self.task_dir = task_dir
        self._position_file = task_dir / POSITION_FILE if task_dir is not None else None
        self._position = self._read_position()

    @property
    def position(self) -> int:
        """Responses handed out so far; the next reply is entry `position` of the script."""
        return self._position

    @property
    def remaining(self) -> int:
        return max(0, len(self.entries) - self._position)

    def set_position(self, position: int) -> None:
        """Re-align with the log, e.g. after a crash between a reply and its recorded step."""
        if not 0 <= position <= len(self.entries):
            raise ValueError(f"replay position {position} outside 0..{len(self.entries)}")
        self._position = position
        if self._position_file is not None:
            atomic_write_text(self._position_file, f"{position}\n")

    rewind_to = set_position

    def sync_to_log(self, log: ActionLog, superseded: Collection[int] = frozenset()) -> None:
        """Set the position to the replies the log recorded from this model (called when the
        executor opens the task): a reply handed out just before a crash, whose step never
        reached the log, is handed out again. The replies of the `superseded` steps (branches a
        rewind left behind) do not count, so the script goes on from the step rewound to. Reads
        every intent: ~0.3 s at 10,000 steps."""
        recorded = sum(
            1
            for record in log.iter_backwards(kinds=("intent",))
            if isinstance(record, IntentRecord)
            and record.model == self.name
            and record.step not in superseded
        )
        # An exhausted script's failures are logged but never advanced the position.
        recorded = min(recorded, len(self.entries))
        if recorded != self._position:
            self.set_position(recorded)

    def complete(
        self,
        messages: Sequence[dict[str, str]],
        tools: Sequence[ActionSpec],
        stream: AnswerStream | None = None,
    ) -> ModelReply:
        """The next scripted answer, handed out whole (`stream` is not fed: it is instant)."""
        started = time.monotonic()
        if self._position >= len(self.entries):
            step = self._position + 1
            return ModelReply.failure(EXHAUSTED.format(step=step), model=self.name, retry=False)
        entry = self.entries[self._position]
        decision = self._latest_decision() if entry.match is not None else None
        response = entry.choose(decision)
        if response is None:
            parsed = ParsedAction.failed(
                f"replay: no `match` alternative fits the latest decision {decision!r}"
            )
            raw = ""
        else:
            parsed, raw = response.answer(tools)
        self.set_position(self._position + 1)
        latency_ms = (time.monotonic() - started) * 1000
        reply = ModelReply.from_parsed(parsed, raw, latency_ms=latency_ms, model=self.name)
        if response is not None and response.finish_reason is not None:
            reply = dataclasses.replace(reply, finish_reason=response.finish_reason)
        return reply

    def _read_position(self) -> int:
        if self._position_file is None or not self._position_file.is_file():
            return 0
        text = self._position_file.read_text(encoding="utf-8").strip()
        if not text.isdigit():
            raise StateFileError(self._position_file, f"not a replay position: {text[:40]!r}", 1)
        return min(int(text), len(self.entries))

    def _latest_decision(self) -> str | None:
        if self.task_dir is None:
            return self._decision
        if not (self.task_dir / "state.yaml").is_file():
            return None
        decisions = load_model(self.task_dir / "state.yaml", TaskState).decisions
        return decisions[-1].answer if decisions else None
