"""The sandbox: paths stay in the workspace, commands run without a shell from an allow-list,
with a timeout, an output cap and an allow-listed environment, under bubblewrap where it works;
secret values are cut from outputs. The escape attempts themselves are in test_escapes.py."""

from __future__ import annotations

import os
import re
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from forgetui.engine.base.errors import EXIT_BAD_INPUT
from forgetui.engine.sandbox import (
    MODE_VARIABLE,
    SandboxError,
    SandboxUnavailable,
    cap_text,
    child_env,
    redact,
    resolve_path,
    run_command,
    sandbox_mode,
    secrets_of,
    split_command,
)
from forgetui.engine.sandbox.mode import probe_bwrap
from tests.engine.sandbox_helpers import (
    BWRAP,
    MODES,
    NO_BWRAP,
    kill_all,
    processes_with,
    use_mode,
    wait_until,
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
def test_shell_syntax_is_refused_in_allow_list_mode(
    workspace: Path, cmd: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under bubblewrap a shell string runs (test_sandbox_tools.py); without it, no shell."""
    use_mode(monkeypatch, "allow-list")
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
    monkeypatch.setenv("FORGETUI_VISIBLE", "not-passed-through")
    monkeypatch.setenv("FORGETUI_LISTED", "passed-through")
    code = "import os; print(sorted(os.environ.items()))"
    result = run_command(
        ["python", "-c", code], workspace, ALLOWED, passthrough=["FORGETUI_LISTED"]
    )
    assert result.exit_code == 0
    for secret in ("sk-secret-123", "plain-token-value", "sk-live-abcdefghijklmnop", "hunter2"):
        assert secret not in result.output
    assert "not-passed-through" not in result.output
    assert "('FORGETUI_LISTED', 'passed-through')" in result.output
    assert "('PYTHONDONTWRITEBYTECODE', '1')" in result.output


def test_child_env_is_built_from_an_allow_list() -> None:
    environ = {
        "PATH": "/usr/bin:/bin",
        "HOME": "/home/dev",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TZ": "UTC",
        "VIRTUAL_ENV": "/home/dev/project/.venv",
        "PYTHONPATH": "src",
        "EDITOR": "vim",
        "NPM_AUTH": "npm-auth-value",
        "SLACK_HOOK_URL": "https://hooks.example.test/x",
        "MYAPP_AUTH_HEADER": "Bearer abc",
        "DOCKER_AUTH_CONFIG": "{}",
        "OPENAI_API_KEY": "sk-whatever-123456",
        "WANTED": "yes",
    }
    kept = child_env(environ, ["WANTED"])
    assert set(kept) == {
        "PATH", "HOME", "LANG", "LC_ALL", "TZ", "VIRTUAL_ENV", "PYTHONPATH", "WANTED",
        "TMPDIR", "PYTHONDONTWRITEBYTECODE",
    }  # fmt: skip
    assert kept["HOME"] == "/home/dev" and kept["TMPDIR"] == "/tmp"
    assert child_env(environ, home="/tmp/home")["HOME"] == "/tmp/home"


def test_environment_of_the_test_process_is_untouched() -> None:
    before = dict(os.environ)
    child_env(os.environ, ["PATH"], home="/elsewhere")
    assert dict(os.environ) == before


# ----------------------------------------------------------------------------- redaction


def test_secret_looking_variables_are_found_by_name_and_by_value() -> None:
    environ = {
        "NPM_AUTH": "npm-auth-value-1",
        "SLACK_HOOK_URL": "https://hooks.example.test/T000/B000",
        "MYAPP_AUTH_HEADER": "Bearer abcdefgh",
        "DOCKER_AUTH_CONFIG": '{"auths": {}}',
        "DB_PASSWORD": "correct-horse",
        "SENTRY_DSN": "https://k@sentry.example.test/1",
        "GOOGLE_APPLICATION_CREDENTIALS": "/keys/sa.json",
        "DATABASE_URL": "postgres://admin:hunter2@db/prod",
        "SHORT_TOKEN": "abc",  # too short to redact without cutting ordinary text
        "GIT_AUTHOR_NAME": "Jane Developer",
        "PATH": "/usr/bin:/bin",
        "EDITOR": "vim-or-emacs",
    }
    assert set(secrets_of(environ)) == {
        "NPM_AUTH", "SLACK_HOOK_URL", "MYAPP_AUTH_HEADER", "DOCKER_AUTH_CONFIG", "DB_PASSWORD",
        "SENTRY_DSN", "GOOGLE_APPLICATION_CREDENTIALS", "DATABASE_URL",
    }  # fmt: skip


def test_redact_replaces_every_occurrence_longest_value_first() -> None:
    secrets = {"API_TOKEN": "tok-12345678", "LONG_TOKEN": "tok-12345678-and-more"}
    text = "a tok-12345678 b tok-12345678-and-more c tok-12345678"
    clean, names = redact(text, secrets)
    assert clean == "a [redacted $API_TOKEN] b [redacted $LONG_TOKEN] c [redacted $API_TOKEN]"
    assert names == ["API_TOKEN", "LONG_TOKEN"]
    assert redact("nothing here", secrets) == ("nothing here", [])


def test_a_command_printing_a_secret_is_redacted(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEPLOY_TOKEN", "deploy-token-0123456789")
    code = "import os; print('token is', os.environ['DEPLOY_TOKEN'])"
    result = run_command(["python", "-c", code], workspace, ALLOWED, passthrough=["DEPLOY_TOKEN"])
    assert result.output == "token is [redacted $DEPLOY_TOKEN]\n"
    assert result.redacted == ["DEPLOY_TOKEN"]


# ----------------------------------------------------------------------------- mode


@pytest.fixture
def fresh_probe() -> Iterator[None]:
    """The probe is cached once per process; these tests change what it would find."""
    probe_bwrap.cache_clear()
    yield
    probe_bwrap.cache_clear()


def test_allow_list_mode_can_be_forced(monkeypatch: pytest.MonkeyPatch, workspace: Path) -> None:
    monkeypatch.setenv(MODE_VARIABLE, "allow-list")
    mode = sandbox_mode()
    assert (mode.name, mode.bwrap) == ("allow-list", None)
    assert "FORGETUI_SANDBOX=allow-list" in mode.reason
    assert run_command(["python", "-c", "pass"], workspace, ALLOWED).sandbox == "allow-list"


def test_an_unknown_mode_is_bad_input(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MODE_VARIABLE, "docker")
    with pytest.raises(
        SandboxUnavailable, match=r"FORGETUI_SANDBOX='docker' is not a sandbox mode"
    ):
        sandbox_mode()


@pytest.mark.usefixtures("fresh_probe")
def test_without_bwrap_commands_fall_back_to_the_allow_list(
    monkeypatch: pytest.MonkeyPatch, workspace: Path, tmp_path: Path
) -> None:
    monkeypatch.delenv(MODE_VARIABLE, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    mode = sandbox_mode()
    assert mode.name == "allow-list"
    assert mode.reason == "bwrap not found: install it with `sudo apt-get install bubblewrap`"
    assert run_command(["python", "-c", "print(1)"], workspace, ALLOWED).output == "1\n"


@pytest.mark.usefixtures("fresh_probe")
def test_asking_for_bwrap_without_it_is_an_error(
    monkeypatch: pytest.MonkeyPatch, workspace: Path, tmp_path: Path
) -> None:
    monkeypatch.setenv(MODE_VARIABLE, "bwrap")
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    with pytest.raises(
        SandboxUnavailable, match=r"FORGETUI_SANDBOX=bwrap, but bwrap not found"
    ) as err:
        run_command(["python", "-c", "pass"], workspace, ALLOWED)
    assert err.value.exit_code == EXIT_BAD_INPUT


@pytest.mark.usefixtures("fresh_probe")
def test_a_bwrap_that_fails_its_probe_says_why(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fake = tmp_path / "bin" / "bwrap"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.delenv(MODE_VARIABLE, raising=False)
    monkeypatch.setenv("PATH", f"{fake.parent}:/usr/bin:/bin")
    mode = sandbox_mode()
    assert mode.name == "allow-list"
    assert mode.reason == "bwrap probe failed: bwrap: No permissions to create new namespace"


@pytest.mark.skipif(not BWRAP, reason=NO_BWRAP)
def test_bwrap_mode_runs_commands_inside_it(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(MODE_VARIABLE, raising=False)
    code = "import os; print(os.getpid(), os.environ['HOME'], os.getcwd())"
    result = run_command(["python", "-c", code], workspace, ALLOWED)
    assert result.sandbox == "bwrap"
    pid, home, cwd = result.output.split()
    assert int(pid) <= 3  # a fresh PID namespace: bwrap's init is 1
    assert home == "/tmp/home"
    assert Path(cwd) == workspace.resolve()


@pytest.mark.skipif(not BWRAP, reason=NO_BWRAP)
def test_a_program_installed_under_tmp_still_runs_under_bwrap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """/tmp is a private tmpfs inside, but a venv (or a tool) that lives under /tmp, as in a
    fresh clone there, is put back read-only: hiding it fell back to the allow-list."""
    assert tmp_path.resolve().is_relative_to("/tmp")
    tools = tmp_path / "venv" / "bin"
    tools.mkdir(parents=True)
    tool = tools / "greet"
    tool.write_text(f"#!{sys.executable}\nprint('hello from', __file__)\n")
    tool.chmod(0o755)
    ws = tmp_path / "ws"
    ws.mkdir()
    monkeypatch.delenv(MODE_VARIABLE, raising=False)
    monkeypatch.setenv("PATH", f"{tools}:{os.environ['PATH']}")
    result = run_command(["greet"], ws, ("greet",))
    assert result.sandbox == "bwrap"
    assert result.exit_code == 0, result.output
    assert result.output.strip() == f"hello from {tool}"


# ----------------------------------------------------------------------------- limits


@pytest.mark.parametrize("mode", MODES)
def test_timeout_kills_every_process_the_command_started(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    use_mode(monkeypatch, mode)
    marker = f"forgetui-timeout-{uuid.uuid4().hex}"
    code = (
        "import subprocess, sys, time\n"
        f"subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)', {marker!r}])\n"
        "time.sleep(60)\n"
    )
    result = run_command(["python", "-c", code, marker], workspace, ALLOWED, timeout_s=1.0)
    assert result.timed_out
    assert result.exit_code is None
    assert "timed out after 1s" in result.output
    wait_until(lambda: not processes_with(marker))
    survivors = processes_with(marker)
    kill_all(survivors)
    assert survivors == []


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
