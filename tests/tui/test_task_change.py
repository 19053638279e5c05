"""An edited task.yaml in the workbench: a banner says no step runs until it is accepted; `s`
shows the change, `y` accepts it (logged) and the step goes on, `n` leaves it unaccepted."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.start.samples import init_sample
from forgetui.tui.app import ForgeApp
from forgetui.tui.modals.task_change import TaskChangeScreen

from .conftest import SIZE, press, screen_text, settle

pytestmark = pytest.mark.anyio


def _edit_task(task: Path) -> None:
    spec = yaml.safe_load((task / "task.yaml").read_text())
    spec["limits"]["max_steps"] = 7
    (task / "task.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))


@pytest.mark.parametrize("engine", ["process", "thread"])
async def test_s_shows_the_change_and_y_accepts_it_then_steps(
    workbench: Callable[..., ForgeApp], engine: str
) -> None:
    task = init_sample("hello_world").path
    _edit_task(task)
    app = workbench(task, engine=engine)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "task.yaml changed (limits) since it was accepted" in screen_text(app)
        await press(pilot, "s")
        assert isinstance(app.screen, TaskChangeScreen)
        shown = screen_text(app)
        assert "+  max_steps: 7" in shown and "No step runs until you accept it" in shown
        await press(pilot, "y")
        await settle(pilot)
        assert "since it was accepted" not in screen_text(app)
        assert "accepted: task.yaml changed (limits)" in screen_text(app)  # the log row
    folder = TaskFolder.open(task)
    assert folder.spec.limits.max_steps == 7
    first = folder.log.records(0, 1)[0]
    assert getattr(first, "op", None) == "accept_task_change"


async def test_n_leaves_the_change_unaccepted_and_runs_nothing(
    workbench: Callable[..., ForgeApp],
) -> None:
    task = init_sample("hello_world").path
    _edit_task(task)
    app = workbench(task, engine="thread")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "space")
        assert isinstance(app.screen, TaskChangeScreen)
        await press(pilot, "n")
        await settle(pilot)
        assert not isinstance(app.screen, TaskChangeScreen)
        assert not app.workbench.running
        assert "task.yaml changed (limits)" in screen_text(app)
    assert TaskFolder.open(task).load_state().step == 0
