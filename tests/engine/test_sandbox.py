"""The sandbox: paths stay in the workspace, commands run without a shell from an allow-list,
with a timeout, an output cap and no secrets in their environment."""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path

import pytest

from forgetui.engine.sandbox import (
    SandboxError,
    cap_text,
    resolve_path,
    run_command,
    scrubbed_env,
    split_command,
)

ALLOWED = ("python", "pytest", "ruff")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "mod.py").write_text("x = 1\n")
    (root / ".agentforge" / "tasks" / "t").mkdir(parents=True)
    (root / ".agentforge" / "tasks" / "t" / "state.yaml").write_text("step: 0\n")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("top secret\n")
    return root


@pytest.fixture
def fast_child_pytest(monkeypatch: pytest.MonkeyPatch) -> None:
    """A child pytest without this venv's plugins (hypothesis alone costs ~1.5 s to import)."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


# ----------------------------------------------------------------------------- paths


@pytest.mark.parametrize("rel", ["pkg/mod.py", "./pkg/mod.py", "pkg/../pkg/mod.py", "new/file.py"])
def test_paths_inside_the_workspace_resolve(workspace: Path, rel: str) -> None:
    resolved = resolve_path(workspace, rel)
    assert resolved.is_relative_to(workspace.resolve())
    assert resolved == (workspace / rel).resolve()


def test_absolute_path_inside_the_workspace_is_accepted(workspace: Path) -> None:
    target = workspace / "pkg" / "mod.py"
    assert resolve_path(workspace, str(target)) == target.resolve()


@pytest.mark.parametrize("rel", ["..", "../outside/secret.txt", "pkg/../../outside", "a/../../x"])
def test_dotdot_escapes_are_refused(workspace: Path, rel: str) -> None:
    with pytest.raises(SandboxError, match=r"escapes the workspace"):
        resolve_path(workspace, rel)


def test_absolute_path_outside_is_refused(workspace: Path) -> None:
    with pytest.raises(SandboxError, match=r"absolute path outside the workspace"):
        resolve_path(workspace, "/etc/passwd")


def test_file_symlink_pointing_out_is_refused(workspace: Path) -> None:
    (workspace / "link.txt").symlink_to(workspace.parent / "outside" / "secret.txt")
    with pytest.raises(SandboxError, match=r"symlink .*outside the workspace"):
        resolve_path(workspace, "link.txt")


def test_directory_symlink_pointing_out_is_refused(workspace: Path) -> None:
    (workspace / "linkdir").symlink_to(workspace.parent / "outside", target_is_directory=True)
    with pytest.raises(SandboxError, match=r"symlink"):
        resolve_path(workspace, "linkdir/secret.txt")
    with pytest.raises(SandboxError, match=r"symlink"):
        resolve_path(workspace, "linkdir/new.txt", write=True)


def test_dangling_symlink_pointing_out_is_refused_for_writes(workspace: Path) -> None:
    (workspace / "trap.py").symlink_to(workspace.parent / "outside" / "created.py")
    with pytest.raises(SandboxError):
        resolve_path(workspace, "trap.py", write=True)


def test_symlink_that_stays_inside_is_followed(workspace: Path) -> None:
    (workspace / "alias.py").symlink_to(workspace / "pkg" / "mod.py")
    assert resolve_path(workspace, "alias.py") == (workspace / "pkg" / "mod.py").resolve()


def test_nul_byte_is_refused(workspace: Path) -> None:
    with pytest.raises(SandboxError, match="NUL"):
        resolve_path(workspace, "pkg/mod.py\x00.txt")


def test_task_folder_is_readable_but_not_writable(workspace: Path) -> None:
    state = ".agentforge/tasks/t/state.yaml"
    assert resolve_path(workspace, state).is_file()
    with pytest.raises(SandboxError, match=r"task's own state"):
        resolve_path(workspace, state, write=True)
    with pytest.raises(SandboxError, match=r"task's own state"):
        resolve_path(workspace, "pkg/../.agentforge/new.yaml", write=True)


def test_symlink_into_the_task_folder_is_not_writable(workspace: Path) -> None:
    (workspace / "state.yaml").symlink_to(workspace / ".agentforge" / "tasks" / "t" / "state.yaml")
    with pytest.raises(SandboxError, match=r"task's own state"):
        resolve_path(workspace, "state.yaml", write=True)


# ----------------------------------------------------------------------------- commands


@pytest.mark.parametrize(
    "cmd",
    [
        "pytest -q; rm -rf /",
        "pytest | tee out.txt",
        "pytest && ruff check .",
        "python x.py > out.txt",
        "python x.py < in.txt",
        "python -c `id`",
        "python $(whoami)",
        "python -c print $HOME",
        "python -c \"print('$(id)')\"",
        "pytest -q\nruff check",
        "pytest &",
    ],
)
def test_shell_syntax_is_refused(workspace: Path, cmd: str) -> None:
    with pytest.raises(SandboxError, match="without a shell"):
        run_command(cmd, workspace, ALLOWED)


def test_shell_operators_in_an_argv_list_are_refused(workspace: Path) -> None:
    with pytest.raises(SandboxError, match="'&&'"):
        run_command(["pytest", "&&", "ruff"], workspace, ALLOWED)


def test_quoted_metacharacters_are_plain_arguments(workspace: Path) -> None:
    result = run_command('python -c \'import sys; print("a;b|c>d", "$HOME")\'', workspace, ALLOWED)
    assert result.exit_code == 0
    assert result.output.strip() == "a;b|c>d $HOME"


def test_split_command_follows_shlex_rules() -> None:
    assert split_command('pytest -k "a and b" tests/x.py') == [
        "pytest",
        "-k",
        "a and b",
        "tests/x.py",
    ]
    with pytest.raises(SandboxError, match="No closing quotation"):
        split_command('python -c "unterminated')
    with pytest.raises(SandboxError, match="empty command"):
        split_command("   ")


@pytest.mark.parametrize("cmd", ["ls -la", "bash -c 'echo hi'", "/bin/sh", "rm -rf pkg", "curl x"])
def test_commands_outside_the_allow_list_are_refused(workspace: Path, cmd: str) -> None:
    with pytest.raises(SandboxError, match="is not allowed"):
        run_command(cmd, workspace, ALLOWED)
    assert (workspace / "pkg" / "mod.py").exists()


def test_python_is_refused_when_not_allowed(workspace: Path) -> None:
    with pytest.raises(SandboxError, match="'python' is not allowed"):
        run_command("python -c 1", workspace, ["ruff"])


@pytest.mark.parametrize("name", ["python", "python3", "/usr/bin/python3"])
def test_python_runs_this_interpreter(workspace: Path, name: str) -> None:
    result = run_command([name, "-c", "import sys; print(sys.executable)"], workspace, ALLOWED)
    assert result.argv[0] == sys.executable
    assert result.output.strip() == sys.executable


@pytest.mark.usefixtures("fast_child_pytest")
def test_pytest_runs_as_a_module_of_this_interpreter(workspace: Path) -> None:
    result = run_command("pytest --version", workspace, ALLOWED)
    assert result.argv[:3] == [sys.executable, "-m", "pytest"]
    assert result.exit_code == 0
    assert "pytest" in result.output


def test_commands_run_in_the_workspace(workspace: Path) -> None:
    result = run_command(["python", "-c", "import os; print(os.getcwd())"], workspace, ALLOWED)
    assert Path(result.output.strip()) == workspace.resolve()


def test_exit_code_and_combined_output(workspace: Path) -> None:
    code = "import sys; print('out'); print('err', file=sys.stderr); sys.exit(3)"
    result = run_command(["python", "-c", code], workspace, ALLOWED)
    assert result.exit_code == 3
    assert "out" in result.output and "err" in result.output
    assert not result.timed_out and not result.truncated


def test_allowed_program_missing_from_path_exits_127(workspace: Path) -> None:
    result = run_command(["forgetui-no-such-tool"], workspace, ["forgetui-no-such-tool"])
    assert result.exit_code == 127
    assert "forgetui-no-such-tool" in result.output


# ----------------------------------------------------------------------------- environment


def test_secrets_do_not_reach_a_command(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-123")
    monkeypatch.setenv("GITHUB_TOKEN", "plain-token-value")
    monkeypatch.setenv("INNOCENT_NAME", "sk-live-abcdefghijklmnop")
    monkeypatch.setenv("DATABASE_URL", "postgres://admin:hunter2@db/prod")
    monkeypatch.setenv("FORGETUI_VISIBLE", "still-here")
    result = run_command('python -c "import os;print(os.environ)"', workspace, ALLOWED)
    assert result.exit_code == 0
    for secret in ("sk-secret-123", "plain-token-value", "sk-live-abcdefghijklmnop", "hunter2"):
        assert secret not in result.output
    assert "still-here" in result.output
    assert "PYTHONDONTWRITEBYTECODE" in result.output


def test_scrubbed_env_drops_secret_names_and_values_and_keeps_the_basics() -> None:
    environ = {
        "PATH": "/usr/bin:/bin",
        "HOME": "/home/dev",
        "LANG": "C.UTF-8",
        "VIRTUAL_ENV": "/home/dev/project/.venv",
        "PYTHONPATH": "src",
        "PYTHON_API_KEY": "x",
        "ANTHROPIC_BASE_URL": "https://example.test",
        "AWS_REGION": "eu-west-1",
        "AZURE_OPENAI_ENDPOINT": "https://x",
        "GOOGLE_APPLICATION_CREDENTIALS": "/keys/sa.json",
        "DB_PASSWORD": "pw",
        "MY_SECRET": "s",
        "HF_TOKEN": "t",
        "SOME_CREDENTIALS_FILE": "/c",
        "AWS_LIKE": "AKIAABCDEFGHIJKLMNOP",
        "PEM": "-----BEGIN RSA PRIVATE KEY-----\nabc",
        "GH": "ghp_abcdefghijklmnopqrstuvwxyz0123",
        "EDITOR": "vim",
    }
    kept = scrubbed_env(environ)
    assert set(kept) == {
        "PATH", "HOME", "LANG", "VIRTUAL_ENV", "PYTHONPATH", "EDITOR", "PYTHONDONTWRITEBYTECODE",
    }  # fmt: skip
    assert kept["PYTHONDONTWRITEBYTECODE"] == "1"
    assert kept["PATH"] == "/usr/bin:/bin"


# ----------------------------------------------------------------------------- limits


def test_timeout_kills_the_command(workspace: Path) -> None:
    result = run_command(["python", "-c", "import time; time.sleep(60)"], workspace, ALLOWED, 0.5)
    assert result.timed_out
    assert result.exit_code is None
    assert "timed out after 0.5s" in result.output


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_timeout_kills_the_whole_process_group(workspace: Path) -> None:
    code = (
        "import subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        "print(child.pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    result = run_command(["python", "-c", code], workspace, ALLOWED, timeout_s=1.0)
    assert result.timed_out
    child = int(result.output.split()[0])
    deadline = time.monotonic() + 10  # reaping is asynchronous; this only bounds the wait
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child)


def test_output_is_capped_keeping_start_and_end(workspace: Path) -> None:
    code = "print('BEGIN' + 'x' * 100_000 + 'END')"
    result = run_command(["python", "-c", code], workspace, ALLOWED, output_cap=2_000)
    assert result.truncated
    assert result.output.startswith("BEGIN")
    assert result.output.rstrip().endswith("END")
    match = re.search(r"\[\.\.\. (\d+) bytes truncated\]", result.output)
    assert match is not None
    kept = len(result.output.encode()) - len(match.group(0)) - 2  # the marker's own newlines
    assert kept + int(match.group(1)) == len("BEGIN") + 100_000 + len("END") + 1


def test_output_under_the_cap_is_whole(workspace: Path) -> None:
    result = run_command(["python", "-c", "print('hello')"], workspace, ALLOWED, output_cap=2_000)
    assert result.output == "hello\n"
    assert not result.truncated


def test_cap_text_keeps_short_text_and_marks_cuts() -> None:
    assert cap_text("short", 100) == "short"
    capped = cap_text("a" * 50 + "b" * 50, 40)
    assert capped.startswith("a" * 10)
    assert capped.endswith("b" * 30)
    assert "[... 60 characters truncated]" in capped


def test_environment_of_the_test_process_is_untouched() -> None:
    before = dict(os.environ)
    scrubbed_env(os.environ)
    assert dict(os.environ) == before
