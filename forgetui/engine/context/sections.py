"""The sections other than current_state. Each is a short list of variants, least compressed
first, and the first that fits its budget goes out; a hard truncation is the last resort that
makes the budget a guarantee."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator, Sequence

from forgetui.engine.base import compress as cz
from forgetui.engine.base.tokens import TokenCounter
from forgetui.engine.context.inputs import Section
from forgetui.engine.context.overlap import named_in
from forgetui.engine.context.prompts import system_prompt
from forgetui.engine.context.render import section_blocks
from forgetui.engine.context.tree import Block, El, drop_empty, seq
from forgetui.engine.folder.catalog import action_target, actions_of
from forgetui.engine.folder.policy import max_cost_of, max_steps_of
from forgetui.engine.folder.records import ResultRecord
from forgetui.engine.folder.task_spec import TaskSpec
from forgetui.engine.folder.task_state import TaskState
from forgetui.engine.llm.parse import tool_schemas

RECENT_ACTIONS = 3
LIST_CAPS = (5, 2)
SUMMARY_LIMIT = 300
OMITTED_TEXT = "[omitted: over budget]"
TOOLS_SENT_NOTE = "sent with this request as tools; call exactly one"

Variant = tuple[El, tuple[str, ...]]


def fit_variants(
    name: str, budget: int, variants: Iterator[Variant], counter: TokenCounter, fmt: str
) -> Section:
    """The first variant (least compressed first) that fits; else a hard truncation."""
    blocks: list[Block] = []
    labels: tuple[str, ...] = ()
    for el, labels in variants:
        blocks = section_blocks(el, fmt)
        tokens = sum(counter.count(block.text) for block in blocks)
        if tokens <= budget:
            return Section(name, budget, "".join(b.text for b in blocks), tokens, labels)
    return hard_section(name, budget, body_text(blocks, fmt), labels, counter, fmt)


def body_text(blocks: Sequence[Block], fmt: str) -> str:
    if fmt == "xml":
        return "".join(block.text for block in blocks[1:-1])
    return textwrap.dedent("".join(block.text for block in blocks[1:]))


def hard_section(
    name: str, budget: int, body: str, labels: tuple[str, ...], counter: TokenCounter, fmt: str
) -> Section:
    """The last resort that makes the budget a guarantee: the section as one truncated text."""
    labels = (*labels, "hard truncated")

    def as_text(value: str) -> str:
        return "".join(block.text for block in section_blocks(El(name, text=value), fmt))

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


def system_section(phase: str, fmt: str, budget: int, counter: TokenCounter) -> Section:
    full = system_prompt(phase, fmt)
    if (tokens := counter.count(full)) <= budget:
        return Section("system_prompt", budget, full, tokens)
    brief = system_prompt(phase, fmt, brief=True)
    if (tokens := counter.count(brief)) <= budget:
        return Section("system_prompt", budget, brief, tokens, ("rules and action list dropped",))
    text = cz.hard_truncate(brief, budget, counter)
    labels = ("hard truncated",) if text else ("hard truncated", "omitted")
    return Section("system_prompt", budget, text, counter.count(text), labels)


def task_frame_variants(spec: TaskSpec, state: TaskState) -> Iterator[Variant]:
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
            items=drop_empty(
                El("id", text=spec.id),
                El("goal", text=text(spec.goal)),
                El("task_type", text=spec.task_type),
                El("phase", text=state.phase),
                El("step", text=f"{state.next_step} of at most {max_steps_of(spec, state)}"),
                _cost_element(spec, state),
                seq("success_criteria", listed(spec.success_criteria), "criterion"),
                seq("constraints", listed(spec.constraints), "constraint"),
                seq("allowed_commands", listed(spec.allowed_commands), "command"),
                El("approval", text=spec.approval),
            ),
        )
        yield el, labels


def _cost_element(spec: TaskSpec, state: TaskState) -> El | None:
    """The cost so far against the limit in force; none without a cost limit (a local model
    costs nothing and the line would only take tokens)."""
    limit = max_cost_of(spec, state)
    if limit is None:
        return None
    return El("cost", text=f"${state.totals.cost_usd:.4f} of at most ${limit:.4f}")


def verification_variants(spec: TaskSpec, state: TaskState) -> Iterator[Variant]:
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
            f"{line} ({cz.one_line(detail, 100)})" if details and detail and not passing else line
            for passing, line, detail in (lines if cap is None else failing_first)
        ]
        el = El(
            "verification_status",
            items=drop_empty(
                El("ready_for_completion", text=verification.ready_for_completion),
                El("checked_at_step", text=verification.step) if verification.checked_at else None,
                seq("checks", shown if cap is None else cz.cap_list(shown, cap), "check"),
                seq("regressions", verification.regressions, "check"),
            ),
        )
        yield el, labels


def tool_schema_text(phase: str) -> str:
    """The phase's tool schemas as they go with a request (JSON), for counting their tokens."""
    return json.dumps(tool_schemas(actions_of(phase)))


def actions_variants(phase: str, tools_sent: bool = False) -> Iterator[Variant]:
    """The phase's actions described, or, when their tool schemas go with the request, named
    only: the schemas describe them already, and saying it twice costs tokens."""
    actions = actions_of(phase)
    if tools_sent:
        names = [action.name for action in actions]
        for cap, labels in ((None, ()), *((c, (f"actions capped at {c}",)) for c in LIST_CAPS)):
            shown = names if cap is None else cz.cap_list(names, cap)
            el = El(
                "available_actions",
                items=(
                    El("names", text=", ".join(shown)),
                    El("schemas", text=TOOLS_SENT_NOTE),
                ),
            )
            yield el, labels
        return
    described = [f"{action.signature}: {action.description}" for action in actions]
    signatures = [action.signature for action in actions]
    yield seq("available_actions", described, "tool"), ()
    yield seq("available_actions", signatures, "tool"), ("descriptions dropped",)
    for cap in LIST_CAPS:
        yield (
            seq("available_actions", cz.cap_list(signatures, cap), "tool"),
            ("descriptions dropped", f"actions capped at {cap}"),
        )


def _result_line(record: ResultRecord, limit: int) -> str:
    summary, error = record.summary, record.error
    target = action_target(record.args)
    if target and summary and named_in(target, summary):  # "read a.py -> success: read a.py"
        target = ""
    line = f"step {record.step}: {record.action}{' ' + target if target else ''} -> {record.result}"
    if summary and error and summary.endswith(error):  # "unparsed response: ERROR": say it once
        summary = summary[: -len(error)].rstrip(" :")
    if summary:
        line += f": {cz.one_line(summary, limit)}"
    if error:
        # lines stay apart ("...; expected: one ```yaml block ..."); a parse error is far under
        # ERROR_LIMIT, so the line on the expected form always shows
        lines = "; ".join(part.strip() for part in cz.cut_error(error).splitlines() if part.strip())
        line += f" | error: {cz.one_line(lines, cz.ERROR_LIMIT + 40)}"
    return line


def recent_variants(recent: Sequence[ResultRecord]) -> Iterator[Variant]:
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
        yield seq("recent_actions", lines, "action"), labels
