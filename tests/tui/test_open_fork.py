"""After a fork (rewind's `f`, a re-run adopted as a fork) the workbench offers to open it:
opening puts the fork's workbench in this one's place, escape comes back to the task it was
forked from; stay keeps this one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from forgetui.engine import api
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.tui.app import ForgeApp
from forgetui.tui.modals.open_fork import OpenForkScreen
from forgetui.tui.workbench import WorkbenchScreen

from .conftest import SIZE, press, screen_text, settle
from .test_rewind import done, select_step  # noqa: F401 (the fixture)
from .test_task_list import idle

pytestmark = pytest.mark.anyio


async def fork_at_2(app: ForgeApp, pilot: object, done: TaskFolder) -> Path:  # noqa: F811
    await settle(pilot)  # type: ignore[arg-type]
    await select_step(app, pilot, 2)
    await press(pilot, "r", "f", "enter")  # type: ignore[arg-type]
    assert isinstance(app.screen, OpenForkScreen)
    return done.workspace.with_name("ws-fork-2")


async def test_open_the_fork_now_and_escape_comes_back(
    workbench: Callable[..., ForgeApp],
    done: TaskFolder,  # noqa: F811
) -> None:
    app = workbench(done.path)
    async with app.run_test(size=SIZE) as pilot:
        fork = await fork_at_2(app, pilot, done)
        assert "Open the fork now?" in screen_text(app)
        origin = app.workbench
        await pilot.press("o")
        await idle(pilot)
        await settle(pilot)
        opened = app.screen
        assert isinstance(opened, WorkbenchScreen) and opened is not origin
        assert app.reader.path == (fork / ".agentforge/tasks/hello_world").resolve()
        assert opened.snapshot is not None and opened.snapshot.step == 2  # the fork, at step 2
        await press(pilot, "s")  # the fork steps on from 3; the original stays at 5
        assert api.open_task(fork).load_state().step == 3

        assert not origin.is_attached and len(app.screen_stack) == 1

        await pilot.press("escape")
        await idle(pilot)
        await settle(pilot)
        back = app.screen
        assert isinstance(back, WorkbenchScreen) and not opened.is_attached
        assert app.reader.path == done.path
        assert back.snapshot is not None and back.snapshot.step == 5  # the original, untouched
        assert api.lock_holder(api.open_task(fork)) is None
        await pilot.press("escape")  # the first workbench has nowhere to go back to
        await idle(pilot)
        assert app.screen is back


async def test_stay_keeps_this_workbench(
    workbench: Callable[..., ForgeApp],
    done: TaskFolder,  # noqa: F811
) -> None:
    app = workbench(done.path)
    async with app.run_test(size=SIZE) as pilot:
        fork = await fork_at_2(app, pilot, done)
        origin = app.workbench
        await press(pilot, "s")
        assert app.screen is origin and len(app.screen_stack) == 1
        assert api.open_task(fork).load_state().step == 2  # made, not opened
