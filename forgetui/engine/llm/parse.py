"""Turn a model's answer into one validated action.

Models without tool calling answer with one fenced YAML or JSON block `{action: NAME, args:
{...}}`; a tool call arrives as a name and a JSON string. Real models stray from both:
`answer_forms` reads each unambiguous variant, and here the readings are weighed. The
first tier that finds anything decides: fenced blocks and tool-call tags, then the prose
outside them. The same action written twice is one; two different ones are an error, never a
pick. Everything ends in `validate_action`, so a replay script, a human and a real model are
held to the same rules. A failure is a short sentence the next context shows the model as its
last result, ending, when nothing usable was found, in one line on the expected form.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from forgetui.engine.actions.args import ActionArgsError, validate_args
from forgetui.engine.folder.catalog import ACTIONS, ActionSpec, ArgType
from forgetui.engine.llm import answer_forms as forms
from forgetui.engine.llm.answer_forms import Call
from forgetui.engine.llm.lenient_values import decoded_args, load_json, load_value

EXPECTED_BLOCK = "expected: one ```yaml block: action: NAME / args: {ARG: VALUE}"
EXPECTED_TOOL_CALL = "expected: one tool call with its arguments as one JSON object"
CUT = "length"  # the finish reason of an answer the server cut off at the output cap
_NAME_LIMIT = 80
_REASON_LIMIT = 240  # the sentence before the expected form: it goes into every next context
# A JSON answer can spell a lone surrogate ("\ud800"): no file, log or YAML can hold it.
_SURROGATE = re.compile("[\ud800-\udfff]")
_NAMED_ACTION = re.compile(r"\b(" + "|".join(sorted(ACTIONS, key=len, reverse=True)) + r")\b")


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

    @classmethod
    def unusable(cls, reason: str, expected: str = EXPECTED_BLOCK) -> ParsedAction:
        """Nothing runnable in the answer: why, in one short sentence, then the form to use."""
        if len(reason) > _REASON_LIMIT:
            reason = reason[: _REASON_LIMIT - 3].rstrip() + "..."
        return cls(None, {}, _writable(f"{reason}\n{expected}"))


def parse_text(
    text: str, offered: Sequence[ActionSpec] = (), finish_reason: str | None = None
) -> ParsedAction:
    """A plain-text answer: exactly one action, in whichever unambiguous form it came. With
    `finish_reason` "length" (the server cut the answer at the output cap), an action read
    from where the answer ended, inside a block or tag never closed or in prose with no end
    marker, is refused: it may be half of a file or of a command."""
    lines = text.splitlines()
    blocks = forms.fenced_blocks(lines)
    calls, malformed, idle = _block_calls(blocks)
    idle_lines = {block.first for block in idle}
    used = [block for block in blocks if block.first not in idle_lines]
    outside = forms.lines_outside(lines, used)
    tagged, tag_problem = forms.tagged_calls(outside)
    unended = next((_fence_name(block) for block in used if not block.closed), None)
    if unended is None and tagged and forms.unclosed_tag(outside):
        unended = "its call tag never closed"
    calls, malformed = calls + tagged, malformed or tag_problem
    if not calls and malformed is None:
        calls, malformed = _prose_calls(forms.lines_outside(lines, blocks))
        unended = "it is not in a closed fenced block"
    if not calls:
        if malformed is not None:
            return ParsedAction.unusable(f"the action block does not parse: {malformed}")
        return ParsedAction.unusable(_nothing_found(text, idle))
    parsed = _one_of([_validated(call, offered) for call in calls])
    if finish_reason == CUT and unended is not None and parsed.action is not None:
        return ParsedAction(
            None,
            {},
            f"{unended}, so this {parsed.action} may be incomplete: nothing was run or "
            "written; answer again with a shorter action (a long file in parts)",
            attempted=parsed.action,
        )
    return parsed


def _fence_name(block: forms.Block) -> str:
    fence = f"```{block.lang} block" if block.lang else "fenced block"
    return f"its {fence} never closed"


def _block_calls(blocks: Sequence[forms.Block]) -> tuple[list[Call], str | None, list[forms.Block]]:
    """The calls in fenced blocks, why the first answer-language block that looked like an
    action did not load, and the blocks that held no action. A block in a code language
    (python, bash) counts only when it names a real action: otherwise it is just code."""
    calls: list[Call] = []
    malformed: str | None = None
    idle: list[forms.Block] = []
    read: dict[str, tuple[list[Call], str | None]] = {}  # a block written again is read once
    for block in blocks:
        answer_lang = block.lang.lower() in forms.ANSWER_LANGS
        if block.body not in read:
            read[block.body] = forms.calls_in_text(block.body)
        found, problem = read[block.body]
        found = [call for call in found if answer_lang or forms.known(call)]
        if found:
            calls += found
            continue
        idle.append(block)
        if answer_lang:
            malformed = malformed or problem
    return calls, malformed, idle


def _prose_calls(prose: str) -> tuple[list[Call], str | None]:
    """Calls in the answer outside its fences: the whole of it as one value or one call, else
    an unfenced `action:` mapping, else every JSON object and call line in it."""
    stripped = prose.strip()
    if not stripped:
        return [], None
    value, problem = load_value(stripped)
    whole = forms.calls_in(value) or ([] if (c := forms.call_syntax(stripped)) is None else [c])
    if whole:
        return whole, None
    malformed = problem if stripped[0] in "{[" and forms.looks_like_action(stripped) else None
    if (region := forms.bare_yaml(stripped)) is not None:
        value, problem = load_value(region)
        if found := forms.calls_in(value):
            return found, None
        malformed = malformed or problem
    objects = [forms.calls_in(value) for value in forms.json_objects(stripped)]
    calls = [call for group in objects if group for call in group]
    return calls + forms.call_lines(stripped), malformed


def _nothing_found(text: str, idle: Sequence[forms.Block]) -> str:
    if not text.strip():
        return "the answer is empty"
    if idle:
        langs = ", ".join(dict.fromkeys(block.lang or "unlabelled" for block in idle))
        if len(idle) == 1:
            return f"no action block found: the fenced block ({langs}) holds no action"
        return f"no action block found: the {len(idle)} fenced blocks ({langs}) hold no action"
    named = _NAMED_ACTION.search(text)
    if named:
        return f"no action block found: {named[1]} is named in prose, not written as a block"
    return "no action block found in the answer"


def _one_of(parsed: Sequence[ParsedAction]) -> ParsedAction:
    """The action, when every reading of the answer is the same action; else the error."""
    distinct = list({_identity(item): item for item in parsed}.values())
    if len(distinct) == 1:
        return distinct[0]
    named = dict.fromkeys(str(item.action or item.attempted or "?")[:40] for item in distinct)
    names = ", ".join(list(named)[:3])
    return ParsedAction.unusable(
        f"found {len(distinct)} action blocks with different actions ({names}); "
        "answer with exactly one action per step"
    )


def _identity(parsed: ParsedAction) -> str:
    try:
        return json.dumps(
            [parsed.action, parsed.args, parsed.error, parsed.attempted],
            sort_keys=True,
            default=repr,
        )
    except (TypeError, ValueError, RecursionError):
        return repr(parsed)


def _validated(call: Call, offered: Sequence[ActionSpec]) -> ParsedAction:
    if call.problem is None:
        return validate_action(call.name, call.args, offered)
    attempted = (
        _writable(call.name[:_NAME_LIMIT]) if isinstance(call.name, str) and call.name else None
    )
    return ParsedAction(None, {}, _writable(call.problem), attempted=attempted)


def parse_tool_call(
    name: str, arguments: str | dict[str, Any] | None, offered: Sequence[ActionSpec] = ()
) -> ParsedAction:
    """A tool call: the function name and its JSON-encoded arguments, which some servers
    encode twice (a JSON string of a JSON string) and some models write as relaxed JSON."""
    if isinstance(arguments, dict) or arguments is None or not arguments.strip():
        args: Any = arguments if isinstance(arguments, dict) else {}
    else:
        args, problem = load_json(arguments.strip())
        if problem is not None:
            return ParsedAction.unusable(
                f"the arguments of tool call '{str(name)[:80]}' are not valid JSON: {problem}",
                EXPECTED_TOOL_CALL,
            )
        args = decoded_args(args)
    return validate_action(forms.action_name(name), args, offered)


def validate_object(obj: dict[str, Any], offered: Sequence[ActionSpec] = ()) -> ParsedAction:
    """One answer object in any shape `answer_forms.calls_in` knows; a mapping of no known
    shape is checked as `{action: ..., ARG: ...}`, which says what is missing."""
    calls = forms.calls_in(obj)
    if not calls:
        rest = {key: value for key, value in obj.items() if key != "action"}
        return validate_action(obj.get("action"), rest, offered)
    return _one_of([_validated(call, offered) for call in calls])


def validate_action(name: Any, args: Any, offered: Sequence[ActionSpec] = ()) -> ParsedAction:
    """Check the name against the catalog (and the actions offered now) and the arguments
    against the action's signature, coercing the obvious: "12" -> 12, "true" -> True. The
    executor runs the same check (`validate_args`), so what passes here runs there."""
    if isinstance(name, str):
        # no action's name is near this long, so cutting one never makes it valid, and the
        # error quoting it stays short
        name = name.strip()[:_NAME_LIMIT]
    try:
        clean = validate_args(name, args, offered)
    except ActionArgsError as exc:
        attempted = _writable(name) if isinstance(name, str) and name else None
        return ParsedAction(None, {}, _writable(exc.message), attempted=attempted)
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


def _titled(items: dict[str, Any] | None = None) -> dict[str, Any]:
    properties: dict[str, Any] = {"title": {"type": "string"}}
    if items is not None:
        properties["subtasks"] = {"type": "array", "items": items}
    return {"type": "object", "properties": properties, "required": ["title"]}


# what set_plan takes (task_spec.Plan without the statuses the engine keeps): a model that
# sees the shape writes a plan that validates the first time
PLAN_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "goal": {"type": "string"},
        "tasks": {"type": "array", "items": _titled(_titled())},
    },
    "required": ["goal", "tasks"],
}


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
                    "properties": {
                        arg.name: {**_json_schema(arg.type), "description": arg.description}
                        for arg in spec.params
                    },
                    "required": list(spec.required),
                },
            },
        }
        for spec in actions
    ]


def _json_schema(kind: ArgType) -> dict[str, Any]:
    if kind == "line":
        return {"type": "integer"}
    if kind == "seconds":
        return {"type": "number"}
    if kind == "boolean":
        return {"type": "boolean"}
    if kind == "command":
        return {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}
    if kind == "string_list":
        return {"type": "array", "items": {"type": "string"}}
    if kind == "plan":
        return PLAN_SCHEMA
    return {"type": "string"}
