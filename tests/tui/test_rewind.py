"""`r` on a step's row of the action log: the rewind modal says what a rewind would do, `y` does
it in place (files back, the later steps dimmed and marked in the log), `f` forks into a new
workspace, hand edits stop it until `F`, and a step in flight refuses it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from forgetui.engine import api
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.tui.app import ForgeApp
from forgetui.tui.modals.open_fork import OpenForkScreen
from forgetui.tui.modals.record_detail import RecordDetailScreen
from forgetui.tui.modals.rewind import ForkPrompt, RewindScreen
from forgetui.tui.panes.action_log import LogView

from .conftest import SIZE, press, screen_text, settle

pytestmark = pytest.mark.anyio

HELLO = 'print("Hello, world!")\n'


@pytest.fixture
def done(quick_hello: Path, tmp_path: Path) -> TaskFolder:
    """quick_hello run to completion: five steps, step 3 writes hello.py."""
    folder = api.init_sample(quick_hello, into=tmp_path / "ws")
    assert api.run(folder.path).exit_code == 0
    return folder


def toasts(app: ForgeApp) -> list[str]:
    return [n.message for n in app._notifications]


async def select_step(app: ForgeApp, pilot: Any, step: int) -> LogView:
    """The log cursor on step `step`'s row (the log opens on its newest row)."""
    view = app.workbench.query_one(LogView)
    view.focus()
    await press(pilot, *["up"] * (view.count - step))
    assert view.selected is not None and view.selected.step == step
    return view


async def test_r_y_rewinds_in_place_and_dims_the_superseded_steps(
    workbench: Callable[..., ForgeApp], done: TaskFolder
) -> None:
    app = workbench(done.path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        view = await select_step(app, pilot, 2)
        await press(pilot, "r")
        assert isinstance(app.screen, RewindScreen)
        text = screen_text(app)
        assert "Rewind to the end of step 2?" in text
        assert "Steps 3-5 stay in the log as a superseded branch" in text
        assert "removed (the later steps created them)" in text and "hello.py" in text
        await press(pilot, "y")
        assert not isinstance(app.screen, RewindScreen)
        assert not (done.workspace / "hello.py").exists()
        assert toasts(app)[-1].startswith("rewound to step 2 (steps 3-5 superseded)")
        state = TaskFolder.open(done.path).load_state()
        assert [(m.to, m.first, m.last) for m in state.rewinds] == [(2, 3, 5)]
        # the rows of steps 3-5 are marked and drawn in the superseded style; the rewind's own
        # row ends the log
        rows = [view.row_at(line) for line in range(view.count)]
        assert [(r.step, r.superseded) for r in rows if r is not None and r.kind == "step"] == [
            (1, False), (2, False), (3, True), (4, True), (5, True),
        ]  # fmt: skip
        assert rows[-1] is not None and rows[-1].action == "operator:rewind"
        assert "rewind → step 2 (steps 3-5 superseded)" in screen_text(app)
        top = int(view.scroll_offset.y)  # the cursor is on line 1 (step 2)
        live, left = view.render_line(0 - top), view.render_line(3 - top)  # steps 1 and 4
        assert next(iter(live)).style == view._style("log--success")
        assert next(iter(left)).style == view._style("log--superseded")
        assert "superseded: wrote hello.py" in screen_text(app)
        # a superseded row is still selectable and its detail opens
        await press(pilot, "down", "down")
        assert view.selected is not None and view.selected.step == 4
        await press(pilot, "enter")
        assert isinstance(app.screen, RecordDetailScreen)
        await press(pilot, "escape")
        # the next step is 6 and replays step 3's answer: hello.py is back
        await press(pilot, "s")
        assert (done.workspace / "hello.py").read_text() == HELLO
        assert TaskFolder.open(done.path).load_state().step == 6


async def test_a_hand_edit_needs_F_and_f_forks_instead(
    workbench: Callable[..., ForgeApp], done: TaskFolder, tmp_path: Path
) -> None:
    (done.workspace / "hello.py").write_text("print('mine')\n")
    app = workbench(done.path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await select_step(app, pilot, 2)
        await press(pilot, "r")
        text = screen_text(app)
        assert "changed by hand since the run wrote them: F overwrites them" in text
        await press(pilot, "y")  # refused: the modal stays, the file too
        assert isinstance(app.screen, RewindScreen)
        assert toasts(app)[-1] == (
            "files were changed by hand since the run wrote them: F overwrites them"
        )
        await press(pilot, "f")
        assert isinstance(app.screen, ForkPrompt)
        expected = done.workspace.with_name("ws-fork-2")
        assert str(expected) in screen_text(app)  # prefilled beside the workspace
        await press(pilot, "enter")
        assert isinstance(app.screen, OpenForkScreen)  # open the fork now, or stay
        await press(pilot, "s")
        assert not isinstance(app.screen, (ForkPrompt, RewindScreen, OpenForkScreen))
        assert toasts(app)[-1].startswith(f"forked at step 2 into {expected}")
        assert (done.workspace / "hello.py").read_text() == "print('mine')\n"  # untouched
        assert not (expected / "hello.py").exists() and (expected / "test_hello.py").is_file()
        assert TaskFolder.open(expected).load_state().step == 2
        await press(pilot, "r", "F")  # overwrite the hand edit: the rewind goes through
        assert not (done.workspace / "hello.py").exists()


async def test_r_refuses_while_a_step_is_in_flight_and_on_other_rows(
    workbench: Callable[..., ForgeApp], done: TaskFolder, gated: Callable[..., list[Any]]
) -> None:
    api.rewind_task(done, 2)  # steps 3-5 superseded; the rewind's row is the newest
    made = gated()
    app = workbench(done.path, engine="thread")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await press(pilot, "r")  # the rewind's own row: not a step
        assert toasts(app)[-1] == "select a step's row in the action log first"
        await press(pilot, "up", "r")  # step 5: left behind
        assert toasts(app)[-1] == "step 5 is on a branch a rewind left behind: pick a live step"
        await pilot.press("s")
        for _ in range(200):
            if made and made[0].entered.is_set():
                break
            await pilot.pause(0.02)
        await pilot.press("r")
        await pilot.pause()
        busy = "a step is in flight: wait until it is recorded (space pauses a run)"
        assert toasts(app)[-1] == busy
        assert not isinstance(app.screen, RewindScreen)
        made[0].gate.set()
        await settle(pilot)


def test_rewind_modal_snapshot(
    snap_compare: Any, workbench: Callable[..., ForgeApp], done: TaskFolder
) -> None:
    app = workbench(done.path)

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        await select_step(app, pilot, 2)
        await press(pilot, "r")
        app.clear_notifications()

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
