"""The compiled context (DESIGN.md section 4): a view over the task's state, never a history.

Every step is two messages: the phase's system prompt and a user message of five sections
(task_frame, current_state, recent_actions, verification_status, available_actions) rendered
as YAML or XML. Each section is built as a small element tree, compressed in the order of the
design's table until it fits its budget, and rendered as blocks that end with a newline and
start with text. tiktoken's pre-tokenizer never merges across such a boundary, so a section's
token count is the sum of its blocks' counts; blocks are counted through the counter's cache,
and a block that did not change since the last preview costs a lookup. `validate_context`
recounts every section from its text, the check before a context is sent.

XML element text is not escaped: the model reads it, no XML parser does, and code full of
`&lt;` would cost tokens and clarity. Attribute values are escaped.

`compile_context` has no side effects: it reads the target files (cached by path, mtime and
size) and writes nothing.
"""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache, partial
from pathlib import Path
from typing import Any

import yaml

from forgetui.engine import compress as cz
from forgetui.engine.catalog import actions_of
from forgetui.engine.memory import MemoryItem, WorkingMemory, visible_items
from forgetui.engine.prompts import system_prompt
from forgetui.engine.records import ResultRecord
from forgetui.engine.state import TaskState
from forgetui.engine.task import SECTION_NAMES, TaskSpec
from forgetui.engine.tokens import TokenCounter, counter_for

RECENT_ACTIONS = 3
COMPLETED_SHOWN = 10  # progress.completed: the context shows the last 10
# Lists that grow with the task show their newest entries only, so step 1,000 costs what step
# 10 does: progress.completed its last 10, the scratchpad and the files touched their last 5.
SCRATCHPAD_SHOWN = 5
PROBE_SHOWN = 5
LIST_CAPS = (5, 2)
MIN_EXCERPT_TOKENS = 160  # a file excerpt smaller than this is not worth keeping over others
EXCERPT_QUANTUM = 32  # excerpt budgets are rounded down to this, so a preview rebuilt after a
# small change elsewhere finds the same excerpt (and its count) in the cache
SECTION_FLOOR = 15  # the smallest budget a section is squeezed to when max_tokens binds
MAX_TARGET_FILES = 8
MAX_FILE_BYTES = 4_000_000
MAX_VALUE_DEPTH = 3
SUMMARY_LIMIT = 300
OMITTED_TEXT = "[omitted: over budget]"
CACHED_TEXT_CHARS = 4000  # longer texts are cleaned and rendered afresh: few, and cheap per
# character, while caching them would hold megabytes over a long session
_XML_SECTION_TAGS = {"available_actions": "tools"}
_XML_WRAPPER = ("<task_context>\n", "</task_context>\n")
_YAML_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


# --------------------------------------------------------------------------- public API


@dataclass(frozen=True)
class ContextInputs:
    spec: TaskSpec
    state: TaskState
    memory: WorkingMemory
    recent: Sequence[ResultRecord]  # newest last; the compiler uses the last 3
    workspace: Path  # target-file excerpts are read from here
    model: str | None = None  # picks the token encoding (else spec.model)


@dataclass(frozen=True)
class Section:
    name: str
    budget: int
    text: str
    tokens: int
    compressions: tuple[str, ...] = ()


@dataclass(frozen=True)
class CompiledContext:
    step: int
    format: str
    sections: tuple[Section, ...]
    total_tokens: int
    max_tokens: int
    messages: tuple[dict[str, str], ...]  # exactly (system, user)
    memory_refs: tuple[str, ...]  # MemoryItem.ref of the items shown, in order
    over_budget: tuple[str, ...]  # reasons the step must not go out; empty when it may

    def section(self, name: str) -> Section:
        return next(section for section in self.sections if section.name == name)

    def to_json(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "total_tokens": self.total_tokens,
            "max_tokens": self.max_tokens,
            "format": self.format,
            "sections": [
                {
                    "name": section.name,
                    "tokens": section.tokens,
                    "budget": section.budget,
                    "text": section.text,
                    "compressions": list(section.compressions),
                }
                for section in self.sections
            ],
            "messages": [dict(message) for message in self.messages],
            "memory_refs": list(self.memory_refs),
            "over_budget": list(self.over_budget),
        }


def compile_context(inputs: ContextInputs) -> CompiledContext:
    """The two messages of the next step, every section within its budget and the whole within
    max_tokens. Pure: nothing is written, the inputs are not changed."""
    spec, state = inputs.spec, inputs.state
    counter = counter_for(inputs.model or spec.model)
    fmt = spec.context_format
    budgets = spec.limits.budgets()
    max_tokens = spec.limits.max_tokens
    wrapper = _XML_WRAPPER if fmt == "xml" else ("", "")
    used = sum(counter.count(part) for part in wrapper if part)

    builders: dict[str, Callable[[int], Section]] = {
        "system_prompt": lambda budget: _system_section(state.phase, fmt, budget, counter),
        "task_frame": lambda budget: _fit_variants(
            "task_frame", budget, _task_frame_variants(spec, state), counter, fmt
        ),
        "verification_status": lambda budget: _fit_variants(
            "verification_status", budget, _verification_variants(spec, state), counter, fmt
        ),
        "available_actions": lambda budget: _fit_variants(
            "available_actions", budget, _actions_variants(state.phase), counter, fmt
        ),
        "recent_actions": lambda budget: _fit_variants(
            "recent_actions", budget, _recent_variants(inputs.recent), counter, fmt
        ),
    }
    state_builder = _CurrentState(inputs, counter, fmt)
    builders["current_state"] = state_builder.build

    # current_state is built last and takes what max_tokens leaves, up to its own budget; the
    # others rarely fill their budgets, so with the defaults it keeps all of its 4,500.
    order = (*builders.keys(),)
    built: dict[str, Section] = {}
    for index, name in enumerate(order):
        later_floors = SECTION_FLOOR * (len(order) - index - 1)
        budget = max(0, min(budgets[name], max_tokens - used - later_floors))
        section = builders[name](budget)
        if budget < budgets[name]:
            note = f"budget cut from {budgets[name]} to {budget} to fit max_tokens {max_tokens}"
            section = replace(section, compressions=(*section.compressions, note))
        built[name] = section
        used += section.tokens

    sections = tuple(built[name] for name in SECTION_NAMES)
    user = wrapper[0] + "".join(section.text for section in sections[1:]) + wrapper[1]
    over = [*state_builder.over_budget]
    over += [
        f"context over budget: {section.name} had to be cut to its {section.budget} tokens"
        for section in sections
        if "hard truncated" in section.compressions and section.name != "current_state"
    ]
    return CompiledContext(
        step=state.next_step,
        format=fmt,
        sections=sections,
        total_tokens=used,
        max_tokens=max_tokens,
        messages=(
            {"role": "system", "content": built["system_prompt"].text},
            {"role": "user", "content": user},
        ),
        memory_refs=tuple(state_builder.memory_refs),
        over_budget=tuple(over),
    )


def validate_context(ctx: CompiledContext, inputs: ContextInputs) -> list[str]:
    """What is wrong with a compiled context; [] when it may go out.

    Every section is recounted from its text, and the messages must be exactly those sections
    (the user message their concatenation, whose count is the sum: each section ends with a
    newline and starts with a key or a tag, a boundary tiktoken never merges across)."""
    problems = list(ctx.over_budget)
    counter = counter_for(inputs.model or inputs.spec.model)
    roles = [message.get("role") for message in ctx.messages]
    if roles != ["system", "user"]:
        return [*problems, f"expected two messages [system, user], got {roles}"]
    system, user = (message.get("content", "") for message in ctx.messages)
    names = tuple(section.name for section in ctx.sections)
    if names != SECTION_NAMES:
        return [*problems, f"sections {list(names)} are not {list(SECTION_NAMES)}"]
    configured = inputs.spec.limits.budgets()
    total = 0
    for section in ctx.sections:
        tokens = counter.count(section.text)
        total += tokens
        if tokens > section.budget or section.budget > configured[section.name]:
            problems.append(
                f"section {section.name}: {tokens} tokens over its budget {section.budget}"
            )
        if tokens != section.tokens:
            problems.append(f"section {section.name}: {section.tokens} tokens recorded, {tokens}")
    wrapper = _XML_WRAPPER if ctx.format == "xml" else ("", "")
    total += sum(counter.count(part) for part in wrapper if part)
    if system != ctx.sections[0].text:
        problems.append("the system message is not the system_prompt section")
    if user != wrapper[0] + "".join(section.text for section in ctx.sections[1:]) + wrapper[1]:
        problems.append("the user message is not the five sections")
        total = counter.count(system) + counter.count(user)
    max_tokens = inputs.spec.limits.max_tokens
    if total > max_tokens:
        problems.append(f"context has {total} tokens, over max_tokens {max_tokens}")
    if total != ctx.total_tokens:
        problems.append(f"total_tokens {ctx.total_tokens} recorded, the messages count {total}")
    problems += _missing_fields(user, ctx.format, inputs)
    return problems


# --------------------------------------------------------------------------- element trees

Scalar = str | int | float | bool | None


@dataclass(frozen=True)
class El:
    """One node of a section: a YAML key or an XML element.

    A leaf has only `text`. Otherwise `attrs` (XML attributes; leading keys in YAML), `text`
    (element text; the key `text_key` in YAML) and `items` (children; a YAML list when `seq`).
    `slot` marks an elastic excerpt sized after the rest of its section is counted; `mark`
    tags what the over-budget accounting needs to find (pinned items, decisions)."""

    tag: str
    text: Scalar = None
    items: tuple[El, ...] = ()
    attrs: tuple[tuple[str, Scalar], ...] = ()
    seq: bool = False
    text_key: str = "text"
    slot: int = -1
    mark: str = ""


@dataclass(frozen=True)
class _Block:
    text: str
    el: El
    col: int  # YAML column the element was rendered at
    item: bool  # rendered as a YAML list item


def _seq(tag: str, values: Sequence[Scalar], item_tag: str = "item") -> El:
    return El(tag, seq=True, items=tuple(El(item_tag, text=value) for value in values))


def _drop_empty(*elements: El | None) -> tuple[El, ...]:
    return tuple(
        el
        for el in elements
        if el is not None and (el.items or el.attrs or el.text not in (None, "") or el.slot >= 0)
    )


def _value_el(
    tag: str, value: Any, *, cut: bool = False, cap: int | None = None, depth: int = 0
) -> El:
    """An element for any JSON-like value (memory content, task inputs)."""
    if depth >= MAX_VALUE_DEPTH and isinstance(value, Mapping | list | tuple):
        value = json.dumps(value, ensure_ascii=False, default=str)
    if isinstance(value, Mapping):
        entries = [
            _value_el(str(key), item, cut=cut, cap=cap, depth=depth + 1)
            for key, item in value.items()
        ]
        return El(tag, items=tuple(entries))
    if isinstance(value, list | tuple):
        shown = list(value) if cap is None else list(value[:cap])
        items = [_value_el("item", item, cut=cut, cap=cap, depth=depth + 1) for item in shown]
        if len(shown) < len(value):
            items.append(El("item", text=f"... and {len(value) - len(shown)} more"))
        return El(tag, seq=True, items=tuple(items))
    if isinstance(value, str) and cut:
        value = cz.cut_error(value)
    elif not isinstance(value, str | int | float | bool | None):
        value = str(value)
    return El(tag, text=value)


# --------------------------------------------------------------------------- rendering

_PLAIN_START = re.compile(r"[A-Za-z_(/][^\t]*")
_YAML_WORDS = {"yes", "no", "true", "false", "on", "off", "null", "y", "n"}
_XML_NAME = re.compile(r"[A-Za-z_][\w.-]{0,63}")


def _clean(text: str) -> str:
    return _clean_cached(text) if len(text) <= CACHED_TEXT_CHARS else cz.clean_text(text)


@lru_cache(maxsize=4096)
def _clean_cached(text: str) -> str:
    return cz.clean_text(text)


@lru_cache(maxsize=4096)
def _yaml_inline(text: str) -> str:
    """A one-line string as a plain scalar when that reads back unchanged, else JSON-quoted
    (every JSON string is a YAML double-quoted scalar)."""
    if (
        _PLAIN_START.fullmatch(text)
        and ": " not in text
        and " #" not in text
        and not text.endswith(":")
        and text.lower() not in _YAML_WORDS
    ):
        return text
    return json.dumps(text, ensure_ascii=False)


@lru_cache(maxsize=1024)
def _yaml_key(tag: str) -> str:
    return _yaml_inline(cz.one_line(_clean(tag), 200) or "_")


def _yaml_scalar(head: str, value: Scalar, content_col: int) -> list[str]:
    if value is None:
        return [f"{head} null"]
    if isinstance(value, bool):
        return [f"{head} {'true' if value else 'false'}"]
    if isinstance(value, int | float):
        return [f"{head} {value}"]
    if len(value) > CACHED_TEXT_CHARS:
        return [f"{head} {_yaml_text(value, content_col)}"]
    return [f"{head} {_yaml_text_cached(value, content_col)}"]


def _yaml_text(value: str, content_col: int) -> str:
    """A string value after its key: inline, or a literal block indented to `content_col`."""
    text = _clean(value)
    if "\n" not in text:
        return _yaml_inline(text)
    # A first line that starts with a space needs an explicit indentation indicator.
    indicator = "|2-" if text[0] == " " else "|-"
    return f"{indicator}\n{cz.indent_lines(text, ' ' * content_col)}"


_yaml_text_cached = lru_cache(maxsize=4096)(_yaml_text)


def _is_leaf(el: El) -> bool:
    return not el.items and not el.attrs and not el.seq


def _fields(el: El) -> tuple[El, ...]:
    """A mapping element's entries in YAML: attributes, text, children."""
    fields = [El(name, text=value) for name, value in el.attrs if value is not None]
    if el.text is not None:
        fields.append(El(el.text_key, text=el.text))
    return (*fields, *el.items)


def _yaml_lines(el: El, col: int, item: bool) -> list[str]:
    pad = " " * col
    head = f"{pad}-" if item else f"{pad}{_yaml_key(el.tag)}:"
    if _is_leaf(el):
        return _yaml_scalar(head, el.text, col + 2)
    if el.seq and not item:
        if not el.items:
            return [f"{head} []"]
        lines = [head]
        for child in el.items:
            lines += _yaml_lines(child, col + 2, True)
        return lines
    fields = (el,) if el.seq else _fields(el)
    if not fields:
        return [f"{head} {{}}"]
    lines = [] if item else [head]
    for entry in fields:
        lines += _yaml_lines(entry, col + 2, False)
    if item:
        lines[0] = f"{pad}- {lines[0][col + 2 :]}"
    return lines


def _xml_value(value: Scalar) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return _clean(str(value))


def _xml_attr(value: Scalar) -> str:
    text = _xml_value(value)
    for raw, escaped in (("&", "&amp;"), ("<", "&lt;"), ('"', "&quot;"), ("\n", "&#10;")):
        text = text.replace(raw, escaped)
    return text


def _xml_open(el: El) -> tuple[str, str]:
    """(`<tag attrs`, tag); a name that is not a valid XML name becomes <entry key="...">."""
    tag, extra = el.tag, ""
    if not _XML_NAME.fullmatch(tag) or tag.lower().startswith("xml"):
        tag, extra = "entry", f' key="{_xml_attr(cz.one_line(el.tag, 200))}"'
    attrs = "".join(f' {name}="{_xml_attr(v)}"' for name, v in el.attrs if v is not None)
    return f"<{tag}{extra}{attrs}", tag


def _xml_lines(el: El) -> list[str]:
    opening, tag = _xml_open(el)
    text = _xml_value(el.text)
    if not el.items:
        if not text:
            return [f"{opening}/>"]
        if "\n" in text:
            return [f"{opening}>", text, f"</{tag}>"]
        return [f"{opening}>{text}</{tag}>"]
    lines = [f"{opening}>", *([text] if text else [])]
    for child in el.items:
        lines += _xml_lines(child)
    lines.append(f"</{tag}>")
    return lines


def render_el(el: El, fmt: str, col: int = 0, item: bool = False) -> str:
    """One element as text ending in a newline."""
    lines = _xml_lines(el) if fmt == "xml" else _yaml_lines(el, col, item)
    return "\n".join(lines) + "\n"


def _blocks(el: El, fmt: str, col: int = 0, item: bool = False, depth: int = 0) -> list[_Block]:
    """A section split into blocks down to its grandchildren (one per memory item, decision,
    file excerpt...), so unchanged blocks are counted once across previews."""
    if fmt == "xml":
        if depth >= 2 or not el.items:
            return [_Block(render_el(el, fmt), el, 0, False)]
        opening, tag = _xml_open(el)
        text = _xml_value(el.text)
        blocks = [_Block(f"{opening}>\n" + (f"{text}\n" if text else ""), el, 0, False)]
        for child in el.items:
            blocks += _blocks(child, fmt, 0, False, depth + 1)
        return [*blocks, _Block(f"</{tag}>\n", el, 0, False)]
    if depth >= 2 or item or _is_leaf(el) or not (el.items or el.attrs):
        return [_Block(render_el(el, fmt, col, item), el, col, item)]
    blocks = [_Block(f"{' ' * col}{_yaml_key(el.tag)}:\n", el, col, False)]
    if el.seq:
        for child in el.items:
            blocks += _blocks(child, fmt, col + 2, True, depth + 1)
    else:
        for entry in _fields(el):
            blocks += _blocks(entry, fmt, col + 2, False, depth + 1)
    return blocks


def _section_blocks(el: El, fmt: str) -> list[_Block]:
    if fmt == "xml":
        el = replace(el, tag=_XML_SECTION_TAGS.get(el.tag, el.tag))
    return _blocks(el, fmt)


def _content_prefix(fmt: str, block: _Block) -> str:
    """The indentation of a text field's lines inside `block` (an element with a text)."""
    return "" if fmt == "xml" else " " * (block.col + (4 if block.item else 2))


# --------------------------------------------------------------------------- small sections

Variant = tuple[El, tuple[str, ...]]


def _fit_variants(
    name: str, budget: int, variants: Iterator[Variant], counter: TokenCounter, fmt: str
) -> Section:
    """The first variant (least compressed first) that fits; else a hard truncation."""
    blocks: list[_Block] = []
    labels: tuple[str, ...] = ()
    for el, labels in variants:
        blocks = _section_blocks(el, fmt)
        tokens = sum(counter.count(block.text) for block in blocks)
        if tokens <= budget:
            return Section(name, budget, "".join(b.text for b in blocks), tokens, labels)
    return _hard_section(name, budget, _body_text(blocks, fmt), labels, counter, fmt)


def _body_text(blocks: Sequence[_Block], fmt: str) -> str:
    if fmt == "xml":
        return "".join(block.text for block in blocks[1:-1])
    return textwrap.dedent("".join(block.text for block in blocks[1:]))


def _hard_section(
    name: str, budget: int, body: str, labels: tuple[str, ...], counter: TokenCounter, fmt: str
) -> Section:
    """The last resort that makes the budget a guarantee: the section as one truncated text."""
    labels = (*labels, "hard truncated")

    def as_text(value: str) -> str:
        return "".join(block.text for block in _section_blocks(El(name, text=value), fmt))

    allowance = budget - counter.count(as_text("x\nx"))
    for _ in range(6):
        if allowance <= 0:
            break
        text = as_text(cz.hard_truncate(body, allowance, counter))
        tokens = counter.count(text)
        if tokens <= budget:
            return Section(name, budget, text, tokens, labels)
        allowance -= tokens - budget
    text = as_text(OMITTED_TEXT)
    if counter.count(text) > budget:
        text = as_text("")
    return Section(name, budget, text, counter.count(text), (*labels, "omitted"))


def _system_section(phase: str, fmt: str, budget: int, counter: TokenCounter) -> Section:
    full = system_prompt(phase, fmt)
    if (tokens := counter.count(full)) <= budget:
        return Section("system_prompt", budget, full, tokens)
    brief = system_prompt(phase, fmt, brief=True)
    if (tokens := counter.count(brief)) <= budget:
        return Section("system_prompt", budget, brief, tokens, ("rules and action list dropped",))
    text = cz.hard_truncate(brief, budget, counter)
    labels = ("hard truncated",) if text else ("hard truncated", "omitted")
    return Section("system_prompt", budget, text, counter.count(text), labels)


def _task_frame_variants(spec: TaskSpec, state: TaskState) -> Iterator[Variant]:
    steps: list[tuple[bool, int | None, tuple[str, ...]]] = [
        (False, None, ()),
        (True, None, ("long texts cut to 500 characters",)),
    ]
    steps += [(True, cap, (f"lists capped at {cap} items",)) for cap in LIST_CAPS]
    for cut, cap, labels in steps:

        def text(value: str, cut: bool = cut) -> str:
            return cz.cut_error(value) if cut else value

        def listed(values: Sequence[str], cap: int | None = cap) -> list[str]:
            values = [text(value) for value in values]
            return values if cap is None else cz.cap_list(values, cap)

        el = El(
            "task_frame",
            items=_drop_empty(
                El("id", text=spec.id),
                El("goal", text=text(spec.goal)),
                El("task_type", text=spec.task_type),
                El("phase", text=state.phase),
                El("step", text=f"{state.next_step} of at most {spec.limits.max_steps}"),
                _seq("success_criteria", listed(spec.success_criteria), "criterion"),
                _seq("constraints", listed(spec.constraints), "constraint"),
                _seq("allowed_commands", listed(spec.allowed_commands), "command"),
                El("approval", text=spec.approval),
            ),
        )
        yield el, labels


def _verification_variants(spec: TaskSpec, state: TaskState) -> Iterator[Variant]:
    verification = state.verification
    lines: list[tuple[bool, str, str]] = []  # (passing, line, details)
    for check in spec.checks:
        result = verification.checks.get(check.name)
        if result is None:
            lines.append((False, f"{check.name}: not run", ""))
            continue
        status = "passing" if result.passing else "failing"
        tests = f", {result.passed}/{result.total} tests" if result.total is not None else ""
        since = f", since step {result.changed_at_step}" if result.changed_at_step else ""
        lines.append((result.passing, f"{check.name}: {status}{tests}{since}", result.details))
    for name, result in verification.checks.items():
        if all(check.name != name for check in spec.checks):
            lines.append(
                (
                    result.passing,
                    f"{name}: {'passing' if result.passing else 'failing'}",
                    result.details,
                )
            )
    failing_first = [line for line in lines if not line[0]] + [line for line in lines if line[0]]
    steps: list[tuple[bool, int | None, tuple[str, ...]]] = [
        (True, None, ()),
        (False, None, ("check details dropped",)),
    ]
    steps += [(False, cap, (f"checks capped at {cap}, failing first",)) for cap in LIST_CAPS]
    for details, cap, labels in steps:
        shown = [
            f"{line} ({cz.one_line(detail, 100)})" if details and detail else line
            for _, line, detail in (lines if cap is None else failing_first)
        ]
        el = El(
            "verification_status",
            items=_drop_empty(
                El("ready_for_completion", text=verification.ready_for_completion),
                El("checked_at_step", text=verification.step) if verification.checked_at else None,
                _seq("checks", shown if cap is None else cz.cap_list(shown, cap), "check"),
                _seq("regressions", verification.regressions, "check"),
            ),
        )
        yield el, labels


def _actions_variants(phase: str) -> Iterator[Variant]:
    actions = actions_of(phase)
    described = [f"{action.signature}: {action.description}" for action in actions]
    signatures = [action.signature for action in actions]
    yield _seq("available_actions", described, "tool"), ()
    yield _seq("available_actions", signatures, "tool"), ("descriptions dropped",)
    for cap in LIST_CAPS:
        yield (
            _seq("available_actions", cz.cap_list(signatures, cap), "tool"),
            ("descriptions dropped", f"actions capped at {cap}"),
        )


def action_target(args: Mapping[str, Any]) -> str:
    """The argument that names what an action worked on, for a one-line summary."""
    for key in ("path", "cmd", "pattern", "item", "name", "question", "text", "summary"):
        if key in args and args[key] not in (None, "", []):
            value = args[key]
            text = " ".join(map(str, value)) if isinstance(value, list) else str(value)
            return cz.one_line(text, 80)
    return ""


def _result_line(record: ResultRecord, limit: int) -> str:
    target = action_target(record.args)
    line = f"step {record.step}: {record.action}{' ' + target if target else ''} -> {record.result}"
    if record.summary:
        line += f": {cz.one_line(record.summary, limit)}"
    if record.error:
        line += f" | error: {cz.one_line(cz.cut_error(record.error), cz.ERROR_LIMIT + 40)}"
    return line


def _recent_variants(recent: Sequence[ResultRecord]) -> Iterator[Variant]:
    results = [record for record in recent if getattr(record, "kind", "result") == "result"]
    records = results[-RECENT_ACTIONS:]
    steps = [
        (records, SUMMARY_LIMIT, ()),
        (cz.drop_to(records), SUMMARY_LIMIT, ("recent actions dropped to 2",)),
        (cz.drop_to(records), 120, ("recent actions dropped to 2", "summaries cut to 120")),
        (cz.drop_to(records, 1), 120, ("recent actions dropped to 1", "summaries cut to 120")),
    ]
    for shown, limit, labels in steps:
        lines = [_result_line(record, limit) for record in shown]
        yield _seq("recent_actions", lines, "action"), labels


# --------------------------------------------------------------------------- current_state


@dataclass(frozen=True)
class _Squeeze:
    """How hard current_state is compressed, one step of the design's table at a time."""

    files: bool = False  # file content: first/last lines
    collapse: bool = False  # tool results on one line
    cut: bool = False  # errors and long texts cut to 500 characters
    list_cap: int | None = None  # lists keep the first N
    dropped: int = 0  # unpinned memory items omitted, oldest first
    pinned: bool = False  # the same strategies now apply to pinned items
    starve: bool = False  # file excerpts may shrink to nothing
    omit_pinned: bool = False  # pinned items cannot fit: the step must not go out

    def labels(self) -> tuple[str, ...]:
        labels = []
        if self.collapse:
            labels.append("tool results collapsed to one line")
        if self.cut:
            labels.append("errors and long texts cut to 500 characters")
        if self.list_cap is not None:
            labels.append(f"lists capped at {self.list_cap} items")
        if self.dropped:
            labels.append(f"{_items(self.dropped)} omitted")
        if self.pinned:
            labels.append("pinned items compressed")
        if self.starve:
            labels.append("file excerpts shrunk to fit")
        if self.omit_pinned:
            labels.append("pinned items omitted")
        return tuple(labels)


@dataclass(frozen=True)
class _Elastic:
    """Text sized to whatever room the rest of current_state leaves (file content)."""

    make: Callable[[str, int], El]  # (text, slot) -> the element holding it
    text: str
    numbered: bool
    memory: bool = False  # a working-memory item, which is dropped rather than starved
    pinned: bool = False


@lru_cache(maxsize=64)
def _measured(text: str, numbered: bool, encoding: str, prefix: str) -> cz.LineCosts:
    from forgetui.engine.tokens import counter_for_encoding

    lines = (_numbered(text) if numbered else _clean(text)).split("\n")
    return cz.measure_lines(lines, counter_for_encoding(encoding), prefix)


@lru_cache(maxsize=64)
def _read_text(path: str, mtime_ns: int, size: int) -> tuple[str, int] | None:
    """A target file's text and line count (None: binary), cached until its mtime or size
    changes."""
    data = Path(path).read_bytes()
    if b"\x00" in data[:8192]:
        return None
    text = data.decode("utf-8", errors="replace")
    return text, len(cz.split_lines(text))


@lru_cache(maxsize=64)
def _numbered(text: str) -> str:
    return cz.number_lines(text)


def _target_paths(workspace: Path, patterns: Sequence[str]) -> tuple[list[str], int]:
    """Target files named in task.yaml, globs expanded; (paths shown, how many more)."""
    paths: list[str] = []
    for pattern in patterns:
        if any(char in pattern for char in "*?["):
            try:
                matches = sorted(workspace.glob(pattern))
            except (ValueError, OSError):
                matches = []
            paths += [
                match.relative_to(workspace).as_posix() for match in matches if match.is_file()
            ]
        else:
            paths.append(pattern)
    unique = list(dict.fromkeys(paths))
    return unique[:MAX_TARGET_FILES], max(0, len(unique) - MAX_TARGET_FILES)


class _CurrentState:
    """Builds current_state: the task-type schema, working memory, decisions, progress."""

    def __init__(self, inputs: ContextInputs, counter: TokenCounter, fmt: str) -> None:
        self.inputs = inputs
        self.counter = counter
        self.fmt = fmt
        self.elastic: list[_Elastic] = []
        self.items = visible_items(inputs.memory, inputs.state.next_step)
        self.memory_refs: list[str] = []
        self.over_budget: list[str] = []
        self._headers: dict[tuple[int, int, bool], int] = {}
        self._rigid_key: _Squeeze | None = None
        self._rigid_blocks: tuple[list[_Block], list[str]] = ([], [])
        self._inputs_els = self._task_inputs()
        self._files_el = self._target_files()
        self._memory_slots = [self._memory_slot(item) for item in self.items]

    # -- the parts that do not depend on compression

    def _add_elastic(self, part: _Elastic) -> int:
        self.elastic.append(part)
        return len(self.elastic) - 1

    def _task_inputs(self) -> list[tuple[str, Any, int]]:
        """(key, value, slot) of the task-type inputs, type-specific ones first."""
        spec = self.inputs.spec
        order = {
            "fix_violation": ("violation", "check_definition"),
            "implement_feature": ("spec",),
            "write_tests": ("test_requirements", "test_patterns"),
            "generic": ("inputs",),
        }[spec.task_type]
        keys = (
            *order,
            "violation",
            "check_definition",
            "spec",
            "test_requirements",
            "test_patterns",
            "inputs",
        )
        found: list[tuple[str, Any, int]] = []
        for key in dict.fromkeys(keys):
            value = getattr(spec, key)
            if value in (None, "", [], {}):
                continue
            slot = -1
            if isinstance(value, str) and "\n" in value.strip():
                slot = self._add_elastic(_Elastic(partial(_text_el, key), value, numbered=False))
            found.append((key, value, slot))
        return found

    def _target_files(self) -> El | None:
        spec, workspace = self.inputs.spec, self.inputs.workspace
        if not spec.target_files:
            return None
        shown, more = _target_paths(workspace, spec.target_files)
        root = workspace.resolve()
        items: list[El] = []
        for rel in shown:
            items.append(self._target_file(root, rel))
        if more:
            items.append(El("file", text=f"... and {more} more"))
        return El("target_files", seq=True, items=tuple(items))

    def _target_file(self, root: Path, rel: str) -> El:
        def status(text: str) -> El:
            return El("file", attrs=(("path", rel), ("status", text)))

        path = (root / rel).resolve()
        if not path.is_relative_to(root):
            return status("outside the workspace")
        try:
            info = path.stat()
        except OSError:
            return status("missing")
        if not path.is_file():
            return status("not a file")
        if info.st_size > MAX_FILE_BYTES:
            return status(f"too large to excerpt ({info.st_size} bytes)")
        try:
            read = _read_text(str(path), info.st_mtime_ns, info.st_size)
        except OSError as exc:
            return status(f"unreadable ({exc.strerror or exc})")
        if read is None:
            return status(f"binary ({info.st_size} bytes)")
        text, lines = read
        if not lines:
            return El("file", attrs=(("path", rel), ("lines", 0)))
        attrs = (("path", rel), ("lines", lines))

        def make(excerpt: str, slot: int) -> El:
            return El("file", text=excerpt, attrs=attrs, text_key="excerpt", slot=slot)

        slot = self._add_elastic(_Elastic(make, text, numbered=True))
        return make("", slot)

    def _memory_slot(self, item: MemoryItem) -> int:
        content = item.content
        if (
            item.type == "loaded_context"
            and isinstance(content, str)
            and "\n" in content.strip()
            and not _errorish(item)
        ):
            attrs = _memory_attrs(item, self.inputs.state.next_step)

            def make(text: str, slot: int) -> El:
                return El(
                    "item",
                    text=text,
                    attrs=attrs,
                    text_key="content",
                    slot=slot,
                    mark="pinned" if item.pinned else "",
                )

            part = _Elastic(make, content, numbered=False, memory=True, pinned=item.pinned)
            return self._add_elastic(part)
        return -1

    # -- the tree at one compression step

    def tree(self, sq: _Squeeze, fills: Mapping[int, str]) -> tuple[El, list[str]]:
        """current_state at one compression step, and the refs of the memory items shown."""
        state = self.inputs.state
        cap = sq.list_cap

        def listed(
            values: Sequence[str], newest: int | None = None, cut: bool = sq.cut
        ) -> list[str]:
            """A list under the lists rule: the first `cap` items, or for a list that grows
            with the task (`newest` given) its newest ones."""
            values = [cz.cut_error(value) if cut else value for value in values]
            caps = [limit for limit in (newest, cap) if limit is not None]
            if not caps:
                return values
            return cz.cap_list(values, min(caps), end="first" if newest is None else "last")

        def elastic(slot: int) -> El:
            return self.elastic[slot].make(fills.get(slot, ""), slot)

        parts: list[El | None] = []
        for key, value, slot in self._inputs_els:
            if slot >= 0:
                parts.append(elastic(slot))
            elif isinstance(value, str):
                parts.append(El(key, text=cz.cut_error(value) if sq.cut else value))
            else:
                parts.append(_value_el(key, value, cut=sq.cut, cap=cap))
        if self._files_el is not None:
            files = [elastic(el.slot) if el.slot >= 0 else el for el in self._files_el.items]
            parts.append(replace(self._files_el, items=tuple(files)))
        memory, refs = self._memory(sq, elastic)
        parts.append(memory)
        parts.append(self._decisions(sq))
        progress = state.progress
        parts.append(
            El(
                "progress",
                items=_drop_empty(
                    El("objective", text=progress.objective),
                    _seq("completed", listed(progress.completed, COMPLETED_SHOWN), "step"),
                    _seq("pending", listed(progress.pending), "step"),
                ),
            )
        )
        parts.append(_seq("scratchpad", listed(state.scratchpad, SCRATCHPAD_SHOWN), "note"))

        parts.append(self._plan(cap))
        probe = state.probe
        commands = [
            f"{run.cmd} -> {'no exit code' if run.exit_code is None else f'exit {run.exit_code}'}"
            f" (step {run.step})"
            for run in probe.recent_commands
        ]
        parts.append(
            El(
                "probe",
                items=_drop_empty(
                    _seq("files_written", listed(probe.files_written, PROBE_SHOWN), "path"),
                    _seq("files_missing", listed(probe.files_missing, PROBE_SHOWN), "path"),
                    _seq("recent_commands", listed(commands), "command"),
                    _seq("last_errors", listed(probe.last_errors, cut=True), "error"),
                ),
            )
        )
        parts.append(_seq("blocked", listed(state.loop_guard.blocked), "signature"))
        escalation = state.pending_escalation
        if escalation is not None:
            parts.append(
                El(
                    "pending_escalation",
                    items=_drop_empty(
                        El("reason", text=escalation.reason),
                        El("question", text=escalation.question),
                        _seq("options", listed(escalation.options), "option"),
                        _seq("evidence", listed(escalation.evidence, cut=True), "item"),
                        El("step", text=escalation.step),
                    ),
                )
            )
        return El("current_state", items=_drop_empty(*parts)), refs

    def _memory(self, sq: _Squeeze, elastic: Callable[[int], El]) -> tuple[El | None, list[str]]:
        items: list[El] = []
        refs: list[str] = []
        dropped = 0
        omitted_pinned: list[str] = []
        for item, slot in zip(self.items, self._memory_slots, strict=True):
            if not item.pinned and dropped < sq.dropped:
                dropped += 1
                continue
            if item.pinned and sq.omit_pinned:
                omitted_pinned.append(item.ref)
                continue
            squeeze = not item.pinned or sq.pinned
            refs.append(item.ref)
            if slot >= 0:
                items.append(elastic(slot))
            else:
                items.append(self._memory_el(item, sq if squeeze else _Squeeze()))
        if dropped:
            items.append(El("item", text=f"{_items(dropped)} omitted (oldest first)"))
        if omitted_pinned:
            items.append(
                El(
                    "item",
                    text=f"pinned items omitted (context over budget): {', '.join(omitted_pinned)}",
                )
            )
        return (El("memory", seq=True, items=tuple(items)) if items else None), refs

    def _memory_el(self, item: MemoryItem, sq: _Squeeze) -> El:
        attrs = _memory_attrs(item, self.inputs.state.next_step)
        mark = "pinned" if item.pinned else ""
        content = item.content
        if sq.collapse and item.type == "action_result":
            content = cz.one_line(content)
        elif sq.cut and isinstance(content, str):
            content = cz.cut_error(content)
        if isinstance(content, str):
            return El("item", text=content, attrs=attrs, text_key="content", mark=mark)
        value = _value_el("content", content, cut=sq.cut, cap=sq.list_cap)
        return El("item", attrs=attrs, items=(value,), mark=mark)

    def _decisions(self, sq: _Squeeze) -> El | None:
        """All operator decisions, never dropped; under pressure only the questions shrink."""
        decisions = self.inputs.state.decisions
        if not decisions:
            return None
        items = tuple(
            El(
                "decision",
                attrs=(("step", decision.step),),
                items=(
                    El(
                        "question",
                        text=cz.cut_error(decision.question, 200) if sq.cut else decision.question,
                    ),
                    El("answer", text=decision.answer),
                ),
                mark="decision",
            )
            for decision in decisions
        )
        return El("decisions", seq=True, items=items)

    def _plan(self, cap: int | None) -> El | None:
        plan = self.inputs.state.plan or self.inputs.spec.plan
        if plan is None:
            return None
        current = plan.current()
        marks = {"pending": "[ ]", "done": "[x]", "failed": "[!]"}
        lines: list[str] = []
        current_line = 0
        for ti, task in enumerate(plan.tasks):
            lines.append(f"{ti + 1}. {task.title}")
            for si, sub in enumerate(task.subtasks):
                reason = f" ({sub.reason})" if sub.reason else ""
                here = (ti, si) == current
                if here:
                    current_line = len(lines)
                line = f"{ti + 1}.{si + 1} {marks[sub.status]} {sub.title}{reason}"
                lines.append(line + ("  <- current" if here else ""))
        if cap is not None:
            lines = cz.cap_around(lines, current_line, cap)
        return El("plan", items=_drop_empty(El("goal", text=plan.goal), _seq("steps", lines)))

    # -- fitting

    def build(self, budget: int) -> Section:
        has_pinned = any(item.pinned for item in self.items)
        unpinned = sum(not item.pinned for item in self.items)
        need = 0
        for sq in self._squeezes(unpinned, has_pinned):
            if sq.omit_pinned and not self.over_budget:
                refs = ", ".join(item.ref for item in self.items if item.pinned)
                self.over_budget.append(
                    f"context over budget: pinned items {refs} need {need} tokens, "
                    f"current_state budget {budget}"
                )
            section, need = self._attempt(sq, budget)
            if section is not None:
                return section
        tree, self.memory_refs = self.tree(_Squeeze(cut=True, list_cap=LIST_CAPS[-1]), {})
        body = _body_text(_section_blocks(tree, self.fmt), self.fmt)
        section = _hard_section("current_state", budget, body, (), self.counter, self.fmt)
        if not self.over_budget:
            self.over_budget.append(
                f"context over budget: {len(self.inputs.state.decisions)} operator decisions "
                f"and the task inputs need {need} tokens, current_state budget {budget}"
            )
        return section

    @staticmethod
    def _squeezes(unpinned: int, has_pinned: bool) -> Iterator[_Squeeze]:
        sq = _Squeeze()
        yield sq
        for change in ({"files": True}, {"collapse": True}, {"cut": True}):
            sq = replace(sq, **change)
            yield sq
        for cap in LIST_CAPS:
            sq = replace(sq, list_cap=cap)
            yield sq
        for dropped in range(1, unpinned + 1):
            sq = replace(sq, dropped=dropped)
            yield sq
        if has_pinned:
            sq = replace(sq, pinned=True)
            yield sq
        sq = replace(sq, starve=True)
        yield sq
        if has_pinned:
            yield replace(sq, omit_pinned=True)

    def _rigid(self, sq: _Squeeze) -> tuple[list[_Block], list[str]]:
        """The section's blocks with the elastic parts left empty, and the memory refs shown.
        Steps that change only how files are cut share one rendering."""
        key = replace(sq, files=False, starve=False)
        if key != self._rigid_key:
            tree, refs = self.tree(sq, {})
            self._rigid_key, self._rigid_blocks = key, (_section_blocks(tree, self.fmt), refs)
        return self._rigid_blocks

    def _attempt(self, sq: _Squeeze, budget: int) -> tuple[Section | None, int]:
        """current_state at one compression step if it fits, and the tokens its pinned items
        and decisions need."""
        count = self.counter.count
        blocks, refs = self._rigid(sq)
        rigid = sum(count(block.text) for block in blocks if block.el.slot < 0)
        need = sum(count(b.text) for b in blocks if b.el.mark and b.el.slot < 0)
        placed = [block for block in blocks if block.el.slot >= 0]
        need += sum(self._floor(b, sq) for b in placed if self.elastic[b.el.slot].pinned)
        allotted = self._allot(placed, budget - rigid, sq)
        if allotted is None:
            return None, need
        fills, excerpted = allotted
        texts = [fills[b.el.slot] if b.el.slot >= 0 else b.text for b in blocks]
        tokens = sum(count(text) for text in texts)
        if tokens > budget:
            return None, need
        labels = sq.labels()
        if excerpted:
            labels = ("file content: first and last lines kept", *labels)
        self.memory_refs = refs
        return Section("current_state", budget, "".join(texts), tokens, labels), need

    def _render(self, block: _Block, text: str) -> str:
        """An elastic part's block holding `text`."""
        el = self.elastic[block.el.slot].make(text, block.el.slot)
        return render_el(el, self.fmt, block.col, block.item)

    def _header(self, block: _Block) -> int:
        """Tokens of an elastic element without its text lines."""
        key = (block.el.slot, block.col, block.item)
        if key not in self._headers:
            prefix = _content_prefix(self.fmt, block)
            sample = self.counter.count(self._render(block, "x\nx"))
            self._headers[key] = sample - 2 * self.counter.count(f"{prefix}x\n")
        return self._headers[key]

    def _measure(self, block: _Block) -> cz.LineCosts:
        part = self.elastic[block.el.slot]
        prefix = _content_prefix(self.fmt, block)
        return _measured(part.text, part.numbered, self.counter.encoding_name, prefix)

    def _full(self, block: _Block) -> str:
        part = self.elastic[block.el.slot]
        return self._render(block, _numbered(part.text) if part.numbered else part.text)

    def _compressible(self, slot: int, sq: _Squeeze) -> bool:
        return sq.files and (not self.elastic[slot].pinned or sq.pinned)

    def _floor(self, block: _Block, sq: _Squeeze) -> int:
        full = self._header(block) + self._measure(block).total_tokens
        if not self._compressible(block.el.slot, sq):
            return full
        if sq.starve and not self.elastic[block.el.slot].memory:
            return min(full, self._header(block))
        return min(full, self._header(block) + MIN_EXCERPT_TOKENS)

    def _allot(
        self, placed: list[_Block], room: int, sq: _Squeeze
    ) -> tuple[dict[int, str], bool] | None:
        """The elastic parts' blocks within `room` tokens (and whether any was excerpted), or
        None when they cannot fit."""
        fulls = [self._header(b) + self._measure(b).total_tokens for b in placed]
        if sum(fulls) <= room:
            return {b.el.slot: self._full(b) for b in placed}, False
        floors = [self._floor(b, sq) for b in placed]
        if sum(floors) > room:
            return None
        shares = _water_fill(room, fulls, floors)
        fills: dict[int, str] = {}
        for block, full, floor, share in zip(placed, fulls, floors, shares, strict=True):
            if share >= full:
                fills[block.el.slot] = self._full(block)
                continue
            text = self._fit(block, max(floor, share - share % EXCERPT_QUANTUM))
            if text is None:
                return None
            fills[block.el.slot] = text
        return fills, True

    def _fit(self, block: _Block, allotment: int) -> str | None:
        """The block of the longest first/last-lines excerpt that fits `allotment`."""
        measured = self._measure(block)
        body = allotment - self._header(block)
        for _ in range(4):
            excerpt = cz.fit_lines(measured, max(0, body), self.counter)
            text = self._render(block, excerpt.text)
            tokens = self.counter.count(text)
            if tokens <= allotment:
                return text
            body -= tokens - allotment
        return None


def _water_fill(room: int, fulls: Sequence[int], floors: Sequence[int]) -> list[int]:
    """Share `room` so that small parts get all they need and large ones split the rest evenly,
    none below its floor (the floors must fit)."""
    shares = [0] * len(fulls)
    pending = sorted(range(len(fulls)), key=lambda index: fulls[index])
    left = room
    while pending:
        share = left // len(pending)
        smallest = pending[0]
        if fulls[smallest] <= share:
            shares[smallest] = fulls[smallest]
            left -= fulls[smallest]
            pending.pop(0)
            continue
        above = next((index for index in pending if floors[index] > share), None)
        if above is not None:
            shares[above] = floors[above]
            left -= floors[above]
            pending.remove(above)
            continue
        for index in pending:
            shares[index] = share
        break
    return shares


def _text_el(tag: str, text: str, slot: int) -> El:
    return El(tag, text=text, slot=slot)


def _items(count: int) -> str:
    return f"{count} memory item{'' if count == 1 else 's'}"


def _errorish(item: MemoryItem) -> bool:
    return (item.key or "").split(":", 1)[0] in ("test_output", "error_details")


def _memory_attrs(item: MemoryItem, next_step: int) -> tuple[tuple[str, Scalar], ...]:
    return (
        ("ref", item.ref),
        ("type", item.type),
        ("pinned", item.pinned),
        ("expires_in_steps", item.steps_left(next_step)),
    )


# --------------------------------------------------------------------------- validation


def _missing_fields(user: str, fmt: str, inputs: ContextInputs) -> list[str]:
    """Required fields absent from the user message, and decisions whose answer is missing."""
    spec, state = inputs.spec, inputs.state
    answers = [cz.clean_text(decision.answer) for decision in state.decisions]
    problems: list[str] = []
    if fmt == "xml":
        tags = (
            "<task_context>",
            "<task_frame>",
            "<id>",
            "<goal>",
            "<phase>",
            "<current_state",
            "<recent_actions",
            "<verification_status",
            "<tools",
        )
        problems += [f"user message lacks {tag}" for tag in tags if tag not in user]
        shown = user
        missing = [answer for answer in answers if answer not in shown]
    else:
        try:
            data = yaml.load(user, Loader=_YAML_LOADER)
        except yaml.YAMLError as exc:
            return [f"user message is not valid YAML: {exc}"]
        if not isinstance(data, dict):
            return ["user message is not a YAML mapping"]
        problems += [f"user message lacks {name}" for name in SECTION_NAMES[1:] if name not in data]
        frame = data.get("task_frame")
        frame = frame if isinstance(frame, dict) else {}
        problems += [
            f"task_frame lacks {key}" for key in ("id", "goal", "phase") if key not in frame
        ]
        current = data.get("current_state")
        decisions = current.get("decisions") if isinstance(current, dict) else None
        given = {
            str(entry.get("answer"))
            for entry in decisions or []
            if isinstance(entry, dict) and "answer" in entry
        }
        missing = [answer for answer in answers if answer not in given]
    if spec.id not in user:
        problems.append(f"user message lacks the task id {spec.id}")
    problems += [f"decision answer missing: {cz.one_line(answer, 60)}" for answer in missing]
    return problems


__all__ = [
    "CompiledContext",
    "ContextInputs",
    "El",
    "Section",
    "action_target",
    "compile_context",
    "render_el",
    "validate_context",
]
