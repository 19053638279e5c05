"""A running engine's records reach the action log as they are written: a step's intent is on
screen before its action runs, and a run's next step starts only once the log shows every
record of the one before. (The engine runs in this process here, so the test can hold it.)"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from forgetui.engine import api
from forgetui.tui.app import ForgeApp
from forgetui.tui.panes.action_log import LogView
from forgetui.tui.run_controller import RunController

from .conftest import SIZE, settle

pytestmark = pytest.mark.anyio


async def test_the_intent_is_on_screen_while_its_action_runs(
    workbench: Callable[..., ForgeApp], quick_hello: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from forgetui.engine.step import stages

    running, release = threading.Event(), threading.Event()
    real = stages._run_workspace_action

    def held_action(*args: Any) -> Any:
        running.set()
        release.wait(30)
        return real(*args)

    monkeypatch.setattr(stages, "_run_workspace_action", held_action)
    app = workbench(quick_hello, engine="thread")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = app.workbench.query_one(LogView)
        before = view.records
        await pilot.press("s")
        for _ in range(500):
            await pilot.pause(0.01)
            if running.is_set() and view.records == before + 1:
                break
        assert running.is_set()  # the action is running, held
        assert view.records == before + 1  # ... and its intent is already on screen
        row = view.rows[max(view.rows)]
        assert row.step == 1
        release.set()
        await settle(pilot)
        assert view.records == before + 2  # the result followed


async def test_a_run_starts_each_step_once_the_log_shows_the_last(
    workbench: Callable[..., ForgeApp], quick_hello: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    behind: list[tuple[int, int]] = []  # (records on screen, records written) at each start
    real = RunController._launch_step

    def checked(self: RunController, number: int, human_text: str | None) -> None:
        screen = app.workbench
        shown = screen.query_one(LogView).records
        written = api.log_count(api.open_task(screen.reader.path))
        behind.append((shown, written))
        real(self, number, human_text)

    monkeypatch.setattr(RunController, "_launch_step", checked)
    app = workbench(quick_hello, engine="thread")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("space")
        for _ in range(3000):
            await pilot.pause(0.01)
            snapshot = app.workbench.snapshot
            if not app.workbench.running and snapshot is not None and snapshot.finished:
                break
        await settle(pilot)
        assert app.workbench.snapshot is not None and app.workbench.snapshot.finished
    assert len(behind) >= 3  # the run stepped on its own
    assert all(shown == written for shown, written in behind)
