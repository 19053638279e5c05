"""Project memory in current_state: the workspace's lasting entries (workspace/project_memory.py)
first in the section, held to a budget of their own so that they never crowd out the task's
own state, and never crowded out by it.

An entry that does not fit, or a file that does not read (a bad hand edit), is left out with a
line in the element saying which and why: every saved context keeps the reason, and a step
never fails over it."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import replace

from forgetui.engine.base.tokens import TokenCounter
from forgetui.engine.context.inputs import ContextInputs
from forgetui.engine.context.render import render_el
from forgetui.engine.context.squeeze import Squeeze
from forgetui.engine.context.state_tree import Shown, StateTree
from forgetui.engine.context.tree import El, seq
from forgetui.engine.workspace.project_memory import (
    FILES,
    KINDS,
    MEMORY_DIR,
    SETTINGS_FILE,
    Entry,
    load_project_memory,
    memory_stamp,
)

TAG = "project_memory"
NAMED = 3  # entries left out for budget named in the reason; the rest counted
NAMED_PROBLEMS = 6  # problem lines shown (a file each, or a twice-used id); the rest counted
STATE_SHARE = 3  # at most a third of current_state, whatever settings.yaml says
_CACHE: OrderedDict[tuple[object, ...], El | None] = OrderedDict()
_CACHE_SIZE = 8


def project_budget(wanted: int, state_budget: int) -> int:
    return min(wanted, state_budget // STATE_SHARE)


def _element(entries: Sequence[Entry], notes: Sequence[str]) -> El:
    groups = []
    for kind in KINDS:
        texts = [entry.text for entry in entries if entry.kind == kind]
        if texts:
            groups.append(seq(FILES[kind].removesuffix(".yaml"), texts, "entry"))
    if notes:
        groups.append(seq("left_out", notes, "reason"))
    return El(TAG, items=tuple(groups))


def _notes(problems: Sequence[str], budget: int, counter: TokenCounter, fmt: str) -> list[str]:
    """The left-out lines for `problems`, as many as fit `budget` alone, the rest counted:
    they come first (the agent should know a file is missing) but within the same budget."""
    notes = [f"{problem} (file left out)" for problem in problems]
    for named in range(min(len(notes), NAMED_PROBLEMS), -1, -1):
        kept = notes[:named]
        if named < len(notes):
            kept.append(
                f"{len(notes) - named} more problems in {MEMORY_DIR}: "
                "`forgetui project-memory list` names them"
            )
        if counter.count(render_el(_element((), kept), fmt)) <= budget:
            return kept
    return []


def _fit(
    entries: Sequence[Entry], problems: Sequence[str], budget: int, counter: TokenCounter, fmt: str
) -> El | None:
    """The entries, in kind order, as many as fit `budget` with the reasons for the rest; never
    more than `budget`, the reasons included."""
    notes = _notes(problems, budget, counter, fmt)
    if not entries and not notes:
        return None
    shown: list[Entry] = []
    left: list[Entry] = []
    for entry in entries:
        trial = _element([*shown, entry], notes)
        if not left and counter.count(render_el(trial, fmt)) <= budget:
            shown.append(entry)
        else:
            left.append(entry)
    while left:
        ids = ", ".join(entry.id for entry in left[:NAMED])
        more = f" and {len(left) - NAMED} more" if len(left) > NAMED else ""
        why = (
            f"{ids}{more}: over the project memory's {budget}-token budget "
            f"(budget_tokens in {MEMORY_DIR}/{SETTINGS_FILE})"
        )
        el = _element(shown, [*notes, why])
        if counter.count(render_el(el, fmt)) <= budget:
            return el
        if not shown:  # not even the reason fits beside the notes: the notes alone
            return _element((), notes) if notes else None
        left.insert(0, shown.pop())  # the reason needs room too: the last shown gives way
    return _element(shown, notes)


def project_element(inputs: ContextInputs, counter: TokenCounter, fmt: str) -> El | None:
    """The project_memory element of this workspace's current_state (None: nothing to show),
    rebuilt only when a file of the memory folder changed."""
    workspace = inputs.workspace
    state_budget = inputs.spec.limits.budgets()["current_state"]
    key = (str(workspace), memory_stamp(workspace), state_budget, fmt, counter.encoding_name)
    if key in _CACHE:
        _CACHE.move_to_end(key)
        return _CACHE[key]
    memory = load_project_memory(workspace)
    budget = project_budget(memory.budget_tokens, state_budget)
    el = None if budget == 0 else _fit(memory.entries, memory.problems, budget, counter, fmt)
    _CACHE[key] = el
    if len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return el


class ProjectStateTree(StateTree):
    """current_state's tree with the project memory first: the same at every compression
    step (it was fitted to its own budget), so the rest of the section squeezes into what it
    leaves."""

    def __init__(self, inputs: ContextInputs, counter: TokenCounter, fmt: str = "yaml") -> None:
        super().__init__(inputs, counter)
        self.project = project_element(inputs, counter, fmt)

    def at(self, sq: Squeeze, fills: Mapping[int, str]) -> Shown:
        shown = super().at(sq, fills)
        if self.project is None:
            return shown
        return shown._replace(tree=replace(shown.tree, items=(self.project, *shown.tree.items)))
