"""Attacks on running commands with the workspace's own environment, as a hostile answer or a
hostile file in the workspace would make them: a shell string that runs a program its words do
not name, a pyvenv.cfg whose `home` leads to the hidden home, and a virtual environment a
command plants in the workspace for the checks to run with."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from forgetui.engine.new_task import new_task
from forgetui.engine.sandbox import SandboxError, run_command
from tests.engine.sandbox_helpers import BWRAP, NO_BWRAP, use_mode

needs_bwrap = pytest.mark.skipif(not BWRAP, reason=NO_BWRAP)

# Each runs `uname` (not allow-listed) while the words the shell string shows name only
# allowed programs or builtins.
HIDDEN_PROGRAMS = [
    pytest.param('x="uname -s"; $x/pytest', id="expansion-split-into-program"),
    pytest.param("$(echo uname)/pytest", id="substitution-as-program"),
    pytest.param("set -- 1; for x do uname; done", id="for-without-in"),
    pytest.param("echo $(( $(uname >&2; echo 1) + 0 ))", id="substitution-in-arithmetic"),
    pytest.param('echo "$(( `uname >&2; echo 2` ))"', id="backticks-in-quoted-arithmetic"),
]


@needs_bwrap
@pytest.mark.parametrize("cmd", HIDDEN_PROGRAMS)
def test_a_shell_string_cannot_run_a_program_it_does_not_name(
    cmd: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_mode(monkeypatch, "bwrap")
    ran = subprocess.run(["/bin/sh", "-c", cmd], capture_output=True, text=True, check=False)
    assert "Linux" in ran.stdout + ran.stderr or "uname" in ran.stderr  # the shell does run it
    with pytest.raises(SandboxError):
        run_command(cmd, tmp_path, ["python", "pytest"])


@needs_bwrap
def test_a_shell_string_naming_allowed_programs_still_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_mode(monkeypatch, "bwrap")
    result = run_command(
        "for n in 1 2; do echo $(( n + 1 )); done; echo $(( $(python -c 'print(4)') * 2 ))",
        tmp_path,
        ["python"],
    )
    assert result.exit_code == 0, result.output
    assert result.output.split() == ["2", "3", "8"]


def _venv_with_home(venv: Path, home: str) -> None:
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text(f"home = {home}\n")
    (venv / "bin" / "python").symlink_to(sys.executable)


@needs_bwrap
def test_a_pyvenv_cfg_home_leading_out_of_the_hidden_home_does_not_show_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`home = ~/..` names a path inside the hidden home, but it leads to the directory holding
    it; a directory that looks like a Python prefix there would put the whole home back."""
    use_mode(monkeypatch, "bwrap")
    prefix = tmp_path / "prefix"  # looks like an installation: lib/python3.X/os.py
    (prefix / "lib" / "python3.11").mkdir(parents=True)
    (prefix / "lib" / "python3.11" / "os.py").write_text("")
    home = prefix / "home"
    home.mkdir()
    (home / "token").write_text("SECRET-IN-HOME\n")
    monkeypatch.setenv("HOME", str(home))
    workspace = tmp_path / "ws"
    _venv_with_home(workspace / ".venv", f"{home}/..")
    result = run_command(
        ["python", "-c", f"print(open({str(home / 'token')!r}).read())"], workspace, ["python"]
    )
    assert "FileNotFoundError" in result.output  # it ran, and the home was hidden
    assert "SECRET-IN-HOME" not in result.output


@needs_bwrap
def test_a_workspace_scripts_shebang_leading_out_of_the_hidden_home_does_not_show_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same through an allowed script of the project: its interpreter's prefix,
    `~/../bin/..`, is the directory holding the home."""
    use_mode(monkeypatch, "bwrap")
    prefix = tmp_path / "prefix"
    (prefix / "lib" / "python3.11").mkdir(parents=True)
    (prefix / "lib" / "python3.11" / "os.py").write_text("")
    (prefix / "bin").mkdir()
    (prefix / "bin" / "python").symlink_to(sys.executable)
    home = prefix / "home"
    home.mkdir()
    (home / "token").write_text("SECRET-IN-HOME\n")
    monkeypatch.setenv("HOME", str(home))
    workspace = tmp_path / "ws"
    (workspace / "scripts").mkdir(parents=True)
    script = workspace / "scripts" / "check"
    script.write_text(
        f"#!{home}/../bin/python -I\nprint(open({str(home / 'token')!r}).read())\n"
    )
    script.chmod(0o755)
    result = run_command("./scripts/check", workspace, ["scripts/check"])
    assert "FileNotFoundError" in result.output  # it ran, and the home was hidden
    assert "SECRET-IN-HOME" not in result.output


PLANT = (
    "import os; os.makedirs('.venv/bin');"
    " open('.venv/pyvenv.cfg', 'w').write('home = /usr/bin\\n');"
    " open('.venv/bin/python', 'w').write('#!/bin/sh\\necho 1 passed\\n');"
    " os.chmod('.venv/bin/python', 0o755)"
)


@needs_bwrap
@pytest.mark.xfail(
    strict=True,
    reason="the environment is found again for every command: a .venv/ a command creates in "
    "a workspace that had none is then what `python` and the checks' pytest run; pinning the "
    "environment chosen at layout (task state) is more than a sandbox-local fix",
)
def test_a_command_cannot_plant_the_environment_the_checks_run_with(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_mode(monkeypatch, "bwrap")
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    (tmp_path / "test_x.py").write_text("def test_x():\n    assert False\n")
    allowed = ["python", "pytest"]
    assert run_command("pytest -q", tmp_path, allowed).exit_code == 1
    planted = run_command(["python", "-c", PLANT], tmp_path, allowed)
    assert planted.exit_code == 0, planted.output  # the command made .venv/ in the workspace
    assert (tmp_path / ".venv" / "bin" / "python").is_file()
    after = run_command("pytest -q", tmp_path, allowed)
    assert after.exit_code == 1, after.output  # still the failing test, not the fake "1 passed"


@pytest.mark.xfail(
    strict=True,
    reason="`new` runs the proposed test command as step 0, and in allow-list mode nothing "
    "confines it: a checkout's conftest.py or package.json test script runs on the host when "
    "the operator only asked for a task to be laid out; whether to skip step 0 there is a "
    "product decision",
)
def test_new_does_not_run_a_checkouts_own_code_unconfined(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_mode(monkeypatch, "allow-list")
    workspace = tmp_path / "checkout"
    workspace.mkdir()
    marker = tmp_path / "ran-at-new"
    (workspace / "pytest.ini").write_text("[pytest]\n")
    (workspace / "conftest.py").write_text(f"open({str(marker)!r}, 'w').write('x')\n")
    (workspace / "test_a.py").write_text("def test_a():\n    pass\n")
    folder = new_task(workspace, "Fix it")
    assert folder.spec.checks  # the project's test command was proposed
    assert not marker.exists()
