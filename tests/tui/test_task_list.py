"""Several tasks, one operator: the task list shows each task's status, step and waiting
question; enter opens a task's workbench and escape comes back (its session closed, its lock
free); one inbox answers a question of any task."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable
from textual.worker import WorkerCancelled, WorkerFailed

from forgetui.engine import api
from forgetui.paths import data_dir
from forgetui.tui.app import ForgeApp
from forgetui.tui.launch import make_list_app
from forgetui.tui.modals.all_inbox import AllInboxScreen
from forgetui.tui.modals.escalation import EscalationScreen
from forgetui.tui.task_list import TaskListScreen
from forgetui.tui.themes import load_themes
from forgetui.tui.workbench import WorkbenchScreen
from tests.tui.conftest import SIZE, screen_text, settings_for, settle, type_into

pytestmark = pytest.mark.anyio

QUESTION = "Which language should greeting.py greet in?"


def several_tasks(place: Path, quick_hello: Path) -> Path:
    """alpha: hello_world after two steps beside a new task; beta: escalation waiting."""
    hello = api.init_sample(quick_hello, into=place / "alpha")
    api.run(hello.path, max_steps=2)
    api.create_task(place / "alpha", "Write a README for the greeting", task_id="readme",
                    propose_check=False, run_checks=False)  # fmt: skip
    waiting = api.init_sample("escalation", into=place / "beta")
    api.run(waiting.path, max_steps=1, until="escalation")
    return place


@pytest.fixture
def place(tmp_path: Path, quick_hello: Path) -> Path:
    return several_tasks(tmp_path / "place", quick_hello)


def list_app(home: Path, place: Path) -> ForgeApp:
    app = make_list_app(settings_for(home, engine="thread"), place, load_themes(data_dir("themes")))
    app.animation_level = "none"
    return app


async def idle(pilot: Pilot[Any]) -> None:
    """Every worker done (the list's reads, a workbench being opened), then a repaint."""
    app = pilot.app
    for _ in range(200):
        busy = [w for w in app.workers if w.group != "watch" and not w.is_finished]
        if not busy:
            await pilot.pause()
            return
        with contextlib.suppress(WorkerCancelled, WorkerFailed):
            await app.workers.wait_for_complete(busy)
        await pilot.pause()
    raise AssertionError("the app did not settle")


def rows(app: ForgeApp) -> list[dict[str, str]]:
    """Each row by its column's title, as the operator reads it."""
    table = app.screen.query_one(DataTable)
    keys = [str(column.key.value) for column in table.ordered_columns]
    return [
        dict(zip(keys, (str(cell) for cell in table.get_row_at(i)), strict=True))
        for i in range(table.row_count)
    ]


async def test_the_list_shows_every_task_with_status_step_and_question(
    forge_home: Path, place: Path
) -> None:
    app = list_app(forge_home, place)
    async with app.run_test(size=SIZE) as pilot:
        await idle(pilot)
        assert isinstance(app.screen, TaskListScreen)
        shown = rows(app)
        assert [row["task"] for row in shown] == ["hello_world", "readme", "escalation"]
        hello, readme, waiting = shown
        assert (hello["status"], hello["step"], hello["workspace"]) == ("paused", "2", "alpha")
        assert hello["context"].startswith("system_prompt ")  # its last context's fullest section
        assert (readme["status"], readme["step"], readme["context"]) == ("ready", "0", "")
        assert waiting["status"] == "waiting for you"
        assert waiting["waiting question"] == QUESTION
        assert "3 tasks in place/" in screen_text(app)
        assert "1 waiting for you (i)" in screen_text(app)


async def test_enter_opens_the_workbench_and_escape_comes_back_closing_it(
    forge_home: Path, place: Path
) -> None:
    app = list_app(forge_home, place)
    async with app.run_test(size=SIZE) as pilot:
        await idle(pilot)
        await pilot.press("enter")  # the first row: alpha's hello_world
        await idle(pilot)
        await settle(pilot)
        workbench = app.screen
        assert isinstance(workbench, WorkbenchScreen)
        assert app.reader.path == place / "alpha/.agentforge/tasks/hello_world"
        closed: list[bool] = []
        close = workbench.session.close
        workbench.session.close = lambda: (closed.append(True), close())[1]  # type: ignore[method-assign]
        await pilot.press("s")  # a step in this workbench: the list shows it once back
        await settle(pilot)

        await pilot.press("escape")
        await idle(pilot)
        assert isinstance(app.screen, TaskListScreen)
        assert not workbench.is_attached and closed == [True]
        folder = api.open_task(place / "alpha/.agentforge/tasks/hello_world")
        assert api.lock_holder(folder) is None
        assert rows(app)[0]["step"] == "3"  # two steps before, the one taken there

        await pilot.press("down", "down", "enter")  # another task, from the same list
        await idle(pilot)
        await settle(pilot)
        assert app.reader.path.name == "escalation"


async def test_one_inbox_answers_a_question_of_another_task(forge_home: Path, place: Path) -> None:
    app = list_app(forge_home, place)
    async with app.run_test(size=SIZE) as pilot:
        await idle(pilot)
        await pilot.press("i")
        await idle(pilot)
        inbox = app.screen
        assert isinstance(inbox, AllInboxScreen)
        assert [task.name for task in inbox.waiting] == ["escalation"]
        assert QUESTION in screen_text(app)
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, EscalationScreen)
        await type_into(pilot, "French")
        await pilot.press("enter")
        await idle(pilot)
        assert app.screen is inbox and inbox.waiting == []
        assert "No task is waiting for an answer." in screen_text(app)
        folder = api.open_task(place / "beta/.agentforge/tasks/escalation")
        state = folder.load_state()
        assert state.pending_escalation is None
        assert state.decisions[-1].answer == "French"  # answered through the door, logged
        assert api.lock_holder(folder) is None

        await pilot.press("escape")
        await idle(pilot)
        assert isinstance(app.screen, TaskListScreen)
        assert rows(app)[2]["status"] == "paused" and rows(app)[2]["waiting question"] == ""


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (160, 48)])
def test_task_list_snapshot(
    snap_compare: Any, forge_home: Path, place: Path, size: tuple[int, int]
) -> None:
    app = list_app(forge_home, place)

    async def run_before(pilot: Pilot[Any]) -> None:
        await idle(pilot)
        await pilot.pause()  # the table sizes its columns to the new rows on the next refresh

    assert snap_compare(app, terminal_size=size, run_before=run_before)
