"""The executor in a child process: the workbench drives it as its own, survives its death."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.message import Message

from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.tui.app import ForgeApp
from forgetui.tui.messages import StepProgress
from forgetui.tui.session import EngineProcess

from .conftest import SIZE, press, screen_text, settle

pytestmark = pytest.mark.anyio


async def test_steps_run_in_a_child_that_holds_the_lock_as_ours(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)
    session = app.session
    assert isinstance(session, EngineProcess)
    during: list[tuple[int, bool]] = []  # (lock holder, read-only) while a step runs

    def hook(message: Message) -> None:
        if isinstance(message, StepProgress) and not during:
            holder = TaskFolder.open(app.reader.path).lock.holder()
            during.append((holder.pid if holder else 0, app.reader.snapshot().read_only))

    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await settle(pilot)
        await press(pilot, "s")
        [(pid, read_only)] = during
        assert pid != os.getpid() and session.owns_lock(pid)
        assert not read_only  # our own engine, not another run
        assert "step 1" in screen_text(app)
        assert not (app.reader.path / "lock").exists()  # paused: the child let go, and lives on
        await press(pilot, "s")
        assert TaskFolder.open(app.reader.path).load_state().step == 2
        assert session._proc is not None and session._proc.pid == pid
    assert not (app.reader.path / "lock").exists()
    assert session._proc is None  # quitting stopped the child


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
        await press(pilot, "s")  # a new child starts and goes on
        assert TaskFolder.open(app.reader.path).load_state().step == 2
        assert not app.workbench.has_class("-read-only")
