"""Values a model wrote by hand, read leniently but never ambiguously: JSON, then JSON with
single quotes or trailing commas, then YAML; a key written twice is an error, not last-wins
(two actions in one mapping are two readings, which the parser refuses)."""

from __future__ import annotations

import json
import re
from typing import Any

import yaml

from forgetui.engine.base.yamlio import safe_load

# A JSON or single-quoted string (an unclosed one runs to the end, so no start is read twice),
# or a comma before a closing bracket: the two slips relaxed JSON forgives.
_RELAX = re.compile(
    r"(?P<json>\"(?:[^\"\\]|\\[\s\S]?)*+(?:\"|$))"
    r"|'(?P<single>(?:[^'\\]|\\[\s\S]?)*+)(?:'|$)"
    r"|,(?=\s*+[}\]])"
)
_SINGLE_ESCAPE = re.compile(r"\\[\s\S]|\"")
_SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_value(text: str) -> tuple[Any, str | None]:
    """JSON-looking text as JSON, then as relaxed JSON (single quotes, trailing commas), then
    as YAML, which is also the reading of everything else. A key written twice is an error,
    not last-wins: two actions in one mapping are two readings. (value, None) or (None, why)."""
    stripped = text.strip()
    if not stripped:
        return None, None
    json_problem = None
    if stripped[0] in "{[":
        value, json_problem = load_json(stripped)
        if json_problem is None:
            return value, None
    try:
        return safe_load(stripped + "\n", _OneKeyLoader), None
    except UnicodeEncodeError:  # libyaml reads UTF-8, which cannot hold a lone surrogate
        return None, json_problem or "a lone surrogate character is not allowed"
    except yaml.YAMLError as exc:
        if json_problem:
            return None, json_problem
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        return None, f"{getattr(exc, 'problem', None) or str(exc).splitlines()[0]}{where}"


def load_json(text: str) -> tuple[Any, str | None]:
    """Strict JSON, else relaxed JSON; (value, None) or (None, the strict reading's error)."""
    problem = None
    relaxed = relax_json(text)
    for candidate in (text, relaxed) if relaxed != text else (text,):
        try:
            return JSON.decode(candidate), None
        except RecursionError:
            return None, "the JSON is nested too deeply"
        except ValueError as exc:
            problem = problem or _json_problem(exc)
    return None, problem


def relax_json(text: str) -> str:
    """`text` with single-quoted strings double-quoted and commas before `}`/`]` dropped: what
    a model writing JSON by hand means. JSON strings pass unchanged, in one linear pass."""

    def fix(match: re.Match[str]) -> str:
        if match["json"] is not None:
            return match["json"]
        if match["single"] is not None:
            return '"' + _SINGLE_ESCAPE.sub(_single_escape, match["single"]) + '"'
        return ""

    return _RELAX.sub(fix, text)


def _single_escape(match: re.Match[str]) -> str:
    text = match[0]
    return "'" if text == "\\'" else '\\"' if text == '"' else text


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    mapping: dict[str, Any] = {}
    for key, value in pairs:
        if key in mapping:
            raise ValueError(f"the key '{key[:40]}' is written twice")
        mapping[key] = value
    return mapping


# strict=False: a raw newline inside a string (file content written by hand) means a newline
JSON = json.JSONDecoder(object_pairs_hook=_unique_pairs, strict=False)


def _json_problem(exc: ValueError) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} (line {exc.lineno}, column {exc.colno})"
    return str(exc)


class _OneKeyLoader(_SafeLoader):  # type: ignore[misc,valid-type]
    """libyaml's SafeLoader (a 100 KB answer loads in a tenth of the pure-Python time) that
    refuses a mapping key written twice instead of keeping the last."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[str] = set()
        for key_node, _ in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                if key_node.value in seen:
                    raise yaml.constructor.ConstructorError(
                        None,
                        None,
                        f"the key '{key_node.value[:40]}' is written twice",
                        key_node.start_mark,
                    )
                seen.add(key_node.value)
        return super().construct_mapping(node, deep)


def decoded_args(args: Any, times: int = 1) -> Any:
    """Arguments sent as a JSON string (a tool-call habit) decoded, up to `times` levels of
    encoding; a blank string is no arguments. Anything else stays as written."""
    for remaining in range(times, 0, -1):
        if not isinstance(args, str):
            break
        if not args.strip():
            return {}
        value, problem = load_json(args.strip())
        if problem is not None or not (isinstance(value, dict) or remaining > 1):
            break
        args = value
    return args
