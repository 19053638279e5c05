"""The one check of an action's name and arguments against the catalog.

The parser (a model's text, a tool call, a replay script, a human's shorthand) and the executor
both call `validate_args`, so what one accepts the other runs. It is lenient where a model's
intent is obvious ("12" -> 12, "on" -> True, 42 -> "42", "A" -> ["A"], a JSON-encoded plan) and
strict where running on would only fail later (a blank path, line 0, an invalid plan)."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Sequence
from typing import Any

import yaml
from pydantic import ValidationError

from forgetui.engine.base.errors import ForgeError, first_error
from forgetui.engine.base.one_line import shown
from forgetui.engine.base.yamlio import safe_load
from forgetui.engine.folder.catalog import ACTIONS, ActionSpec, ArgSpec, ArgType
from forgetui.engine.folder.stored_args import shortened
from forgetui.engine.folder.task_spec import Plan

# The most characters one argument may hold, file text aside: a note, a command, a question or
# a plan is copied into state.yaml (the scratchpad, the commands run, an escalation), which
# must stay far under what forgetui reads back. File text is bounded by the task's
# max_write_bytes, in the write itself.
MAX_ARG_CHARS = 64 * 1024
FILE_TEXT_ARGS = frozenset((("write_file", "content"), ("edit_file", "old"), ("edit_file", "new")))
TRUE_WORDS = frozenset(("true", "yes", "on", "1"))
FALSE_WORDS = frozenset(("false", "no", "off", "0"))
_INTEGER = re.compile(r"\s*[+-]?\d+\s*")


class ActionArgsError(ForgeError):
    """Arguments that do not fit the action; recorded as a failed step, shown to the model."""

    title = "invalid action arguments"


class _Invalid(Exception):
    """One argument's problem, worded to follow "argument 'x' of 'action' ..."."""


def validate_args(action: str, args: Any, offered: Sequence[ActionSpec] = ()) -> dict[str, Any]:
    """The arguments checked against the catalog (and, if given, the actions offered now) and
    normalised; a null argument counts as absent. Raises ActionArgsError naming the problem."""
    if not isinstance(action, str) or not action.strip():
        raise ActionArgsError("the action name is missing: give `action: NAME`")
    spec = ACTIONS.get(action)
    available = ", ".join(s.name for s in offered) if offered else ", ".join(ACTIONS)
    if spec is None:  # the name is the model's: one line whatever it holds
        raise ActionArgsError(f"unknown action '{shown(action)}' (available: {available})")
    if offered and spec not in offered:
        raise ActionArgsError(f"action '{action}' is not available now (available: {available})")
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise ActionArgsError(f"args of '{action}' must be a mapping, got {_kind(args)}")
    params = {param.name: param for param in spec.params}
    unknown = [str(key) for key in args if key not in params]
    if unknown:
        raise ActionArgsError(
            f"unknown argument(s) {', '.join(repr(k) for k in unknown)} for '{action}' "
            f"(accepts {', '.join(params) or 'no arguments'})"
        )
    clean: dict[str, Any] = {}
    for key, value in args.items():
        if value is None:
            continue  # an explicit null is an omitted argument
        try:
            clean[key] = _check(params[key], value)
            if (action, key) not in FILE_TEXT_ARGS:
                _within(clean[key], MAX_ARG_CHARS)
        except _Invalid as exc:
            raise ActionArgsError(f"argument '{key}' of '{action}' {exc}") from None
    missing = [name for name in spec.required if name not in clean]
    if missing:
        raise ActionArgsError(
            f"missing required argument(s) {', '.join(repr(k) for k in missing)} for "
            f"'{action}' (signature: {spec.signature})"
        )
    start, end = clean.get("start_line"), clean.get("end_line")
    if start is not None and end is not None and end < start:
        raise ActionArgsError(f"end_line {end} is before start_line {start}")
    return clean


def action_signature(action: str, args: dict[str, Any]) -> str:
    """The loop guard's identity of an attempt: name plus sorted arguments as canonical JSON,
    a long argument by its reference, as the log keeps it (the same for the arguments a step
    has and those read back from the log, and small enough for state.yaml)."""
    present = {name: shortened(value) for name, value in args.items() if value is not None}
    canonical = json.dumps(
        present, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str
    )
    return f"{action}({canonical})"


def _check(param: ArgSpec, value: Any) -> Any:
    try:
        clean = _COERCE[param.type](value)
    except _Invalid:
        if param.type == "line" and not param.name.endswith("_line"):  # read_file's max_bytes
            raise _Invalid(f"must be a whole number, 1 or more, got {value!r}") from None
        raise
    if param.nonempty and isinstance(clean, str) and not clean.strip():
        raise _Invalid("must not be empty")
    return clean


def _within(value: Any, limit: int) -> None:
    size = len(value) if isinstance(value, str) else len(json.dumps(value, default=str))
    if size > limit:
        raise _Invalid(f"is {size:,} characters long; at most {limit:,} are accepted")


def _string(value: Any) -> str:
    if isinstance(value, str):
        return value
    if _is_scalar(value):  # a number or a flag the model meant as text
        return json.dumps(value) if isinstance(value, bool) else str(value)
    raise _Invalid(f"must be a string, got {_kind(value)}")


def _integer(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and _INTEGER.fullmatch(value):
        return int(value)
    raise _Invalid(f"must be an integer, got {value!r}")


def _line(value: Any) -> int:
    number = _integer(value)
    if number < 1:
        raise _Invalid(f"must be a line number (1 or more), got {value!r}")
    return number


def _boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | str):
        word = str(value).strip().lower()
        if word in TRUE_WORDS | FALSE_WORDS:
            return word in TRUE_WORDS
    raise _Invalid(f"must be true or false, got {value!r}")


def _command(value: Any) -> str | list[str]:
    if isinstance(value, list) and value and all(_is_scalar(item) for item in value):
        return [str(item) for item in value]
    if isinstance(value, str) and value.strip():
        return value
    raise _Invalid("must be a command string or a non-empty list of strings")


def _seconds(value: Any) -> float:
    if isinstance(value, int | float | str) and not isinstance(value, bool):
        with contextlib.suppress(ValueError):
            seconds = float(value)
            if 0 < seconds < float("inf"):
                return seconds
    raise _Invalid(f"must be a number of seconds above 0, got {value!r}")


def _string_list(value: Any) -> list[str]:
    if isinstance(value, list) and all(_is_scalar(item) for item in value):
        return [str(item) for item in value]
    if _is_scalar(value):
        return [str(value)]
    raise _Invalid(f"must be a list of strings, got {_kind(value)}")


def _plan(value: Any) -> dict[str, Any]:
    if isinstance(value, str):  # a tool-calling model may send the object JSON-encoded
        with contextlib.suppress(yaml.YAMLError):
            value = safe_load(value)  # YAML reads JSON too
    if not isinstance(value, dict):
        raise _Invalid("must be a mapping: {goal, tasks: [{title, subtasks: [{title}]}]}")
    try:
        Plan.model_validate(value)
    except ValidationError as exc:
        where, _, problem = first_error(exc)
        raise _Invalid(f"is not a valid plan: {where}: {problem}") from None
    return value


_COERCE: dict[ArgType, Callable[[Any], Any]] = {
    "string": _string,
    "line": _line,
    "boolean": _boolean,
    "command": _command,
    "string_list": _string_list,
    "plan": _plan,
    "seconds": _seconds,
}


def _is_scalar(value: Any) -> bool:
    return isinstance(value, str | int | float | bool)


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "a mapping"
    return "a list" if isinstance(value, list) else type(value).__name__
