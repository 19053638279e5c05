"""The context tells the agent what holds now: the limits in force (the operator's new limit, a
continue grant, a cost limit) and every check's last result, never a figure that no longer holds."""

from __future__ import annotations

from pathlib import Path

import pytest

from forgetui.engine import api
from tests.engine.helpers import act, make_task

pytestmark = pytest.mark.timeout(60)


def _frame(folder: api.TaskFolder) -> str:
    return api.preview_context(folder).section("task_frame").text


def test_the_frame_shows_the_step_limit_the_operator_set(tmp_path: Path) -> None:
    folder = make_task(tmp_path, [act("note", text="x")], limits={"max_steps": 40})
    assert "1 of at most 40" in _frame(folder)
    api.set_limits(folder, 15, None)
    frame = _frame(folder)
    assert "1 of at most 15" in frame and "40" not in frame


def test_the_frame_shows_a_cost_limit_and_what_was_spent(tmp_path: Path) -> None:
    folder = make_task(tmp_path, [act("note", text="x")])
    assert "of at most $" not in _frame(folder)  # no cost limit: no line
    api.set_limits(folder, None, 0.5)
    assert "$0.0000 of at most $0.5000" in _frame(folder)


def test_a_continue_grant_shows_in_the_frame(tmp_path: Path) -> None:
    folder = make_task(tmp_path, [act("note", text="x")], limits={"max_steps": 3})
    with folder.lock:
        state = folder.load_state()
        folder.save_state(state.model_copy(update={"extra_steps": 3}))
    assert "1 of at most 6" in _frame(folder)


def test_checks_never_run_are_run_at_the_next_step_whatever_it_changed(tmp_path: Path) -> None:
    """The context shows each check's last result and the step it was measured at; a task
    made without running its checks gets them at its first step, even a read-only one."""
    folder = make_task(tmp_path, [act("note", text="x")])
    assert "out: not run" in api.preview_context(folder).section("verification_status").text
    api.run(folder.path, max_steps=1)
    text = api.preview_context(folder).section("verification_status").text
    assert "not run" not in text and "out: failing" in text
    assert "checked_at_step: 1" in text


def test_earlier_notes_and_achievements_are_counted_in_full(tmp_path: Path) -> None:
    """state.yaml keeps the newest 50 notes and 20 achievements; the context counts all."""
    folder = make_task(tmp_path, [act("note", text="one"), act("note", text="two")])
    api.run(folder.path, max_steps=2)
    assert folder.load_state().notes_count == 2
    with folder.lock:
        state = folder.load_state()
        progress = state.progress.model_copy(
            update={"completed": [f"step {n}: wrote f{n}.py" for n in range(84, 104)],
                    "completed_count": 103}
        )  # fmt: skip
        folder.save_state(
            state.model_copy(
                update={
                    "scratchpad": [f"note {n}" for n in range(42, 92)],
                    "notes_count": 91,
                    "progress": progress,
                }
            )
        )
    text = api.preview_context(folder).section("current_state").text
    shown_notes = sum(f"note {n}" in text for n in range(42, 92))
    assert f"... and {91 - shown_notes} earlier notes" in text
    shown_done = sum(f"wrote f{n}.py" in text for n in range(84, 104))
    assert f"... and {103 - shown_done} earlier" in text
