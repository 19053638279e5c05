"""The folder watcher starts once the first view is painted; a change another program makes
before it watches (after the workbench first read the task) still shows."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from forgetui.engine.base.clock import now_iso
from forgetui.engine.folder.records import OperatorRecord
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.tui.app import ForgeApp

from .conftest import SIZE, screen_text, settle

pytestmark = pytest.mark.anyio


def another_program_notes(task: Path, text: str) -> None:
    """A note appended as a headless run would: holding the task's lock."""
    folder = TaskFolder.open(task)
    folder.acquire("another program")
    try:
        folder.log.append(OperatorRecord(step=0, at=now_iso(), op="note", text=text))
    finally:
        folder.release()


async def test_a_change_before_the_watcher_starts_is_shown(
    workbench: Callable[..., ForgeApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    import watchfiles

    app = workbench("hello_world", watch=True)
    task = app.reader.path
    painted: list[bool] = []  # whether the first view was on screen when the watch was set up
    real = watchfiles.awatch

    def late_awatch(*args: Any, **kwargs: Any) -> Any:
        snapshot = app.workbench.snapshot
        painted.append(snapshot is not None and not snapshot.loading)
        another_program_notes(task, "written before the watch")  # the watch is not set up yet
        return real(*args, **kwargs)

    monkeypatch.setattr(watchfiles, "awatch", late_awatch)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)

        async def shown() -> None:
            while "written before the watch" not in screen_text(app):
                await asyncio.sleep(0.02)

        await asyncio.wait_for(shown(), timeout=15)
        assert painted == [True]  # the watcher started after the first view, once
        assert app.workbench.snapshot is not None and app.workbench.snapshot.log_count == 1
