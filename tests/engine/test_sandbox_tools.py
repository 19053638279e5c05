"""The tools a command gets: shell strings under bubblewrap (each program still allow-listed,
refused in allow-list mode with the reason), run_cmd's timeout_sec within the task's bound,
and resource limits (file size, memory, processes) that stop a runaway command and say so."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from forgetui.engine.actions import ActionEnv, ActionOutcome, execute
from forgetui.engine.folder.task_spec import TaskSpec
from forgetui.engine.sandbox import (
    CommandSetup,
    ResourceLimits,
    SandboxError,
    run_command,
    run_in,
)
from forgetui.engine.sandbox import limits as limits_module
from forgetui.engine.sandbox.shell import shell_programs
from tests.engine.sandbox_helpers import BWRAP, NO_BWRAP, use_mode

ALLOWED = ("python", "pytest")
needs_bwrap = pytest.mark.skipif(not BWRAP, reason=NO_BWRAP)  # required (.ci/run): they fail


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "mod.py").write_text("x = 1\n")
    return root


@pytest.fixture
def bwrap_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    use_mode(monkeypatch, "bwrap")


def run_cmd(workspace: Path, args: dict[str, Any], **spec: Any) -> ActionOutcome:
    task = TaskSpec.model_validate({"id": "t", "goal": "g", "allowed_commands": ALLOWED, **spec})
    env = ActionEnv(workspace=workspace, spec=task, step=1, snapshot=lambda *_: [])
    env.command_timeout_s = 5.0
    return execute("run_cmd", args, env)


def small(workspace: Path, **limits: int) -> CommandSetup:
    return replace(CommandSetup.plain(workspace, ALLOWED), limits=ResourceLimits(**limits))


# ----------------------------------------------------------------------------- shell strings


@needs_bwrap
@pytest.mark.usefixtures("bwrap_mode")
def test_a_shell_string_runs_under_bwrap(workspace: Path) -> None:
    cmd = "python -c 'print(3)' | tee out.txt > /dev/null && cat out.txt; echo \"$(python -V)\""
    result = run_command(cmd, workspace, (*ALLOWED, "tee", "cat"))
    assert result.sandbox == "bwrap"
    assert result.argv[:2] == ["/bin/sh", "-c"] and result.argv[2].endswith(f"\n{cmd}")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == ["3", f"Python {sys.version.split()[0]}"]
    assert (workspace / "out.txt").read_text() == "3\n"


@needs_bwrap
@pytest.mark.usefixtures("bwrap_mode")
@pytest.mark.parametrize(
    ("cmd", "program"),
    [
        ("pytest -q; rm -rf pkg", "rm"),
        ("pytest -q 2>&1 | tail -5", "tail"),
        ("python x.py | xargs rm", "xargs"),
        ("echo $(curl https://example.test)", "curl"),
        ('echo "`id`"', "id"),
        ("FOO=1 pytest && sh -c 'rm -rf pkg'", "sh"),
    ],
)
def test_every_program_of_a_shell_string_is_allow_listed(
    workspace: Path, cmd: str, program: str
) -> None:
    with pytest.raises(SandboxError, match=f"command '{program}' is not allowed"):
        run_command(cmd, workspace, ALLOWED)
    assert (workspace / "pkg" / "mod.py").exists()


@needs_bwrap
@pytest.mark.usefixtures("bwrap_mode")
def test_pytest_in_a_shell_string_is_the_one_argv_gets(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`python -m pytest` either way: a flat-layout package at the root stays importable."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")  # this venv's plugins are slow
    (workspace / "tests").mkdir()
    (workspace / "tests" / "test_mod.py").write_text("from pkg.mod import x\n\ndef test_x():\n"
                                                     "    assert x == 1\n")  # fmt: skip
    (workspace / "pkg" / "__init__.py").write_text("")
    argv = run_command("pytest -q -p no:cacheprovider tests", workspace, ALLOWED)
    shell = run_command("pytest -q -p no:cacheprovider tests 2>&1 && echo ok", workspace, ALLOWED)
    assert argv.exit_code == 0, argv.output
    assert shell.exit_code == 0 and "1 passed" in shell.output, shell.output
    assert shell.output.endswith("ok\n")


def test_shell_programs_reads_pipelines_lists_and_substitutions() -> None:
    assert shell_programs("pytest -q 2>&1 | tail -20") == ["pytest", "tail"]
    assert shell_programs("cd src && X=1 python -m app > out.txt") == ["cd", "python"]
    assert shell_programs("for f in a b; do pytest $f; done") == ["pytest"]
    assert shell_programs('echo "$(git diff --name-only)"') == ["echo", "git"]
    with pytest.raises(SandboxError, match="here-documents"):
        shell_programs("python <<EOF\nprint(1)\nEOF")


def test_a_shell_string_is_refused_in_allow_list_mode(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_mode(monkeypatch, "allow-list")
    outcome = run_cmd(workspace, {"cmd": "pytest -q | tail -5"})
    assert outcome.result == "refused"
    error = outcome.error or ""
    assert "shell syntax '|' needs bubblewrap" in error
    assert "sudo apt-get install bubblewrap" in error
    assert "\n" not in error


# ----------------------------------------------------------------------------- timeout_sec


@pytest.mark.parametrize("mode", [pytest.param("bwrap", marks=needs_bwrap), "allow-list"])
def test_timeout_sec_shortens_a_command(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    use_mode(monkeypatch, mode)
    outcome = run_cmd(workspace, {"cmd": ["python", "-c", "import time; time.sleep(30)"],
                                  "timeout_sec": 0.5})  # fmt: skip
    assert (outcome.result, outcome.error) == ("failure", "timed out after 0.5s")


def test_timeout_sec_is_bounded_by_the_tasks_command_timeout(workspace: Path) -> None:
    outcome = run_cmd(workspace, {"cmd": ["python", "-c", "print('hi')"], "timeout_sec": 600})
    assert outcome.result == "success"
    assert "[timeout_sec 600 is over the task's command timeout; 5s used]" in (outcome.output or "")


def test_timeout_sec_must_be_a_positive_number(workspace: Path) -> None:
    outcome = run_cmd(workspace, {"cmd": "python -c 1", "timeout_sec": "soon"})
    assert outcome.result == "failure"
    assert "timeout_sec" in (outcome.error or "") and "seconds above 0" in (outcome.error or "")


# ----------------------------------------------------------------------------- limits


def test_limits_come_from_task_yaml() -> None:
    spec = TaskSpec.model_validate(
        {"id": "t", "goal": "g", "sandbox": {"memory_mb": 512, "file_size_mb": 8, "processes": 64}}
    )
    setup = CommandSetup.for_task(spec, Path("."), {})
    assert setup.limits == ResourceLimits(memory_mb=512, file_size_mb=8, processes=64)
    default = CommandSetup.for_task(TaskSpec.model_validate({"id": "t", "goal": "g"}), Path("."))
    assert default.limits == ResourceLimits(memory_mb=4096, file_size_mb=1024, processes=1024)
    with pytest.raises(ValidationError, match="processes"):
        TaskSpec.model_validate({"id": "t", "goal": "g", "sandbox": {"processes": 1}})


@needs_bwrap
@pytest.mark.usefixtures("bwrap_mode")
def test_a_huge_file_is_stopped_and_said(workspace: Path) -> None:
    code = "open('big.bin', 'wb').write(b'x' * (20 * 2**20))"
    result = run_in(small(workspace, file_size_mb=4), ["python", "-c", code])
    assert result.exit_code != 0
    assert result.stopped == "stopped: file size limit 4 MB"
    assert result.output.endswith("[stopped: file size limit 4 MB]")
    assert (workspace / "big.bin").stat().st_size <= 4 * 2**20


@needs_bwrap
@pytest.mark.usefixtures("bwrap_mode")
def test_a_huge_file_from_a_shell_dies_of_sigxfsz(workspace: Path) -> None:
    setup = replace(small(workspace, file_size_mb=1), allowed=(*ALLOWED, "head"))
    result = run_in(setup, "head -c 5000000 /dev/zero > big.bin")
    assert result.exit_code == 128 + 25  # SIGXFSZ, as bwrap reports a signal
    assert result.stopped == "stopped: file size limit 1 MB"


@needs_bwrap
@pytest.mark.usefixtures("bwrap_mode")
def test_a_huge_allocation_is_stopped_and_said(workspace: Path) -> None:
    result = run_in(small(workspace, memory_mb=256), ["python", "-c", "x = bytearray(2**31)"])
    assert "MemoryError" in result.output
    assert result.stopped == "stopped: memory limit 256 MB (an allocation failed)"


@needs_bwrap
@pytest.mark.usefixtures("bwrap_mode")
def test_a_fork_bomb_is_stopped_and_said(workspace: Path) -> None:
    """As root RLIMIT_NPROC binds nothing: there the limit is a pids cgroup. Either way the
    bomb stops at the limit, and the command with it."""
    code = (
        "import os, time\n"
        "children = 0\n"
        "while True:\n"
        "    if os.fork() == 0:\n"
        "        time.sleep(30); os._exit(0)\n"
        "    children += 1\n"
        "    print(children, flush=True)\n"
    )
    result = run_in(small(workspace, processes=32), ["python", "-c", code], timeout_s=60)
    assert not result.timed_out
    assert result.stopped == "stopped: process limit 32 (a fork failed)"
    forked = [int(line) for line in result.output.splitlines() if line.isdigit()]
    assert 0 < max(forked) < 32


@needs_bwrap
@pytest.mark.usefixtures("bwrap_mode")
def test_limits_hold_without_prlimit(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where prlimit(1) is missing, forgetui's own interpreter sets the limits before exec."""
    monkeypatch.setattr(limits_module.shutil, "which", lambda name: None)
    setup = small(workspace, file_size_mb=2)
    assert setup.limits.launcher()[0] == sys.executable
    result = run_in(setup, ["python", "-c", "open('big.bin', 'wb').write(b'x' * 2**23)"])
    assert result.stopped == "stopped: file size limit 2 MB"


@needs_bwrap
@pytest.mark.usefixtures("bwrap_mode")
def test_a_command_within_the_limits_says_nothing_of_them(workspace: Path) -> None:
    outcome = run_cmd(workspace, {"cmd": ["python", "-c", "import sys; sys.exit(3)"]})
    assert outcome.error == "exit code 3"
    assert "stopped" not in (outcome.output or "")
