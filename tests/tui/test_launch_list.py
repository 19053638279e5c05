"""What `forgetui` and `forgetui open` open: a workspace of several tasks (or the run copies)
opens the task list, one task its workbench, and no PATH outside a workspace the sample."""

from __future__ import annotations

from pathlib import Path

import pytest

from forgetui.engine import api
from forgetui.tui import launch as launcher
from forgetui.tui.app import ForgeApp


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> list[ForgeApp]:
    apps: list[ForgeApp] = []

    def run(self: ForgeApp) -> int:
        apps.append(self)
        return 0

    monkeypatch.setattr(ForgeApp, "run", run)
    monkeypatch.setattr(launcher, "require_terminal", lambda: None)  # pytest has no terminal
    return apps


def test_several_tasks_open_the_list_and_one_task_its_workbench(
    forge_home: Path, tmp_path: Path, built: list[ForgeApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = tmp_path / "ws"
    api.init_sample("escalation", into=ws)
    assert launcher.launch(str(ws), model=None, api_base=None, theme=None) == 0
    assert built[-1].tasks is None and built[-1].reader.path.name == "escalation"
    api.create_task(ws, "Second", task_id="second", propose_check=False, run_checks=False)
    assert launcher.launch(str(ws), model=None, api_base=None, theme=None) == 0
    assert built[-1].tasks is not None and built[-1].tasks.place == ws
    monkeypatch.chdir(ws)  # no PATH, in a workspace: its tasks, no sample copied
    assert launcher.launch(None, model=None, api_base=None, theme=None) == 0
    assert built[-1].tasks is not None
    assert not (forge_home / "runs").exists()


def test_no_path_outside_a_workspace_opens_the_sample_and_runs_lists_the_copies(
    forge_home: Path, tmp_path: Path, built: list[ForgeApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "project" / "ws").mkdir(parents=True)
    api.init_sample("escalation", into=tmp_path / "project" / "ws2")
    monkeypatch.chdir(tmp_path / "project")  # a directory of projects is not a task list
    assert launcher.launch(None, model=None, api_base=None, theme=None) == 0
    assert built[-1].tasks is None and built[-1].reader.path.name == "hello_world"
    api.init_sample("escalation")
    assert launcher.launch(None, model=None, api_base=None, theme=None, runs=True) == 0
    assert built[-1].tasks is not None and built[-1].tasks.place == api.runs_root()
