"""Older tool results go to one line oldest first, only as many as current_state's budget
needs, and the compression note counts them; finding how many takes a few renderings, not one
per result."""

from __future__ import annotations

from pathlib import Path

import pytest

from forgetui.engine.base.tokens import counter_for
from forgetui.engine.context import compile_context
from forgetui.engine.context.state_tree import StateTree
from forgetui.engine.folder.memory import MemoryItem
from tests.engine.test_context import assert_within_budgets, make_inputs, make_spec, make_state
from tests.engine.test_context import workspace as workspace  # the fixture

LINES = 80


def read_result(step: int) -> MemoryItem:
    """Step `step` read a file of LINES lines, each naming the step."""
    output = "".join(f"step{step} line {i}: value = compute({i})\n" for i in range(1, LINES + 1))
    return MemoryItem(
        type="action_result",
        step=step,
        content={"action": "read_file", "result": "success", "output": output},
    )


def state_of(workspace: Path, budget: int, steps: int) -> tuple[str, tuple[str, ...], int]:
    """current_state's text, compressions and tokens for `steps` reads, the last the newest
    (under a cap no usage tier reaches)."""
    items = [read_result(step) for step in range(1, steps + 1)]
    limits = {"max_tokens": 1_000_000, "token_budget": {"current_state": budget}}
    spec = make_spec(limits=limits)
    inputs = make_inputs(
        workspace, spec=spec, state=make_state(step=steps), items=items, max_items=steps
    )
    ctx = compile_context(inputs)
    assert_within_budgets(ctx, inputs)
    section = ctx.section("current_state")
    return section.text, section.compressions, section.tokens


def one_read() -> int:
    return counter_for(None).count(str(read_result(1).content["output"]))


def whole(text: str, step: int) -> bool:
    return f"step{step} line {LINES}: value" in text


def test_older_results_collapse_oldest_first_as_far_as_the_budget_needs(workspace: Path) -> None:
    roomy, labels, tokens = state_of(workspace, 20_000, 5)
    assert labels == () and all(whole(roomy, step) for step in range(1, 6))
    # room for all but about a read and a half: the two oldest go to one line, no more
    text, labels, _ = state_of(workspace, tokens - one_read() * 3 // 2, 5)
    assert [whole(text, step) for step in range(1, 6)] == [False, False, True, True, True]
    assert "step1 line 1: value" in text and "step2 line 1: value" in text  # their one line
    assert labels == ("2 of 4 older tool results collapsed to one line (the oldest)",)

    # with less room every older one goes, and the note says so; the newest stays whole
    text, labels, _ = state_of(workspace, one_read() * 2, 5)
    assert [whole(text, step) for step in range(1, 6)] == [False, False, False, False, True]
    assert labels[0] == "4 older tool results collapsed to one line"


@pytest.mark.parametrize("steps", [9, 65])
def test_finding_how_many_to_collapse_takes_a_few_renderings(
    workspace: Path, steps: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A binary search over how many collapse: about log2(results) renderings of the tree
    more than the table's steps, whatever the memory holds."""
    renderings: list[int] = []
    original = StateTree.at

    def counted(self: StateTree, *args: object, **kwargs: object) -> object:
        renderings.append(1)
        return original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(StateTree, "at", counted)
    _, _, tokens = state_of(workspace, 200_000, steps)
    renderings.clear()
    text, labels, _ = state_of(workspace, tokens - one_read() * 5 // 2, steps)
    collapsed = [step for step in range(1, steps) if not whole(text, step)]
    assert collapsed == list(range(1, len(collapsed) + 1)) and 2 <= len(collapsed) < steps - 1
    assert labels == (
        f"{len(collapsed)} of {steps - 1} older tool results collapsed to one line (the oldest)",
    )
    # no tier acts under this cap: one build of three table steps, then the search
    assert len(renderings) <= 3 + (steps - 1).bit_length()
