"""A task file that does not read is shown, not hidden: a banner naming the file, line and
field that stays until the file reads again, over what can still be read (the action log)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from forgetui.cli import main
from forgetui.engine.start.samples import init_sample
from forgetui.tui.app import ForgeApp

from .conftest import SIZE, press, screen_text, settle

pytestmark = pytest.mark.anyio


def break_step(state: Path) -> str:
    """state.yaml with `step: two`: valid YAML, an invalid field on a known line."""
    good = state.read_text()
    state.write_text(good.replace("\nstep: ", "\nstep: two # ", 1))
    return good


async def test_a_file_broken_while_open_shows_a_banner_until_fixed(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "s")
        state = app.reader.path / "state.yaml"
        good = break_step(state)
        app.workbench.request_reload()
        await settle(pilot)
        text = screen_text(app)
        assert "the task does not read:" in text
        assert "state.yaml:4: field 'step'" in text
        assert "the last good view stays below" in text
        assert "list_dir" in text  # the last good view is still there
        await pilot.pause(0.5)  # a toast would have gone by now; the banner stays
        assert "state.yaml:4: field 'step'" in screen_text(app)

        state.write_text(good)
        app.workbench.request_reload()
        await settle(pilot)
        assert "does not read" not in screen_text(app)


async def test_a_task_broken_before_launch_still_shows_its_log(
    workbench: Callable[..., ForgeApp], forge_home: Path
) -> None:
    folder = init_sample("hello_world").path
    assert main(["run", str(folder), "--max-steps", "2"]) == 0
    state = folder / "state.yaml"
    good = break_step(state)
    app = workbench(folder)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "opening the task" not in text
        assert "the task does not read" in text
        assert "state.yaml:4: field 'step'" in text
        assert "4 records" in text and "read_file" in text  # the log still reads
        assert "no actions yet" not in text

        state.write_text(good)
        app.workbench.request_reload()
        await settle(pilot)
        text = screen_text(app)
        assert "does not read" not in text
        assert "step 2" in text
