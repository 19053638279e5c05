"""Turn a model's answer into one validated action (DESIGN.md section 6).

Models without tool calling answer with one fenced YAML or JSON block `{action: NAME, args:
{...}}`; a tool call arrives as a name and a JSON string. Both end in `validate_action`, so a
replay script, a human and a real model are held to the same rules. Every failure is a short
sentence the next context shows the model as its last result.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml

from forgetui.engine.actions.args import ActionArgsError, validate_args
from forgetui.engine.catalog import ActionSpec, ArgType
from forgetui.engine.yamlio import safe_load

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<ticks>`{3,}|~{3,})[ \t]*(?P<lang>[\w+-]*)[^\n`]*$")
_BLOCK_LANGS = {"", "yaml", "yml", "json", "json5", "jsonc"}
# A JSON answer can spell a lone surrogate ("\ud800"): no file, log or YAML can hold it.
_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class ParsedAction:
    """An action that passed validation, or the reason it did not (`error` set, `action` None)."""

    action: str | None
    args: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    # the action the model named when its arguments (or the name itself) did not pass: the log
    # shows what it tried rather than "(unparsed)"
    attempted: str | None = None

    @classmethod
    def failed(cls, error: str) -> ParsedAction:
        return cls(None, {}, error)


def parse_text(text: str, offered: Sequence[ActionSpec] = ()) -> ParsedAction:
    """A plain-text answer: exactly one action block, fenced or bare."""
    candidates, malformed = _action_objects(text)
    if len(candidates) > 1:
        return ParsedAction.failed(
            f"found {len(candidates)} action blocks; answer with exactly one action per step"
        )
    if not candidates:
        if malformed:
            return ParsedAction.failed(malformed)
        return ParsedAction.failed(
            "no action block found: answer with one fenced ```yaml block "
            "holding {action: NAME, args: {...}}"
        )
    return validate_object(candidates[0], offered)


def parse_tool_call(
    name: str, arguments: str | dict[str, Any] | None, offered: Sequence[ActionSpec] = ()
) -> ParsedAction:
    """A tool call: the function name and its JSON-encoded arguments."""
    if isinstance(arguments, dict):
        args: Any = arguments
    elif not arguments or not arguments.strip():
        args = {}
    else:
        try:
            args = json.loads(arguments)
        except ValueError as exc:
            return ParsedAction.failed(f"arguments of tool call '{name}' are not valid JSON: {exc}")
    return validate_action(name, args, offered)


def validate_object(obj: dict[str, Any], offered: Sequence[ActionSpec] = ()) -> ParsedAction:
    """`{action: NAME, args: {...}}`; arguments written beside `action` are accepted too."""
    name = obj.get("action")
    if "args" in obj:
        extra = sorted(str(key) for key in obj if key not in ("action", "args"))
        if extra:
            return ParsedAction.failed(
                f"unexpected key(s) {', '.join(extra)} beside 'action' and 'args'"
            )
        args = obj["args"]
    else:
        args = {key: value for key, value in obj.items() if key != "action"}
    return validate_action(name, args, offered)


def validate_action(name: Any, args: Any, offered: Sequence[ActionSpec] = ()) -> ParsedAction:
    """Check the name against the catalog (and the actions offered now) and the arguments
    against the action's signature, coercing the obvious: "12" -> 12, "true" -> True. The
    executor runs the same check (`validate_args`), so what passes here runs there."""
    if isinstance(name, str):
        name = name.strip()
    try:
        clean = validate_args(name, args, offered)
    except ActionArgsError as exc:
        attempted = _writable(name[:80]) if isinstance(name, str) and name else None
        return ParsedAction(None, {}, exc.message, attempted=attempted)
    return ParsedAction(name, _writable(clean))


def _writable(value: Any) -> Any:
    """`value` with every lone surrogate replaced by U+FFFD, so the action can be recorded."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_writable(key): _writable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_writable(item) for item in value]
    return value


def _action_objects(text: str) -> tuple[list[dict[str, Any]], str | None]:
    """Every `{action: ...}` object in the answer, and why a likely block failed to load.

    Fenced blocks are looked at first; only without any fence is the whole answer (or the first
    bare JSON object in it) tried, so prose around a block never counts as a second block.
    """
    blocks = _fenced_blocks(text)
    found: list[dict[str, Any]] = []
    malformed: str | None = None
    for lang, body in blocks:
        if lang.lower() not in _BLOCK_LANGS:
            continue
        obj, problem = _load_mapping(body)
        if obj is not None and "action" in obj:
            found.append(obj)
        elif problem and malformed is None and "action" in body:
            malformed = f"the action block does not parse: {problem}"
    if blocks:
        return found, malformed
    obj, problem = _load_mapping(text)
    if obj is not None and "action" in obj:
        return [obj], None
    bare = _first_json_object(text)
    if bare is not None:
        return [bare], None
    if problem and "action" in text:
        malformed = f"the action block does not parse: {problem}"
    return [], malformed


def _fenced_blocks(text: str) -> list[tuple[str, str]]:
    """(language, body) of each fenced block; a fence closes only at its own indentation, so
    fences inside an indented YAML block scalar (file content) stay content."""
    blocks: list[tuple[str, str]] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        indent, ticks = opening["indent"], opening["ticks"]
        closing = re.compile(rf"^{re.escape(indent)}{re.escape(ticks[0])}{{{len(ticks)},}}\s*$")
        end = index + 1
        while end < len(lines) and not closing.match(lines[end]):
            end += 1
        body = [
            line[len(indent) :] if line.startswith(indent) else line
            for line in lines[index + 1 : end]
        ]
        blocks.append((opening["lang"], "\n".join(body) + "\n"))
        index = end + 1
    return blocks


def _load_mapping(text: str) -> tuple[dict[str, Any] | None, str | None]:
    """YAML is a superset of JSON, but a JSON reader gives the clearer message for JSON."""
    stripped = text.strip()
    if not stripped:
        return None, None
    if stripped.startswith("{"):
        try:
            value = json.loads(stripped)
        except ValueError:
            pass
        else:
            return (value, None) if isinstance(value, dict) else (None, None)
    try:
        value = safe_load(text if text.endswith("\n") else text + "\n")
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        return None, f"{problem}{where}"
    return (value, None) if isinstance(value, dict) else (None, None)


def _first_json_object(text: str) -> dict[str, Any] | None:
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", text):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except ValueError:
            continue
        if isinstance(value, dict) and "action" in value:
            return value
    return None


def tool_schemas(actions: Sequence[ActionSpec]) -> list[dict[str, Any]]:
    """OpenAI-style function tools for the offered actions, typed from the catalog."""
    return [
        {
            "type": "function",
            "function": {
                "name": spec.name,
                "description": f"{spec.signature}: {spec.description}",
                "parameters": {
                    "type": "object",
                    "properties": {arg.name: _json_schema(arg.type) for arg in spec.params},
                    "required": list(spec.required),
                },
            },
        }
        for spec in actions
    ]


def _json_schema(kind: ArgType) -> dict[str, Any]:
    if kind == "line":
        return {"type": "integer"}
    if kind == "boolean":
        return {"type": "boolean"}
    if kind == "command":
        return {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}
    if kind == "string_list":
        return {"type": "array", "items": {"type": "string"}}
    if kind == "plan":
        return {"type": "object"}
    return {"type": "string"}
