"""The task frame tells the agent the limits in force: the operator's new limit, a continue
grant, a cost limit; never task.yaml's figure once it no longer holds."""

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
