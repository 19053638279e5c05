"""The model in use: named in the header, changed with `m` for the next steps, and asked for
when a task has none that can run (a new task without a replay script)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from textual.widgets import Input

from forgetui.engine.folder.records import IntentRecord
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.start.samples import init_sample
from forgetui.tui.app import ForgeApp
from forgetui.tui.header import StatusHeader
from forgetui.tui.modals.text_prompt import TextPromptScreen

from .conftest import SIZE, press, screen_text, settle, type_into

pytestmark = pytest.mark.anyio


def header(app: ForgeApp) -> str:
    return app.workbench.query_one(StatusHeader).render_line(0).text


def first_action(folder: Path) -> str:
    intent = TaskFolder.open(folder).log.records(0, 1)[0]
    assert isinstance(intent, IntentRecord)
    return intent.action


@pytest.mark.parametrize("engine", ["process", "thread"])
async def test_a_task_without_a_replay_script_asks_for_a_model_then_steps(
    workbench: Callable[..., ForgeApp], engine: str
) -> None:
    folder = init_sample("hello_world").path
    (folder / "replay.yaml").unlink()  # a new task: no script, no model named
    app = workbench(folder, engine=engine)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "s")
        assert isinstance(app.screen, TextPromptScreen)
        text = screen_text(app)
        assert "No model can run this task yet" in text and "replay.yaml" in text
        assert "--model" not in text  # the workbench's terms, not the command line's
        assert app.screen.query_one(Input).value == "human"  # filled in: enter takes it
        await press(pilot, "enter")
        # the step goes on with the chosen model: the human model asks for the action
        assert isinstance(app.screen, TextPromptScreen)
        await type_into(pilot, "list_dir path=.")
        await press(pilot, "enter")
        assert TaskFolder.open(folder).load_state().step == 1
        assert first_action(folder) == "list_dir"
        assert "model human" in header(app)


async def test_m_picks_another_model_for_the_next_step(
    workbench: Callable[..., ForgeApp], tmp_path: Path
) -> None:
    script = tmp_path / "other.yaml"
    script.write_text(yaml.safe_dump([{"action": "read_file", "args": {"path": "test_hello.py"}}]))
    folder = init_sample("hello_world").path
    app = workbench(folder)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "model replay" in header(app)
        await press(pilot, "m")
        await type_into(pilot, "not a model")
        await press(pilot, "enter")
        messages = " ".join(n.message for n in app._notifications)
        assert "not a model name" in messages
        assert "model replay" in header(app)  # unchanged

        await press(pilot, "m")
        await type_into(pilot, f"replay:{script}")
        await press(pilot, "enter")
        assert "model replay:other.yaml" in header(app)
        await press(pilot, "s")
        assert first_action(folder) == "read_file"  # the sample's own script starts list_dir


async def test_a_step_right_after_choosing_human_runs_with_human(
    workbench: Callable[..., ForgeApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`s` pressed while the choice is still on its way to the engine (its child starting, a
    model being built) waits for it, and steps with it, rather than asking for a model again."""
    from forgetui.engine.api import TaskService

    arrived, go_on = threading.Event(), threading.Event()
    real = TaskService.set_model

    def slow_set_model(self: TaskService, spec: str) -> str:
        arrived.set()
        go_on.wait(30)
        return real(self, spec)

    monkeypatch.setattr(TaskService, "set_model", slow_set_model)
    folder = init_sample("hello_world").path
    (folder / "replay.yaml").unlink()
    app = workbench(folder, engine="thread")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "m")
        app.screen.query_one(Input).value = "human"
        await pilot.press("enter")
        await pilot.pause()
        assert arrived.wait(30)
        await pilot.press("s")  # the choice has not reached the engine yet
        await pilot.pause()
        assert not isinstance(app.screen, TextPromptScreen)  # no "no model can run" dialog
        go_on.set()
        await settle(pilot)
        assert isinstance(app.screen, TextPromptScreen) and app.screen.id == "human-action"
        await type_into(pilot, "list_dir path=.")
        await press(pilot, "enter")
        assert first_action(folder) == "list_dir"
        assert "model human" in header(app)
