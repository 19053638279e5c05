"""Commands and checks run with the project's own Python environment: which one is chosen (the
workspace's .venv/ or venv/, $VIRTUAL_ENV, task.yaml's python_env, forgetui's own), that finding
it runs nothing, that its python, pytest and console scripts are the ones that run, in both
sandbox modes, and that neither a command nor a file action can change it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from forgetui.engine import api
from forgetui.engine.actions import ActionEnv, execute
from forgetui.engine.api import reads
from forgetui.engine.base.errors import EXIT_BAD_INPUT
from forgetui.engine.checks.verify import run_checks
from forgetui.engine.folder.task_spec import TaskSpec
from forgetui.engine.folder.task_state import Verification
from forgetui.engine.sandbox import (
    CommandSetup,
    PythonEnvError,
    SandboxError,
    find_environment,
    resolve_path,
    run_command,
    run_in,
)
from forgetui.engine.start.samples import init_sample
from tests.engine.sandbox_helpers import BWRAP, MODES, NO_BWRAP, use_mode

PRINT_ENV = (
    "import os, sys; print(sys.prefix); print(os.environ.get('VIRTUAL_ENV'));"
    " print(os.environ['PATH'].split(os.pathsep)[0])"
)


def make_venv(where: Path) -> Path:
    """A real virtual environment, without pip (fast): bin/python, pyvenv.cfg."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    return where


def make_script(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)
    return path


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src" / "proj").mkdir(parents=True)
    (root / "src" / "proj" / "__init__.py").write_text("VALUE = 1\n")
    return root


# ----------------------------------------------------------------------------- choice


def test_the_workspace_venv_comes_first(workspace: Path, tmp_path: Path) -> None:
    make_venv(workspace / ".venv")
    active = make_venv(tmp_path / "active")
    configured = make_venv(tmp_path / "configured")
    found = find_environment(workspace, str(configured), {"VIRTUAL_ENV": str(active)})
    assert (found.source, found.label) == ("workspace .venv", ".venv/ in the workspace")
    assert found.python == workspace / ".venv" / "bin" / "python"
    assert found.prefix == workspace / ".venv"


def test_a_venv_folder_counts_as_the_workspace_venv(workspace: Path) -> None:
    make_venv(workspace / "venv")
    found = find_environment(workspace, None, {})
    assert (found.source, found.short) == ("workspace .venv", "venv/")
    assert found.python == workspace / "venv" / "bin" / "python"


def test_then_the_operators_virtual_env(workspace: Path, tmp_path: Path) -> None:
    active = make_venv(tmp_path / "active")
    configured = make_venv(tmp_path / "configured")
    found = find_environment(workspace, str(configured), {"VIRTUAL_ENV": str(active)})
    assert found.source == "VIRTUAL_ENV"
    assert found.python == active / "bin" / "python"


def test_then_the_one_task_yaml_names(workspace: Path, tmp_path: Path) -> None:
    make_venv(workspace / "envs" / "py")
    stale = tmp_path / "no-longer-there"
    found = find_environment(workspace, "envs/py", {"VIRTUAL_ENV": str(stale)})
    assert found.source == "task.yaml"
    assert found.python == workspace / "envs" / "py" / "bin" / "python"


def test_task_yaml_may_name_an_interpreter(workspace: Path) -> None:
    base = Path(sys.base_prefix) / "bin" / "python3"
    found = find_environment(workspace, str(base), {})
    assert (found.source, found.python, found.bin_dir) == ("task.yaml", base, base.parent)


def test_else_forgetuis_own_interpreter(workspace: Path) -> None:
    found = find_environment(workspace, None, {})
    assert (found.source, found.python) == ("forgetui", Path(sys.executable))
    assert found.label == "forgetui's own interpreter"


@pytest.mark.parametrize("configured", ["missing-env", "src/proj", "src/proj/__init__.py"])
def test_a_python_env_that_is_not_one_is_bad_input(workspace: Path, configured: str) -> None:
    make_venv(workspace / ".venv")  # chosen first, yet the typo is still reported
    with pytest.raises(PythonEnvError) as err:
        find_environment(workspace, configured, {})
    assert err.value.exit_code == EXIT_BAD_INPUT
    assert str(err.value).startswith(f"task.yaml python_env: {configured!r} is not a Python")
    assert "\n" not in str(err.value)


def test_a_broken_python_env_stops_status(workspace: Path, tmp_path: Path) -> None:
    folder = init_sample("hello_world", into=tmp_path / "run")
    task_yaml = folder.path / "task.yaml"
    task_yaml.write_text(task_yaml.read_text() + "python_env: nowhere/\n")
    with pytest.raises(PythonEnvError, match="python_env: 'nowhere/'"):
        reads.status(api.open_task(folder.path))


def test_finding_the_environment_runs_nothing(workspace: Path, tmp_path: Path) -> None:
    """The workspace is the agent's: a planted bin/python that would leave a mark if anything
    ran it, and a pyvenv.cfg whose `home` names a private folder, which is not taken as the
    base installation to make visible."""
    mark = tmp_path / "ran"
    venv = workspace / ".venv"
    (venv / "bin").mkdir(parents=True)
    private = tmp_path / "home" / ".ssh"
    private.mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text(f"home = {private}\n")
    make_script(venv / "bin" / "python", f"#!/bin/sh\ntouch {mark}\n")
    found = find_environment(workspace, None, {})
    assert found.source == "workspace .venv"
    assert found.base == ()
    assert not mark.exists()


def test_status_json_says_which_environment_and_why(tmp_path: Path) -> None:
    folder = init_sample("hello_world", into=tmp_path / "run")
    assert reads.status(folder)["environment"] == {
        "python": sys.executable, "source": "forgetui", "label": "forgetui's own interpreter",
    }  # fmt: skip
    make_venv(folder.workspace / ".venv")
    environment = reads.status(folder)["environment"]
    assert environment["source"] == "workspace .venv"
    assert environment["python"] == str(folder.workspace / ".venv" / "bin" / "python")


# ----------------------------------------------------------------------------- what runs


@pytest.mark.parametrize("mode", MODES)
def test_python_is_the_workspace_venvs(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    use_mode(monkeypatch, mode)
    venv = make_venv(workspace / ".venv")
    result = run_command(["python", "-c", PRINT_ENV], workspace, ["python"])
    assert result.sandbox == mode
    assert result.exit_code == 0, result.output
    assert result.output.split() == [str(venv), str(venv), str(venv / "bin")]


@pytest.mark.parametrize("mode", MODES)
def test_a_shell_or_path_python_is_the_venvs_too(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    """`.venv/bin/python` is honoured as given; under bubblewrap `python` in a shell string
    finds the venv first on PATH."""
    use_mode(monkeypatch, mode)
    venv = make_venv(workspace / ".venv")
    given = run_command([".venv/bin/python", "-c", "import sys; print(sys.prefix)"],
                        workspace, ["python"])  # fmt: skip
    assert given.argv[0] == str(workspace / ".venv" / "bin" / "python")
    assert given.output.strip() == str(venv)
    if mode == "bwrap":
        shell = run_command("python -c 'import sys; print(sys.prefix)' && echo done",
                            workspace, ["python"])  # fmt: skip
        assert shell.output.split() == [str(venv), "done"]


def test_pytest_is_the_venvs(workspace: Path) -> None:
    """`python -m pytest` with the venv's python: its pytest (none here, so the command says
    so, rather than forgetui's passing), with the workspace root importable."""
    venv = make_venv(workspace / ".venv")
    result = run_command("pytest --version", workspace, ["pytest"])
    assert result.argv[:3] == [str(venv / "bin" / "python"), "-m", "pytest"]
    assert "No module named pytest" in result.output


def test_console_scripts_are_the_venvs(workspace: Path) -> None:
    venv = make_venv(workspace / ".venv")
    code = "import sys; print('greet of', sys.prefix)"
    make_script(venv / "bin" / "greet", f"#!{venv}/bin/python\n{code}\n")
    result = run_command("greet", workspace, ["greet"])
    assert result.argv[0] == str(venv / "bin" / "greet")
    assert result.output.strip() == f"greet of {venv}"


def test_a_workspace_program_runs_as_given(workspace: Path) -> None:
    script = make_script(workspace / "scripts" / "check", '#!/bin/sh\necho checked "$@"\n')
    by_path = run_command(["./scripts/check", "a"], workspace, ["scripts/check"])
    assert (by_path.argv[0], by_path.output) == (str(script), "checked a\n")
    with pytest.raises(SandboxError, match="'check' is not allowed"):
        run_command("./scripts/check", workspace, ["python"])


def test_the_operators_pythonpath_does_not_reach_a_project_env(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A PYTHONPATH into another checkout would let tests import code the agent never touched."""
    make_venv(workspace / ".venv")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "elsewhere"))
    code = "import os; print(os.environ.get('PYTHONPATH'))"
    plain = run_command(["python", "-c", code], workspace, ["python"])
    listed = run_command(["python", "-c", code], workspace, ["python"], passthrough=["PYTHONPATH"])
    assert plain.output.strip() == "None"
    assert listed.output.strip() == str(tmp_path / "elsewhere")


def test_checks_run_with_the_environment(workspace: Path) -> None:
    """A src-layout project whose venv has it on sys.path (as an editable install does):
    the check imports the workspace's package, which forgetui's interpreter cannot."""
    venv = make_venv(workspace / ".venv")
    site = next((venv / "lib").glob("python3*/site-packages"))
    (site / "proj.pth").write_text(str(workspace / "src") + "\n")
    spec = TaskSpec.model_validate({
        "id": "t", "goal": "g", "allowed_commands": ["python"],
        "checks": [{"name": "imports", "kind": "command",
                    "cmd": ["python", "-c", "import proj; print(proj.VALUE)"]}],
    })  # fmt: skip
    verification = run_checks(spec, workspace, Verification(), step=1)
    assert verification.checks["imports"].passing, verification.checks["imports"].details


# ----------------------------------------------------------------------------- read-only


@pytest.mark.skipif(not BWRAP, reason=NO_BWRAP)
def test_a_command_cannot_write_into_the_workspace_venv(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_mode(monkeypatch, "bwrap")
    venv = make_venv(workspace / ".venv")
    code = (
        "import sys\n"
        "for path in sys.argv[1:]:\n"
        "    try:\n"
        "        open(path, 'w').write('x'); print('wrote', path)\n"
        "    except OSError as exc:\n"
        "        print('refused', path, exc.strerror)\n"
    )
    target = venv / "lib" / "planted.py"
    result = run_command(["python", "-c", code, str(target), "src/ok.txt"], workspace, ["python"])
    assert f"refused {target} Read-only file system" in result.output
    assert "wrote src/ok.txt" in result.output
    assert not target.exists() and (workspace / "src" / "ok.txt").exists()


def test_a_file_action_cannot_write_into_the_workspace_venv(workspace: Path) -> None:
    make_venv(workspace / ".venv")
    spec = TaskSpec.model_validate({"id": "t", "goal": "g"})
    env = ActionEnv(workspace=workspace, spec=spec, step=1, snapshot=lambda *_: [])
    outcome = execute("write_file", {"path": ".venv/lib/planted.py", "content": "x = 1\n"}, env)
    assert outcome.result == "refused"
    assert "the project's Python environment" in (outcome.error or "")
    assert not (workspace / ".venv" / "lib" / "planted.py").exists()
    with pytest.raises(SandboxError, match=r"inside \.venv/"):
        resolve_path(workspace, ".venv/pyvenv.cfg", write=True)
    assert resolve_path(workspace, ".venv/pyvenv.cfg").is_file()  # reading is fine


@pytest.mark.skipif(not BWRAP, reason=NO_BWRAP)
def test_a_venv_under_the_hidden_home_is_reachable(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The home is an empty tmpfs inside; the active venv in it is put back read-only, and
    nothing else of the home is."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("PRIVATE KEY\n")
    venv = make_venv(home / ".virtualenvs" / "proj")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("VIRTUAL_ENV", str(venv))
    use_mode(monkeypatch, "bwrap")
    code = (
        "import os, sys\n"
        "print(sys.prefix)\n"
        f"print(os.path.exists({str(home / '.ssh')!r}))\n"
        "try:\n"
        f"    open({str(venv / 'x')!r}, 'w')\n"
        "except OSError as exc:\n"
        "    print(exc.strerror)\n"
    )
    result = run_command(["python", "-c", code], workspace, ["python"])
    assert result.output.splitlines() == [str(venv), "False", "Read-only file system"]
    assert not (venv / "x").exists()


def test_one_setup_serves_every_command(workspace: Path) -> None:
    venv = make_venv(workspace / ".venv")
    spec = TaskSpec.model_validate({"id": "t", "goal": "g", "allowed_commands": ["python"]})
    setup = CommandSetup.for_task(spec, workspace, {"PATH": os.defpath})
    assert setup.environment.prefix == venv
    result = run_in(setup, ["python", "-c", "import sys; print(sys.prefix)"])
    assert result.output.strip() == str(venv)


@pytest.mark.parametrize("mode", MODES)
def test_a_task_yaml_interpreter_is_python_in_argv_and_shell(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    """Named by task.yaml: its folder (here the base installation's bin/) may hold no plain
    `python`, and `python` is still that interpreter."""
    use_mode(monkeypatch, mode)
    base = Path(sys.base_prefix) / "bin" / "python3"
    spec = TaskSpec.model_validate(
        {"id": "t", "goal": "g", "allowed_commands": ["python"], "python_env": str(base)}
    )
    setup = CommandSetup.for_task(spec, workspace)
    code = "import sys; print(sys.prefix)"
    assert run_in(setup, ["python", "-c", code]).output.strip() == sys.base_prefix
    if mode == "bwrap":
        shell = run_in(setup, f"python -c '{code}' && python3 -c '{code}'")
        assert shell.output.split() == [sys.base_prefix, sys.base_prefix]
