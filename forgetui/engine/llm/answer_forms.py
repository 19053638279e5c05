"""The forms real models write one action in, each read without guessing.

A small local model rarely answers exactly as asked: the block has a wrong fence or none, JSON
stands in for YAML, a chat template's tool-call syntax (`<tool_call>{...}</tool_call>`,
`{"name": ..., "arguments": ...}`, `read_file(path="a.py")`) comes back as text. Each reader here
turns one form into `Call`s; what the answer means when readings disagree is `parse.py`'s to
decide (it makes that an error). Every reader is linear in the answer or capped, so a 100 KB
hostile answer costs milliseconds: no regex here can backtrack over what it already read.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from forgetui.engine.folder.catalog import ACTIONS
from forgetui.engine.llm.lenient_values import JSON, decoded_args, load_value

# Fence languages that say "this is my answer"; a block in any other language (python, bash)
# holds code, and counts only when it names a real action.
_DATA_LANGS = ("", "yaml", "yml", "json", "json5", "jsonc", "text", "txt", "plaintext")
_TOOL_LANGS = ("action", "tool", "tool_code", "tool_call", "tool_calls", "function_call")
ANSWER_LANGS = frozenset((*_DATA_LANGS, *_TOOL_LANGS))
_COMMENTARY = frozenset(("thought", "thoughts", "reasoning", "explanation", "rationale"))
_ARGS_BESIDE_ACTION = ("args", "arguments", "parameters", "action_input")
_TOOL_NAME_KEYS = frozenset(("name", "tool", "tool_name", "function", "function_name"))
_TOOL_ARGS_KEYS = frozenset(("arguments", "args", "parameters", "input"))
_WRAPPER_KEYS = frozenset(("type", "id", "index"))  # an OpenAI tool_calls item around a call
_MAX_JSON_TRIES = 64  # bare objects decoded per answer: each try may read to its end
_MAX_CALL_LINES = 32

_FENCE = re.compile(
    r"(?P<lead>[ \t]*+(?:(?:[-*+]|\d{1,9}[.)])[ \t]++)?)"  # indentation, or a list item's marker
    r"(?P<ticks>`{3,}+|~{3,}+)[ \t]*+(?P<lang>[\w+.-]*+)[^`]*+"
)
_TAG = re.compile(r"<(?P<tag>tool_call|function_call|tool_code)>|<function=(?P<name>[\w.-]++)>")
_OBJECT_START = re.compile(r"\{\s*+\"")
_CALL_HEAD = re.compile(r"(?:print\(\s*+)?(?:[A-Za-z_]\w*+\.)*+(?P<name>[A-Za-z_]\w*+)\s*+\(")
_ACTION_LINE = re.compile(r"^action[ \t]*+:", re.MULTILINE)
_TOP_KEY = re.compile(r"[a-z_][a-z0-9_]*+[ \t]*+:")
_JSON_WORDS = {"true": True, "false": False, "null": None}


@dataclass(frozen=True)
class Call:
    """One action as written, before validation; `problem` says why its shape cannot be run."""

    name: Any
    args: Any
    problem: str | None = None


@dataclass(frozen=True)
class Block:
    """A fenced block: its language, its body (dedented) and the lines it spans; `closed`:
    a closing fence ends it (on a line of its own or after its last line's text)."""

    lang: str
    body: str
    first: int
    last: int
    closed: bool = True


def action_name(name: Any) -> Any:
    """`functions.read_file` (a namespaced tool name) is read_file; anything else as written."""
    if not isinstance(name, str):
        return name
    name = name.strip()
    if name not in ACTIONS and "." in name and name.rsplit(".", 1)[1] in ACTIONS:
        return name.rsplit(".", 1)[1]
    return name


def known(call: Call) -> bool:
    return isinstance(call.name, str) and call.name in ACTIONS


# ----------------------------------------------------------------------------- fences and tags


def fenced_blocks(lines: Sequence[str]) -> list[Block]:
    """Each fenced block; a fence closes at its own indentation or less, so fences inside an
    indented YAML block scalar (file content) stay content. A block never closed (the answer
    was cut, or the model stopped) runs to the end, minus a closing fence left on its last line."""
    blocks: list[Block] = []
    index = 0
    while index < len(lines):
        opening = _FENCE.fullmatch(lines[index])
        if opening is None:
            index += 1
            continue
        width, char, count = len(opening["lead"]), opening["ticks"][0], len(opening["ticks"])
        end = index + 1
        while end < len(lines) and not _closes(lines[end], char, count, width):
            end += 1
        body = [_dedent(line, width) for line in lines[index + 1 : end]]
        closed = end < len(lines) or _drop_trailing_fence(body, char * count)
        blocks.append(Block(opening["lang"], "\n".join(body) + "\n", index, end, closed))
        index = end + 1
    return blocks


def _closes(line: str, char: str, count: int, width: int) -> bool:
    stripped = line.lstrip(" \t")
    if len(line) - len(stripped) > width:
        return False
    fence = stripped.rstrip()
    return len(fence) >= count and fence == char * len(fence)


def _dedent(line: str, width: int) -> str:
    return line[min(width, len(line) - len(line.lstrip(" \t"))) :]


def _drop_trailing_fence(body: list[str], fence: str) -> bool:
    """`args: {path: a}```` ends the block (True: it was closed that way); a fence alone on a
    deeper line is content."""
    while body and not body[-1].strip():
        body.pop()
    last = body[-1].rstrip() if body else ""
    if last.endswith(fence) and last.strip().strip(fence[0]):
        body[-1] = last[: -len(fence)].rstrip()
        return True
    return False


def lines_outside(lines: Sequence[str], blocks: Sequence[Block]) -> str:
    inside = {number for block in blocks for number in range(block.first, block.last + 1)}
    return "\n".join(line for number, line in enumerate(lines) if number not in inside)


def tagged_calls(text: str) -> tuple[list[Call], str | None]:
    """Calls in chat-template tags, `<tool_call>{...}</tool_call>` (Hermes, Qwen) and
    `<function=NAME>{...}</function>` (Llama 3.1), and why the first tag that held none did
    not load. An unclosed tag runs to the end (`unclosed_tag` tells)."""
    calls: list[Call] = []
    malformed: str | None = None
    position = 0
    while (tag := _TAG.search(text, position)) is not None:
        closing = f"</{tag['tag'] or 'function'}>"
        end = text.find(closing, tag.end())
        body = text[tag.end() : end if end >= 0 else len(text)]
        position = len(text) if end < 0 else end + len(closing)
        if tag["name"]:
            name = action_name(tag["name"])
            args, problem = load_value(body) if body.strip() else ({}, None)
            why = f"the arguments of <function={name}> do not parse: {problem}" if problem else None
            calls.append(Call(name, decoded_args(args), why))
        else:
            found, problem = calls_in_text(body)
            calls += found
            malformed = malformed or problem
    return calls, malformed


def unclosed_tag(text: str) -> bool:
    """Whether the last call tag in `text` is never closed: the answer ended inside it."""
    position = 0
    while (found := _TAG.search(text, position)) is not None:
        closing = f"</{found['tag'] or 'function'}>"
        end = text.find(closing, found.end())
        if end < 0:
            return True
        position = end + len(closing)
    return False


# ----------------------------------------------------------------------------- values


def calls_in_text(text: str) -> tuple[list[Call], str | None]:
    """The calls a block's body holds (a YAML or JSON mapping, a list of them, or one call in
    function syntax), and, when none, why a body that looks like an action did not load."""
    value, problem = load_value(text)
    found = calls_in(value)
    if found:
        return found, None
    call = call_syntax(text)
    if call is not None:
        return [call], None
    return [], problem if looks_like_action(text) else None


def looks_like_action(text: str) -> bool:
    return "action" in text or '"name"' in text


def calls_in(value: Any, depth: int = 0) -> list[Call] | None:
    """The calls a loaded value holds, or None when it is not shaped as one: `{action, args}`
    (args also as arguments / parameters / action_input, or beside the name), a tool call
    `{name|tool|tool_name|function: NAME, arguments|args|parameters|input: {...}}`, an OpenAI
    `{type: function, function: {...}}` or `{tool_calls: [...]}`, or a list of these."""
    if depth > 3:
        return None
    if isinstance(value, list):
        if not 0 < len(value) <= 8:
            return None
        groups = [calls_in(item, depth + 1) for item in value]
        if any(group is None for group in groups):
            return None
        return [call for group in groups if group for call in group]
    if not isinstance(value, dict):
        return None
    keys = {key for key in value if key not in _COMMENTARY}
    if "action" in keys:
        return _action_object(value, keys - {"action"}, depth)
    if keys - _WRAPPER_KEYS == {"tool_calls"}:
        return calls_in(value["tool_calls"], depth + 1)
    names = keys & _TOOL_NAME_KEYS
    if len(names) != 1:
        return None
    name_key = names.pop()
    name = value[name_key]
    if isinstance(name, dict) and keys - _WRAPPER_KEYS == {name_key}:
        return calls_in(name, depth + 1)  # {"type": "function", "function": {...}}
    arg_keys = keys & _TOOL_ARGS_KEYS
    if not isinstance(name, str) or keys - arg_keys - _WRAPPER_KEYS != {name_key}:
        return None
    if len(arg_keys) > 1 or not (arg_keys or action_name(name) in ACTIONS):
        return None
    args = value[arg_keys.pop()] if arg_keys else {}
    return [Call(action_name(name), decoded_args(args))]


def _action_object(value: dict[Any, Any], rest: set[Any], depth: int) -> list[Call]:
    name = value["action"]
    if isinstance(name, dict) and not rest:  # {"action": {"name": ..., "arguments": ...}}
        nested = calls_in(name, depth + 1)
        if nested and len(nested) == 1:
            return nested
    arg_keys = [key for key in _ARGS_BESIDE_ACTION if key in rest]
    if not arg_keys:
        return [Call(action_name(name), {key: value[key] for key in rest})]
    extra = sorted(str(key) for key in rest if key != arg_keys[0])
    if extra:
        problem = f"unexpected key(s) {', '.join(extra)} beside 'action' and '{arg_keys[0]}'"
        return [Call(action_name(name), {}, problem[:200])]
    return [Call(action_name(name), decoded_args(value[arg_keys[0]]))]


# ----------------------------------------------------------------------------- prose


def json_objects(text: str) -> list[Any]:
    """Top-level JSON objects in prose, first to last; one that is an action is not searched
    for inner objects. At most _MAX_JSON_TRIES decodes, so a hostile answer stays cheap."""
    found: list[Any] = []
    position = 0
    for _ in range(_MAX_JSON_TRIES):
        start = _OBJECT_START.search(text, position)
        if start is None:
            break
        try:
            value, end = JSON.raw_decode(text, start.start())
        except (ValueError, RecursionError):
            position = start.start() + 1
            continue
        found.append(value)
        position = end if calls_in(value) else start.start() + 1
    return found


def bare_yaml(text: str) -> str | None:
    """An unfenced YAML action in prose: from the first `action:` line while lines are
    indented, blank or further lowercase keys (`args:`), up to the prose that follows."""
    first = _ACTION_LINE.search(text)
    if first is None:
        return None
    lines = text[first.start() :].split("\n")
    kept = lines[:1]
    for line in lines[1:]:
        if line.strip() and line[0] not in " \t" and not _TOP_KEY.match(line):
            break
        kept.append(line)
    return "\n".join(kept)


def call_lines(text: str) -> list[Call]:
    """Prose lines that are each one call of a known action, `read_file(path="a.py")`."""
    calls: list[Call] = []
    for line in text.splitlines():
        stripped = line.strip().strip("`")
        head = _CALL_HEAD.match(stripped)
        if head is None or action_name(head["name"]) not in ACTIONS:
            continue
        if (call := call_syntax(stripped)) is not None:
            calls.append(call)
        if len(calls) >= _MAX_CALL_LINES:
            break
    return calls


def call_syntax(text: str) -> Call | None:
    """`read_file(path="a.py")`, `note("x")` (positional in signature order), or Gemini's
    `print(default_api.read_file(...))`: a call of a known action with literal arguments."""
    stripped = text.strip()
    head = _CALL_HEAD.match(stripped)
    if head is None or action_name(head["name"]) not in ACTIONS:
        return None
    try:
        node = ast.parse(stripped, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if isinstance(node, ast.Call) and _dotted(node.func) == "print" and len(node.args) == 1:
        node = node.args[0]
    if not isinstance(node, ast.Call):
        return None
    name = action_name(_dotted(node.func))
    if name not in ACTIONS or any(keyword.arg is None for keyword in node.keywords):
        return None
    try:
        values = [_literal(arg) for arg in node.args]
        named = {str(keyword.arg): _literal(keyword.value) for keyword in node.keywords}
    except ValueError:
        return None
    spec = ACTIONS[name]
    if len(values) > len(spec.params):
        return Call(name, {}, f"too many arguments ({len(values)}) for {spec.signature}")
    args = dict(zip(spec.args, values, strict=False))
    if twice := sorted(args.keys() & named.keys()):
        return Call(name, {}, f"argument '{twice[0]}' of '{name}' is given twice")
    return Call(name, {**args, **named})


def _dotted(node: ast.expr) -> str:
    """`default_api.read_file` for an attribute chain of names; "" for anything else."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return ""
    return ".".join([node.id, *reversed(parts)])


def _literal(node: ast.expr) -> Any:
    """A Python literal, or JSON's true/false/null; ValueError for anything to evaluate."""
    if isinstance(node, ast.Name) and node.id in _JSON_WORDS:
        return _JSON_WORDS[node.id]
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError) as exc:
        raise ValueError(str(exc)) from None
