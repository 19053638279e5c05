"""Which commands apply in which situation: a plain function, tested as a table."""

from __future__ import annotations

import pytest

from forgetui.tui.commands import COMMANDS, Situation, applies

IDLE = Situation(step=3)
ALL = {command.action for command in COMMANDS if command.scope == "screen"}


@pytest.mark.parametrize(
    ("situation", "expected"),
    [
        # paused between steps, nothing selected: run, step, note, earlier contexts
        (IDLE, {"run_pause", "single_step", "add_note", "set_limits", "earlier_context"}),
        # a fresh task: no earlier context to page to
        (Situation(step=0), {"run_pause", "single_step", "add_note", "set_limits"}),
        # running back to back: only pause (and paging) apply
        (Situation(step=3, running=True, busy=True), {"run_pause", "earlier_context"}),
        # escalated: answer, not step; memory may still be changed
        (
            Situation(step=3, escalated=True, memory_selected=True),
            {
                "answer", "toggle_pin", "evict", "edit_memory", "add_note", "set_limits",
                "earlier_context",
            },
        ),
        # finished: nothing that steps or notes
        (Situation(step=5, finished=True), {"earlier_context"}),
        # another process writes the task: read only
        (
            Situation(step=3, read_only=True, memory_selected=True, detail_target=True),
            {"open_detail", "earlier_context"},
        ),
        # looking at the context sent at step 1: later applies, earlier does not
        (
            Situation(step=3, context_step=1),
            {"run_pause", "single_step", "add_note", "set_limits", "later_context"},
        ),
        # a selected memory item while paused
        (
            Situation(step=3, memory_selected=True, detail_target=True),
            {
                "run_pause", "single_step", "add_note", "set_limits", "earlier_context",
                "toggle_pin", "evict", "edit_memory", "open_detail",
            },
        ),
    ],
)  # fmt: skip
def test_commands_that_apply(situation: Situation, expected: set[str]) -> None:
    assert {action for action in ALL if applies(action, situation)} == expected
