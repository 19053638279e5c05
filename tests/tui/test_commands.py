"""Which commands apply in which situation: a plain function, tested as a table."""

from __future__ import annotations

import pytest

from forgetui.tui.commands import COMMANDS, Situation, applies, why_not

IDLE = Situation(step=3)
ALL = {command.action for command in COMMANDS if command.scope == "screen"}
NAVIGATION = {"zoom", "show_pane", "filter_log", "goto_step", "open_inbox"}  # looking around


@pytest.mark.parametrize(
    ("situation", "expected"),
    [
        # paused between steps, nothing selected: run, step, note, earlier contexts
        (IDLE, {"run_pause", "single_step", "add_note", "set_limits", "earlier_context",
                "choose_model"}),
        # a fresh task: no earlier context to page to
        (Situation(step=0), {"run_pause", "single_step", "add_note", "set_limits",
                             "choose_model"}),
        # running back to back: only pause, paging and the next steps' model apply
        (Situation(step=3, running=True, busy=True),
         {"run_pause", "earlier_context", "choose_model"}),
        # escalated: answer, not step; memory may still be changed
        (
            Situation(step=3, escalated=True, memory_selected=True),
            {
                "answer", "toggle_pin", "evict", "edit_memory", "add_note", "set_limits",
                "earlier_context", "choose_model", "promote_memory",
            },
        ),
        # finished: nothing that steps or notes
        (Situation(step=5, finished=True), {"earlier_context"}),
        # finished, an item selected: its memory is history, no change to it applies
        (
            Situation(step=5, finished=True, status="complete", memory_selected=True,
                      detail_target=True),
            {"earlier_context", "open_detail", "promote_memory"},  # a lesson outlives it
        ),
        # another process writes the task: read only
        (
            Situation(step=3, read_only=True, memory_selected=True, detail_target=True),
            {"open_detail", "earlier_context"},
        ),
        # looking at the context sent at step 1: later applies, earlier does not
        (
            Situation(step=3, context_step=1),
            {"run_pause", "single_step", "add_note", "set_limits", "later_context",
             "choose_model"},
        ),
        # a selected memory item while paused
        (
            Situation(step=3, memory_selected=True, detail_target=True),
            {
                "run_pause", "single_step", "add_note", "set_limits", "earlier_context",
                "toggle_pin", "evict", "edit_memory", "open_detail", "choose_model",
                "promote_memory",
            },
        ),
    ],
)  # fmt: skip
def test_commands_that_apply(situation: Situation, expected: set[str]) -> None:
    # a re-run only reads, but waits for the step in flight: it applies whenever none runs;
    # so does a rewind (read-only or finished, it still forks)
    rerun = set() if situation.busy or situation.running else {"rerun", "rewind"}
    assert {action for action in ALL if applies(action, situation)} == expected | NAVIGATION | rerun


SITUATIONS = [
    IDLE, Situation(step=0), Situation(step=3, running=True, busy=True),
    Situation(step=3, escalated=True), Situation(step=5, finished=True),
    Situation(step=3, read_only=True), Situation(step=3, context_step=1),
    Situation(step=3, busy=True),
]  # fmt: skip


@pytest.mark.parametrize("situation", SITUATIONS)
def test_a_command_that_does_not_apply_says_why(situation: Situation) -> None:
    for action in ALL:
        reason = why_not(action, situation)
        if applies(action, situation):
            assert reason == ""
        else:
            assert reason and reason != "not now", (action, situation)


@pytest.mark.parametrize(
    ("action", "situation", "words"),
    [
        ("answer", IDLE, "no question is waiting"),
        ("single_step", Situation(step=3, escalated=True), "press a"),
        ("single_step", Situation(step=3, running=True, busy=True), "space pauses"),
        ("evict", IDLE, "select a working-memory item"),
        ("add_note", Situation(step=3, read_only=True), "another program"),
        ("run_pause", Situation(step=5, finished=True), "finished"),
    ],
)  # fmt: skip
def test_the_reasons_name_what_to_do(action: str, situation: Situation, words: str) -> None:
    assert words in why_not(action, situation)


@pytest.mark.parametrize("status", ["complete", "failed", "aborted"])
def test_every_memory_change_of_a_finished_task_gives_the_engines_one_reason(status: str) -> None:
    """The workbench says what the CLI says (the engine's rule), for each change alike."""
    from forgetui.engine import api

    now = Situation(step=5, finished=True, status=status, memory_selected=True)
    reasons = {why_not(action, now) for action in ("toggle_pin", "evict", "edit_memory",
                                                    "add_note")}  # fmt: skip
    assert reasons == {f"the task is {status}: rewind or fork to change its memory"}
    assert reasons == {api.memory_frozen(status)}
