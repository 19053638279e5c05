"""A step's records reach the action log while the task's other views are being read again: a
reload counting the next context does not hold them back, and once it lands it does not take
them off the screen. (The engine runs in this process here, so the test can hold the reload.)"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.message import Message
from textual.pilot import Pilot

from forgetui.tui.app import ForgeApp
from forgetui.tui.messages import SnapshotLoaded
from forgetui.tui.panes.log_view import LogView
from forgetui.tui.snapshot import TaskReader

from .conftest import SIZE, settle

pytestmark = pytest.mark.anyio


class HeldReload:
    """The next snapshot read reads the files, then waits for `release` before it is handed
    over: a reload as slow as one counting a long context on a loaded machine."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.armed = threading.Event()
        self.reading = threading.Event()  # the held read has read the files
        self.release = threading.Event()
        self.landed: list[int] = []  # the records each loaded snapshot read, once armed
        real = TaskReader._snapshot

        def held(reader: TaskReader) -> Any:
            snapshot = real(reader)
            if self.armed.is_set():
                self.armed.clear()
                self.reading.set()
                self.release.wait(120)
            return snapshot

        monkeypatch.setattr(TaskReader, "_snapshot", held)


async def until(pilot: Pilot[Any], check: Callable[[], bool], rounds: int = 1500) -> bool:
    for _ in range(rounds):
        if check():
            return True
        await pilot.pause(0.01)
    return check()


def hook_for(hold: HeldReload) -> Callable[[Message], None]:
    def hook(message: Message) -> None:
        if isinstance(message, SnapshotLoaded) and hold.reading.is_set():
            hold.landed.append(message.snapshot.log_count)

    return hook


async def test_a_steps_records_show_while_a_reload_is_read(
    workbench: Callable[..., ForgeApp], quick_hello: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hold = HeldReload(monkeypatch)
    app = workbench(quick_hello, engine="thread")
    async with app.run_test(size=SIZE, message_hook=hook_for(hold)) as pilot:
        await settle(pilot)
        view = app.workbench.query_one(LogView)
        before = view.records
        hold.armed.set()
        app.workbench.request_reload()
        assert await until(pilot, hold.reading.is_set)
        await pilot.press("s")
        try:
            # the step's intent and result, with the reload still held
            assert await until(pilot, lambda: view.records == before + 2)
            assert app.workbench.step_in_flight is None  # the step was recorded meanwhile
            assert view.rows[max(view.rows)].step == 1
            assert not hold.landed
        finally:
            hold.release.set()
        await settle(pilot)
    assert hold.landed[0] == before  # the held reload, read before the step


async def test_a_reload_read_before_a_step_does_not_take_its_records_off(
    workbench: Callable[..., ForgeApp], quick_hello: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shown: list[int] = []  # the records the log pane shows, after each load put on it
    real = LogView.show_log

    def noted(view: LogView, records: int, tail: Any) -> None:
        real(view, records, tail)
        shown.append(view.records)

    monkeypatch.setattr(LogView, "show_log", noted)
    hold = HeldReload(monkeypatch)
    app = workbench(quick_hello, engine="thread")

    async with app.run_test(size=SIZE, message_hook=hook_for(hold)) as pilot:
        await settle(pilot)
        view = app.workbench.query_one(LogView)
        before = view.records
        hold.armed.set()  # step 1's own reload is held, once it has read the log
        await pilot.press("s")
        try:
            assert await until(pilot, lambda: hold.reading.is_set() and view.records == before + 2)
            await pilot.press("s")  # step 2, while step 1's reload is held
            assert await until(pilot, lambda: view.records == before + 4)
            seen = len(shown)
        finally:
            hold.release.set()
        await settle(pilot)
    assert hold.landed[0] == before + 2  # the held reload landed, read before step 2
    assert hold.landed[-1] == before + 4  # ... and step 2's own after it
    assert shown[seen - 1 :] == [before + 4] * (len(shown) - seen + 1)  # never fewer shown
