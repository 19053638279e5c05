"""The operator as the model: each step, a person types the action.

Accepts the shorthand `read_file path=src/app.py start_line=10` (shell quoting for spaces) as
well as the fenced YAML/JSON block every model may answer with, and holds both to the same
validation as a real model's answer.
"""

from __future__ import annotations

import re
import shlex
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import yaml

from forgetui.engine.base.yamlio import safe_load
from forgetui.engine.folder.catalog import ActionSpec
from forgetui.engine.llm.base import ModelReply
from forgetui.engine.llm.parse import ParsedAction, parse_text, validate_action
from forgetui.engine.llm.stream import AnswerStream

_SHORTHAND = re.compile(r"[A-Za-z_]\w*(\s|$)")


def parse_human(text: str, offered: Sequence[ActionSpec] = ()) -> ParsedAction:
    """`NAME key=value ...` on one line, else whatever `parse_text` accepts."""
    stripped = text.strip()
    if not stripped:
        return ParsedAction.failed("empty input: type an action, e.g. `list_dir path=.`")
    if "\n" in stripped or not _SHORTHAND.match(stripped):
        return parse_text(stripped, offered)
    try:
        name, *pairs = shlex.split(stripped)
    except ValueError as exc:
        return ParsedAction.failed(f"could not split the input: {exc}")
    args: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            return ParsedAction.failed(f"expected key=value, got {pair!r}")
        args[key] = _value(value)
    return validate_action(name, args, offered)


def _value(text: str) -> Any:
    """Lists and mappings in flow style (`options="[a, b]"`); scalars stay strings (no YAML
    `yes` -> True) and are coerced by the action's signature. An empty value stays "" (an
    edit_file deleting text has `new=`), never YAML's null, which would drop the argument."""
    if text and text[0] in "[{":
        try:
            return safe_load(text, yaml.BaseLoader)  # scalars stay str
        except yaml.YAMLError:
            return text
    return text


def read_stdin(prompt: str) -> str:
    """Prompt on stderr (stdout may carry JSON); a line opening a fence reads to its close."""
    sys.stderr.write(prompt)
    sys.stderr.flush()
    first = sys.stdin.readline()
    if not first:
        raise EOFError
    lines = [first]
    fence = first.strip()[:3]
    if fence in ("```", "~~~"):
        for line in sys.stdin:
            lines.append(line)
            if line.strip().startswith(fence):
                break
    return "".join(lines)


class HumanModel:
    name = "human"

    def __init__(self, human_input: Callable[[str], str] | None = None) -> None:
        self._input = human_input or read_stdin

    def complete(
        self,
        messages: Sequence[dict[str, str]],
        tools: Sequence[ActionSpec],
        stream: AnswerStream | None = None,
    ) -> ModelReply:
        """The operator's typed answer (`stream` is not fed: there is nothing to stream)."""
        started = time.monotonic()
        try:
            answer = self._input(self.prompt(tools))
        except EOFError:
            return ModelReply.failure("operator input closed", model=self.name)
        latency_ms = (time.monotonic() - started) * 1000
        parsed = parse_human(answer, tools)
        return ModelReply.from_parsed(parsed, answer, latency_ms=latency_ms, model=self.name)

    @staticmethod
    def prompt(tools: Sequence[ActionSpec]) -> str:
        offered = "\n".join(f"  {spec.signature:<40} {spec.description}" for spec in tools)
        return (
            f"Actions available now:\n{offered}\n"
            "Type `NAME key=value ...` or a fenced ```yaml block.\naction> "
        )
