"""`forgetui` / `forgetui open PATH`: what gets opened, and the app the launcher builds."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from forgetui.engine import api
from forgetui.engine.base.errors import TaskNotFoundError
from forgetui.engine.start.samples import init_sample
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
    monkeypatch.setattr(launcher, "require_terminal", lambda: None)  # pytest has no terminal
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


def _forgetui(
    home: Path, *args: str, stdout: int = subprocess.PIPE
) -> subprocess.CompletedProcess[str]:
    """The real command with no terminal on stdin; stdout piped unless given."""
    env = {**os.environ, "FORGETUI_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "forgetui", *args], stdin=subprocess.DEVNULL, stdout=stdout,
        stderr=subprocess.PIPE, text=True, env=env, timeout=60,
    )  # fmt: skip


@pytest.mark.parametrize("args", [(), ("open", "hello_world"), ("open", "escalation")])
def test_without_a_terminal_it_refuses_before_copying_a_sample(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    home = tmp_path / "home"
    proc = _forgetui(home, *args)  # stdout piped, as in a script
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr == (
        "forgetui: the workbench needs a terminal (stdout is not a TTY); "
        "use `forgetui run TASK` for headless runs\n"
    )
    assert not (home / "runs").exists()  # no run copy was made


def test_the_terminal_check_comes_before_textual_is_imported(tmp_path: Path) -> None:
    code = (
        "import sys; from forgetui.cli import main; code = main(['open', 'hello_world']); "
        "sys.stderr.write(f'textual imported: {\"textual\" in sys.modules}\\n'); sys.exit(code)"
    )
    env = {**os.environ, "FORGETUI_HOME": str(tmp_path / "home")}
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.splitlines()[-1] == "textual imported: False"


def test_a_terminal_on_stdout_but_not_stdin_is_refused_too(tmp_path: Path) -> None:
    leader, follower = pty.openpty()
    try:
        proc = _forgetui(tmp_path / "home", "open", "hello_world", stdout=follower)
    finally:
        os.close(follower)
        os.close(leader)
    assert proc.returncode == 2
    assert "needs a terminal (stdin is not a TTY)" in proc.stderr
    assert not (tmp_path / "home" / "runs").exists()


def test_after_quitting_a_sample_says_where_its_run_copy_is(
    forge_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    opened: list[Path] = []
    in_use: list[object] = []

    def run(self: ForgeApp) -> int:
        opened.append(self.reader.path)
        in_use.append(api.run_copies()[0].holder)  # marked open: `runs --prune` skips it
        return 0

    monkeypatch.setattr(ForgeApp, "run", run)
    monkeypatch.setattr(launcher, "require_terminal", lambda: None)
    assert launcher.launch(None, model=None, api_base=None, theme=None) == 0
    run_dir = opened[0].parents[2]
    assert run_dir.parent == forge_home / "runs"
    assert capsys.readouterr().err == (
        "forgetui: a fresh copy of hello_world, running its checks once...\n"
        f"forgetui: this run's copy is at {run_dir} (`forgetui runs` lists them)\n"
    )
    assert getattr(in_use[0], "pid", None) == os.getpid()
    assert api.run_copies()[0].holder is None  # the mark goes when the workbench quits

    folder = init_sample("hello_world", into=tmp_path / "ws")  # not a sample: opened in place
    assert launcher.launch(str(folder.path), model=None, api_base=None, theme=None) == 0
    assert capsys.readouterr().err == ""
