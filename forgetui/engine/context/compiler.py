"""The compiled context: a view over the task's state, never a history.

Every step is two messages: the phase's system prompt and a user message of five sections
(task_frame, current_state, recent_actions, verification_status, available_actions) rendered
as YAML or XML. Each section is built as a small element tree, compressed in the order of the
compression table (base/compress.py) until it fits its budget, and rendered as blocks whose
token counts add up (render.py), so a block that did not change since the last preview costs a
cache lookup.
`validate_context` recounts every section from its text, the check before a context is sent.

`compile_context` has no side effects: it reads the target files (cached by path, mtime and
size) and writes nothing."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from itertools import islice

from forgetui.engine.base.tokens import TokenCounter, counter_for
from forgetui.engine.context.current_state import CurrentState, drop_strategy
from forgetui.engine.context.inputs import (
    TOKENIZER_MARGIN,
    CompiledContext,
    ContextInputs,
    Section,
    WindowCap,
)
from forgetui.engine.context.render import XML_WRAPPER
from forgetui.engine.context.sections import (
    actions_variants,
    fit_variants,
    recent_variants,
    system_section,
    task_frame_variants,
    tool_schema_text,
    verification_variants,
)
from forgetui.engine.context.tiers import (
    ALERT,
    KEPT_UNPINNED,
    MORE,
    OPTIONAL,
    RECENT_VARIANT,
    alert_text,
    floor_of,
    tier_notes,
    tier_of,
)
from forgetui.engine.folder.memory import Exclusion, WorkingMemory, visible_items
from forgetui.engine.folder.task_spec import SECTION_NAMES
from forgetui.engine.sandbox.redact import redact, secrets_of

SECTION_FLOOR = 15  # the smallest budget a section is squeezed to when max_tokens binds
USABLE_FLOOR = SECTION_FLOOR * len(SECTION_NAMES)  # less room than this is no context at all
OPTIONAL_NOTE = f"usage tier {OPTIONAL.at}%"  # the note of the tier that drops memory items
MESSAGE_MARKER = "(redacted ${name})"  # no bracket, colon or angle: the same in YAML and XML


def compile_context(inputs: ContextInputs) -> CompiledContext:
    """The two messages of the next step, every section within its budget and the whole (tool
    schemas included) within max_tokens, or under the model's window when that is smaller.
    Pure: nothing is written, the inputs are not changed. One function on purpose: the
    running `used` total threads through the cap, the section order and the secret scan, and
    reads as one budget only when it is spent in one place."""
    spec, state, fit = inputs.spec, inputs.state, inputs.fit
    counter = counter_for(inputs.model or spec.model)
    fmt = spec.context_format
    budgets = spec.limits.budgets()
    window = fit.window_cap()
    max_tokens = spec.limits.max_tokens
    limit = f"max_tokens {max_tokens}"
    if window is not None and window.cap < max_tokens:
        max_tokens = window.cap
        limit = f"the model's window ({max_tokens:,} = {window.describe()})"
    wrapper = XML_WRAPPER if fmt == "xml" else ("", "")
    # The schemas are sent as they are, whatever the budgets: they are taken off the top, like
    # the wrapper, and the sections share what is left. available_actions' own budget is for
    # its text (with tools sent, a list of names): the schemas replace the descriptions it
    # would otherwise hold, and the phase's (up to ~900 tokens) would not fit its 800.
    tool_tokens = counter.count(tool_schema_text(state.phase)) if fit.tools_sent else 0
    used = tool_tokens + sum(counter.count(part) for part in wrapper if part)
    room = max_tokens - used

    builders: dict[str, Callable[[int], Section]] = {
        "system_prompt": lambda budget: system_section(state.phase, fmt, budget, counter),
        "task_frame": lambda budget: fit_variants(
            "task_frame", budget, task_frame_variants(spec, state), counter, fmt
        ),
        "verification_status": lambda budget: fit_variants(
            "verification_status", budget, verification_variants(spec, state), counter, fmt
        ),
        "available_actions": lambda budget: fit_variants(
            "available_actions",
            budget,
            actions_variants(state.phase, fit.tools_sent),
            counter,
            fmt,
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
            note = f"budget cut from {budgets[name]} to {budget} to fit {limit}"
            section = replace(section, compressions=(*section.compressions, note))
        built[name] = section
        used += section.tokens

    # The usage tiers act on what the budgets alone built: the sections they shrink are built
    # again, each within the budget it had, so the cap holds as it did.
    tier, percent = tier_of(used, max_tokens), used * 100 / max(max_tokens, 1)
    if tier:
        tiered = with_tiers(inputs, state_builder, built, tier, percent, max_tokens, counter)
        used += sum(tiered[name].tokens - built[name].tokens for name in tiered)
        built.update(tiered)
    alert = None
    previous = inputs.previous_tier
    if previous is not None and previous < ALERT.at <= tier:
        alert = alert_text(percent, max_tokens)
        section = built["current_state"]
        notes = (*section.compressions, f"operator alerted: {alert}")
        built["current_state"] = replace(section, compressions=notes)

    # The last look before the messages are made: no secret value leaves in them, whichever
    # section took it in (a target file's excerpt, a check's details, an operator's note).
    secrets = secrets_of(os.environ)
    sections = tuple(without_secrets(built[name], secrets, counter) for name in SECTION_NAMES)
    used += sum(section.tokens - built[section.name].tokens for section in sections)
    user = wrapper[0] + "".join(section.text for section in sections[1:]) + wrapper[1]
    over = [*state_builder.over_budget]
    over += [
        f"context over budget: {section.name} had to be cut to its {section.budget} tokens"
        for section in sections
        if "hard truncated" in section.compressions and section.name != "current_state"
    ]
    problem = None
    if window is not None and max_tokens == window.cap and (room < USABLE_FLOOR or over):
        problem = window_problem(window, tool_tokens, room, over)
    return CompiledContext(
        step=state.next_step,
        format=fmt,
        sections=sections,
        total_tokens=used - tool_tokens,
        max_tokens=max_tokens,
        messages=(
            {"role": "system", "content": built["system_prompt"].text},
            {"role": "user", "content": user},
        ),
        memory_refs=tuple(state_builder.memory_refs),
        over_budget=tuple(over),
        tool_tokens=tool_tokens,
        window=window,
        window_problem=problem,
        usage_tier=tier,
        usage_percent=round(percent, 1),
        alert=alert,
    )


def with_tiers(
    inputs: ContextInputs,
    state_builder: CurrentState,
    built: Mapping[str, Section],
    tier: int,
    percent: float,
    cap: int,
    counter: TokenCounter,
) -> dict[str, Section]:
    """The sections `tier` builds again, within the budgets they had, each with the tier's
    notes first: current_state at least as compressed as the tier's floor; from MORE,
    recent_actions from its shorter variants when they are shorter."""
    notes = tuple(tier_notes(tier, percent, cap))
    items = state_builder.items
    has_tree = state_builder.state_tree.tree is not None
    floor = floor_of(tier, sum(not item.pinned for item in items), has_tree)
    tiered = {"current_state": state_builder.build(built["current_state"].budget, floor)}
    if tier >= MORE.at:
        recent = built["recent_actions"]
        variants = islice(recent_variants(inputs.recent), RECENT_VARIANT, None)
        fmt = inputs.spec.context_format
        shorter = fit_variants("recent_actions", recent.budget, variants, counter, fmt)
        if shorter.tokens < recent.tokens:
            tiered["recent_actions"] = shorter
    for name, section in tiered.items():
        cuts = tuple(c for c in built[name].compressions if c.startswith("budget cut from"))
        tiered[name] = replace(section, compressions=(*notes, *section.compressions, *cuts))
    return tiered


def without_secrets(section: Section, secrets: Mapping[str, str], counter: TokenCounter) -> Section:
    """`section` with each secret value (and its form inside a JSON-quoted scalar, how a
    section quotes a one-line string) replaced by `(redacted $NAME)`, a marker that reads the
    same in a YAML plain scalar, a quoted one or XML; recounted."""
    quoted = {name: json.dumps(value, ensure_ascii=False)[1:-1] for name, value in secrets.items()}
    text, names = redact(section.text, secrets, marker=MESSAGE_MARKER)
    if any(quoted[name] != value for name, value in secrets.items()):
        text, more = redact(text, quoted, marker=MESSAGE_MARKER)
        names = sorted({*names, *more})
    if not names:
        return section
    return replace(
        section,
        text=text,
        tokens=counter.count(text),
        compressions=(*section.compressions, f"secret values cut ({', '.join(names)})"),
    )


def step_exclusions(
    ctx: CompiledContext, memory: WorkingMemory, departed: Sequence[Exclusion]
) -> list[Exclusion]:
    """Every memory item out of this context and why, as its file and intent record keep it:
    the departures since the last saved context (`departed`, state.yaml's) whose item this
    context does not show again, then the items memory holds that the compiler left out of
    current_state, with the squeeze that did (`memory`: as the step holds it, expired items
    gone). One entry per item: a budget drop is the reason it is out now."""
    shown = set(ctx.memory_refs)
    section = ctx.section("current_state")
    tier_note = next((c for c in section.compressions if c.startswith(OPTIONAL_NOTE)), None)
    items = visible_items(memory, ctx.step)
    unpinned = [item.ref for item in items if not item.pinned]
    kept = KEPT_UNPINNED[MORE.at if ctx.usage_tier >= MORE.at else OPTIONAL.at]
    by_tier = set(unpinned[: max(0, len(unpinned) - kept)]) if tier_note else set()
    squeezed = replace(section, compressions=tuple(
        c for c in section.compressions if not c.startswith(("usage tier", "operator alerted"))
    ))  # fmt: skip
    dropped = [
        Exclusion(
            ref=item.ref,
            reason="dropped for budget",  # the tier's, when its note is the strategy
            since_step=ctx.step,
            strategy=tier_note
            if item.ref in by_tier and tier_note
            else drop_strategy(squeezed, item.pinned),
        )
        for item in items
        if item.ref not in shown
    ]
    out = shown | {exclusion.ref for exclusion in dropped}
    return [*(e for e in departed if e.ref not in out), *dropped]


def compressions_of(ctx: CompiledContext) -> dict[str, list[str]]:
    """Section name -> what was squeezed to fit its budget, for the sections that were."""
    return {s.name: list(s.compressions) for s in ctx.sections if s.compressions}


def window_problem(window: WindowCap, tool_tokens: int, room: int, over: Sequence[str]) -> str:
    """The escalation's question when the model's window leaves too little for a context: the
    numbers, and what would make room."""
    left = f"{window.cap:,} for the context"
    if tool_tokens:
        left += f"; the tool schemas take {tool_tokens:,} of them"
    why = (
        f"{max(room, 0):,} left for its sections is fewer than the {USABLE_FLOOR} the smallest "
        "context needs"
        if room < USABLE_FLOOR
        else f"the sections cannot be cut to fit ({over[0]})"
    )
    fixes = "a smaller max_output_tokens (--max-output-tokens)"
    if tool_tokens:
        fixes += " or no tools (--tools off)"
    return (
        f"The context does not fit the model's window: {window.window:,} tokens, less the "
        f"{window.max_output_tokens:,}-token output cap and a {round(TOKENIZER_MARGIN * 100)}% "
        f"margin for the server's tokenizer, leave {left}; {why}. Give the model a larger "
        f"window (a larger context size on its server, and model_options.context_window), or "
        f"{fixes}."
    )
