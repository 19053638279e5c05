"""Which Python the task's commands run with: the header names the project's own environment
(forgetui's own interpreter, the usual case of a sample, adds nothing there), and help says
which one it is in every case."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable

import pytest
from textual.widgets import Static

from forgetui.engine.start.samples import init_sample
from forgetui.tui.app import ForgeApp
from forgetui.tui.header import StatusHeader
from forgetui.tui.modals.help import HelpScreen

from .conftest import SIZE, press, settle

pytestmark = pytest.mark.anyio


async def test_the_header_names_a_workspace_venv(workbench: Callable[..., ForgeApp]) -> None:
    folder = init_sample("hello_world")
    venv = folder.workspace / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    assert venv.is_dir()
    app = workbench(folder.path)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert "python .venv/" in app.workbench.query_one(StatusHeader).render_line(0).text
        await press(pilot, "question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        said = app.screen.query_one("#help-python", Static).render()
        assert f"python {venv}/bin/python (.venv/ in the workspace)" in str(said)


async def test_forgetuis_own_interpreter_is_said_in_help_only(
    workbench: Callable[..., ForgeApp],
) -> None:
    app = workbench(init_sample("hello_world").path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "python" not in app.workbench.query_one(StatusHeader).render_line(0).text
        await press(pilot, "question_mark")
        await settle(pilot)
        said = app.screen.query_one("#help-python", Static).render()
        assert f"python {sys.executable} (forgetui's own interpreter)" in str(said)
