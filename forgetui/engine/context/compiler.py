"""The compiled context (DESIGN.md section 4): a view over the task's state, never a history.

Every step is two messages: the phase's system prompt and a user message of five sections
(task_frame, current_state, recent_actions, verification_status, available_actions) rendered
as YAML or XML. Each section is built as a small element tree, compressed in the order of the
design's table until it fits its budget, and rendered as blocks whose token counts add up
(render.py), so a block that did not change since the last preview costs a cache lookup.
`validate_context` recounts every section from its text, the check before a context is sent.

`compile_context` has no side effects: it reads the target files (cached by path, mtime and
size) and writes nothing."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from forgetui.engine.context.current_state import CurrentState
from forgetui.engine.context.inputs import CompiledContext, ContextInputs, Section
from forgetui.engine.context.render import XML_WRAPPER
from forgetui.engine.context.sections import (
    actions_variants,
    fit_variants,
    recent_variants,
    system_section,
    task_frame_variants,
    verification_variants,
)
from forgetui.engine.task import SECTION_NAMES
from forgetui.engine.tokens import counter_for

SECTION_FLOOR = 15  # the smallest budget a section is squeezed to when max_tokens binds


def compile_context(inputs: ContextInputs) -> CompiledContext:
    """The two messages of the next step, every section within its budget and the whole within
    max_tokens. Pure: nothing is written, the inputs are not changed."""
    spec, state = inputs.spec, inputs.state
    counter = counter_for(inputs.model or spec.model)
    fmt = spec.context_format
    budgets = spec.limits.budgets()
    max_tokens = spec.limits.max_tokens
    wrapper = XML_WRAPPER if fmt == "xml" else ("", "")
    used = sum(counter.count(part) for part in wrapper if part)

    builders: dict[str, Callable[[int], Section]] = {
        "system_prompt": lambda budget: system_section(state.phase, fmt, budget, counter),
        "task_frame": lambda budget: fit_variants(
            "task_frame", budget, task_frame_variants(spec, state), counter, fmt
        ),
        "verification_status": lambda budget: fit_variants(
            "verification_status", budget, verification_variants(spec, state), counter, fmt
        ),
        "available_actions": lambda budget: fit_variants(
            "available_actions", budget, actions_variants(state.phase), counter, fmt
        ),
        "recent_actions": lambda budget: fit_variants(
            "recent_actions", budget, recent_variants(inputs.recent), counter, fmt
        ),
    }
    state_builder = CurrentState(inputs, counter, fmt)
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
