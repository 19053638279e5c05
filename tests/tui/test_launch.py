"""`forgetui` / `forgetui open PATH`: what gets opened, and the app the launcher builds."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from forgetui.engine.errors import TaskNotFoundError
from forgetui.engine.samples import init_sample
from forgetui.paths import data_dir
from forgetui.tui import launch as launcher
from forgetui.tui.app import ForgeApp


def test_no_path_opens_a_fresh_hello_world_run(forge_home: Path) -> None:
    first = launcher.resolve_task(None)
    second = launcher.resolve_task(None)
    assert first != second  # a fresh run directory each time
    assert first.name == "hello_world"
    assert forge_home / "runs" in first.parents
    assert not (data_dir("sample_tasks") / "hello_world" / ".agentforge").exists()


def test_a_sample_name_or_folder_is_instantiated(forge_home: Path) -> None:
    by_name = launcher.resolve_task("escalation")
    by_path = launcher.resolve_task(str(data_dir("sample_tasks") / "escalation"))
    assert by_name.name == by_path.name == "escalation"
    assert by_name != by_path
    assert (by_name.parents[2] / "README.md").is_file()  # the workspace was copied


def test_a_task_folder_or_its_workspace_opens_in_place(forge_home: Path, tmp_path: Path) -> None:
    folder = init_sample("hello_world", into=tmp_path / "ws")
    assert launcher.resolve_task(str(folder.path)) == folder.path
    assert launcher.resolve_task(str(tmp_path / "ws")) == folder.path


def test_an_unknown_path_is_an_error(forge_home: Path, tmp_path: Path) -> None:
    with pytest.raises(TaskNotFoundError):
        launcher.resolve_task(str(tmp_path / "nothing-here"))


def test_launch_builds_the_app_from_flags_env_and_config(
    forge_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[ForgeApp] = []

    def run(self: ForgeApp) -> int:
        built.append(self)
        return 0

    monkeypatch.setattr(ForgeApp, "run", run)
    monkeypatch.setenv("FORGETUI_THEME", "light")
    assert launcher.launch("escalation", model="human", api_base=None, theme=None) == 0
    app = built[0]
    assert app.theme == "light"  # from the environment
    assert app.session.human
    assert app.reader.path.name == "escalation"
    assert launcher.launch("escalation", model=None, api_base=None, theme="dark") == 0
    assert built[1].theme == "dark"  # the flag wins


def test_open_with_a_bad_path_exits_2_with_one_line(tmp_path: Path) -> None:
    env = {**os.environ, "FORGETUI_HOME": str(tmp_path / "home")}
    proc = subprocess.run(
        [sys.executable, "-m", "forgetui", "open", str(tmp_path / "missing")],
        capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.startswith("forgetui: ") and "no such task folder" in proc.stderr
    assert "textual" not in proc.stderr.lower() or "Traceback" not in proc.stderr
