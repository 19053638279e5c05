"""Attacks on running commands with the workspace's own environment, as a hostile answer or a
hostile file in the workspace would make them: a shell string that runs a program its words do
not name, a pyvenv.cfg whose `home` leads to the hidden home, and a virtual environment a
command plants in the workspace for the checks to run with."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from forgetui.engine.actions import ActionEnv, execute
from forgetui.engine.folder.task_spec import TaskSpec
from forgetui.engine.sandbox import CommandSetup, SandboxError, run_command
from forgetui.engine.start.new_task import new_task
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


@needs_bwrap
def test_a_command_cannot_write_the_kernels_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run as root, a command keeps uid 0 without capabilities, and sysctl files are writable
    by file mode: kernel.core_pattern would start a workspace script as root on the host. The
    attempt writes back the value it read, so it changes nothing even where it succeeds."""
    use_mode(monkeypatch, "bwrap")
    code = (
        "p = '/proc/sys/kernel/core_uses_pid'\n"
        "value = open(p).read()\n"
        "try:\n"
        "    open(p, 'w').write(value); print('wrote', p)\n"
        "except OSError as exc:\n"
        "    print('refused', p, exc.strerror)\n"
    )
    result = run_command(["python", "-c", code], tmp_path, ["python"])
    assert result.sandbox == "bwrap"
    assert "refused /proc/sys/kernel/core_uses_pid" in result.output, result.output


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
    script.write_text(f"#!{home}/../bin/python -I\nprint(open({str(home / 'token')!r}).read())\n")
    script.chmod(0o755)
    result = run_command("./scripts/check", workspace, ["scripts/check"])
    # it was started in the sandbox; the interpreter's prefix (holding the home) is not put back
    assert result.sandbox == "bwrap" and result.exit_code not in (0, None), result.output
    assert "SECRET-IN-HOME" not in result.output


def _in_a_child(code: str) -> subprocess.CompletedProcess[str]:
    """Run `code` in a child forgetui process: an attempt that would hang forgetui must not hang
    the test session too (the bound is generous; nothing asserts how long it took)."""
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )


@needs_bwrap
@pytest.mark.parametrize("kind", ["fifo", "link loop"])
def test_a_program_that_is_a_fifo_or_a_link_loop_is_a_failed_command(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A command can leave `x/pytest` as a FIFO or a link loop and the next one name it: the
    sandbox reads a workspace program's shebang before it starts it, and that read must
    neither wait for a writer nor raise out of forgetui."""
    use_mode(monkeypatch, "bwrap")
    (tmp_path / "x").mkdir()
    program = tmp_path / "x" / "pytest"
    if kind == "fifo":
        os.mkfifo(program)
    else:
        program.symlink_to("pytest2")
        (tmp_path / "x" / "pytest2").symlink_to("pytest")
    child = _in_a_child(
        "from pathlib import Path\n"
        "from forgetui.engine.sandbox import run_command\n"
        f"r = run_command('./x/pytest -q', Path({str(tmp_path)!r}), ['pytest'], timeout_s=5)\n"
        "print('exit', r.exit_code, r.sandbox)\n"
    )
    assert child.returncode == 0, child.stderr
    assert "exit 126 bwrap" in child.stdout  # started in the sandbox, which could not exec it


def test_a_pyvenv_cfg_that_is_a_fifo_does_not_stop_finding_the_base(tmp_path: Path) -> None:
    venv = tmp_path / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(sys.executable)
    os.mkfifo(tmp_path / "cfg")
    (venv / "pyvenv.cfg").symlink_to(tmp_path / "cfg")
    child = _in_a_child(
        "from pathlib import Path\n"
        "from forgetui.engine.sandbox.project_env import base_prefixes\n"
        f"print('bases', len(base_prefixes(Path({str(venv)!r}))))\n"
    )
    assert child.returncode == 0, child.stderr
    assert "bases 1" in child.stdout  # bin/python's own installation, pyvenv.cfg unread


@pytest.mark.skipif(not os.access("/proc/kmsg", os.R_OK), reason="/proc/kmsg not readable")
def test_a_pyvenv_cfg_linked_to_a_file_that_blocks_does_not_stop_detection(
    tmp_path: Path,
) -> None:
    """/proc/kmsg is a regular file whose read waits for the kernel's next message."""
    venv = tmp_path / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(sys.executable)
    (venv / "pyvenv.cfg").symlink_to("/proc/kmsg")
    child = _in_a_child(
        "from pathlib import Path\n"
        "from forgetui.engine.sandbox import find_environment\n"
        f"print('source', find_environment(Path({str(tmp_path)!r})).source)\n"
    )
    assert child.returncode == 0, child.stderr
    assert "source workspace .venv" in child.stdout


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


def test_a_file_action_cannot_write_into_a_python_env_that_is_not_a_venv(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    prefix = tmp_path / "env"
    (prefix / "bin").mkdir(parents=True)
    (prefix / "bin" / "python3").symlink_to(sys.executable)
    (prefix / "conda-meta").mkdir()
    spec = TaskSpec.model_validate({"id": "t", "goal": "g", "python_env": "env"})
    assert CommandSetup.for_task(spec, tmp_path).environment.prefix == prefix
    env = ActionEnv(workspace=tmp_path, spec=spec, step=1, snapshot=lambda *_: [])
    planted = "env/lib/python3.11/site-packages/sitecustomize.py"
    outcome = execute("write_file", {"path": planted, "content": "import os\n"}, env)
    assert outcome.result == "refused", outcome.summary
    assert not (tmp_path / planted).exists()
