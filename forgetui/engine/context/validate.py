"""The check before a context is sent: every section recounted from its text, the messages
exactly those sections, and the fields the model cannot work without (and every operator
decision's answer) present, so a compiler bug stops the step instead of reaching the model."""

from __future__ import annotations

import yaml

from forgetui.engine.base import compress as cz
from forgetui.engine.base.tokens import counter_for
from forgetui.engine.context.inputs import CompiledContext, ContextInputs
from forgetui.engine.context.render import XML_WRAPPER
from forgetui.engine.folder.task_spec import SECTION_NAMES

_YAML_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


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
    wrapper = XML_WRAPPER if ctx.format == "xml" else ("", "")
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
