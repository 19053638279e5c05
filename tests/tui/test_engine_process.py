"""The executor in a child process: the workbench drives it as its own, survives its death."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from forgetui.engine.store import TaskFolder
from forgetui.tui.app import ForgeApp
from forgetui.tui.session import EngineProcess

from .conftest import SIZE, press, screen_text, settle

pytestmark = pytest.mark.anyio


async def test_steps_run_in_a_child_that_holds_the_lock_as_ours(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)
    assert isinstance(app.session, EngineProcess)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "s")
        holder = TaskFolder.open(app.reader.path).lock.holder()
        assert holder is not None and holder.pid != os.getpid()
        assert app.session.owns_lock(holder.pid)
        assert not app.workbench.has_class("-read-only")  # our own engine, not another run
        assert "step 1" in screen_text(app)
        await press(pilot, "s")
        assert TaskFolder.open(app.reader.path).load_state().step == 2
    assert not (app.reader.path / "lock").exists()  # quitting stopped the child and let go


async def test_a_killed_engine_is_restarted_and_the_run_resumes(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "s")
        session = app.session
        assert isinstance(session, EngineProcess) and session._proc is not None
        session._proc.kill()
        session._proc.wait()
        await press(pilot, "s")  # a new child takes over the stale lock and goes on
        assert TaskFolder.open(app.reader.path).load_state().step == 2
        assert not app.workbench.has_class("-read-only")
