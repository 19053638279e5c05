"""CLI tests run the real command: exit codes, stdout JSON, stderr lines. `cli` runs it in a
subprocess; `cli_in_process` calls `forgetui.cli.main` with the same arguments, environment and
working directory, for tests where a child process proves nothing more than the call (a
`forgetui run` on a litellm model pays litellm's ~3 s import in every child)."""

from __future__ import annotations

import contextlib
import functools
import io
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Result:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)

    def json_lines(self) -> list[Any]:
        return [json.loads(line) for line in self.out.splitlines() if line.strip()]


def cli_env(home: Path) -> dict[str, str]:
    """What every CLI test's command runs with, besides the test's own environment."""
    return {
        "FORGETUI_HOME": str(home),
        "NO_COLOR": "1",
        "COLUMNS": "160",
        # the samples run pytest as a check; this venv's plugins add ~3 s to each run
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
    }


@pytest.fixture
def cli(tmp_path: Path) -> Any:
    env = {**os.environ, **cli_env(tmp_path / "home")}

    def run(
        *args: str | Path,
        stdin: str | None = None,
        extra_env: dict[str, str] | None = None,
        timeout: float = 120,
    ) -> Result:
        proc = subprocess.run(
            [sys.executable, "-m", "forgetui", *map(str, args)],
            capture_output=True,
            text=True,
            env={**env, **(extra_env or {})},
            cwd=tmp_path,
            input=stdin,
            timeout=timeout,
        )
        return Result(proc.returncode, proc.stdout, proc.stderr)

    return run


@contextlib.contextmanager
def one_parser() -> Iterator[None]:
    """`forgetui.cli.main` builds its parser once, not once a call. A build costs ~15 ms
    (argparse asks gettext for every message): once a process for the real command, but once a
    command for a test that runs hundreds in process."""
    from forgetui import cli

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cli, "build_parser", functools.cache(cli.build_parser))
        yield


@contextlib.contextmanager
def without_fsync() -> Iterator[None]:
    """os.fsync does nothing, in this process: for in-process runs that prove what the engine
    decides, not what survives a power cut (test_crash_resume's children keep it). A step costs
    ~10 of them, each milliseconds on a busy disk."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "fsync", lambda _fd: None)
        yield


@contextlib.contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    """Fail a command that hangs, as the subprocess's timeout does (main thread only)."""

    def hung(_signum: int, _frame: FrameType | None) -> None:
        raise TimeoutError(f"the command still ran after {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run_main(args: Sequence[str | Path], stdin: str | None = None, timeout: float = 120) -> Result:
    """`forgetui ARGS` in this process, in the environment and directory it has now: stdout and
    stderr captured, stdin given, a fresh console (it reads NO_COLOR and COLUMNS when made)."""
    from forgetui.cli import main, render

    out, err = io.StringIO(), io.StringIO()
    consoles, real_stdin = list(render._CONSOLE), sys.stdin
    render._CONSOLE.clear()
    sys.stdin = io.StringIO(stdin or "")
    try:
        with (
            _deadline(timeout),
            one_parser(),
            contextlib.redirect_stdout(out),
            contextlib.redirect_stderr(err),
        ):
            code = main([str(arg) for arg in args])
    finally:
        render._CONSOLE[:] = consoles
        sys.stdin = real_stdin
    return Result(code, out.getvalue(), err.getvalue())


@pytest.fixture
def cli_in_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """`cli`'s twin: the same call, run by `forgetui.cli.main` in this process."""
    for name, value in cli_env(tmp_path / "home").items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)

    def run(
        *args: str | Path,
        stdin: str | None = None,
        extra_env: dict[str, str] | None = None,
        timeout: float = 120,
    ) -> Result:
        with pytest.MonkeyPatch.context() as patch:
            for name, value in (extra_env or {}).items():
                patch.setenv(name, value)
            return run_main(args, stdin, timeout)

    return run


def write_hand_task(workspace: Path, target_lines: int = 3000) -> Path:
    """A task folder written by hand, as docs/task-folder.md describes one."""
    task = workspace / ".agentforge" / "tasks" / "fix-help"
    (task / "artifacts" / "inputs").mkdir(parents=True)
    (workspace / "cli" / "commands").mkdir(parents=True)
    lines = ['"""Spec commands."""', "import click", ""]
    while len(lines) < target_lines - 1:
        n = len(lines)
        lines += ["@click.command()", f"def cmd_{n}():", f"    return {n}", ""]
    lines = [*lines[: target_lines - 1], "# last line of spec.py"]
    (workspace / "cli" / "commands" / "spec.py").write_text("\n".join(lines) + "\n")
    (task / "task.yaml").write_text(
        """id: fix-help
goal: Add a help parameter to every click command in cli/commands/spec.py.
success_criteria:
  - every @click.command in cli/commands passes help=
  - tests/test_cli.py passes
constraints:
  - do not change command behaviour
task_type: fix_violation
phase: fix_violation
violation: "CLI-007: click commands without help text in cli/commands/spec.py"
check_definition:
  rule: every @click.command(...) call passes help=
target_files: [cli/commands/spec.py]
checks:
  - name: tests
    kind: command                 # exit code 0 passes; pytest's summary -> passed/total
    cmd: ["pytest", "-q", "tests/test_cli.py"]
  - name: help-param
    kind: regex                   # pattern must / must_not match in the files
    path: "cli/commands/*.py"
    must_not_match: "@click.command\\\\(\\\\)\\\\s*\\\\ndef"
limits:
  max_steps: 50
"""
    )
    (task / "state.yaml").write_text(
        "task_id: fix-help\nphase: fix_violation\nstatus: ready\nstep: 8\n"
    )
    # the documented working-memory example, verbatim
    example_memory = Path(__file__).parents[1] / "data" / "working_memory.example.yaml"
    (task / "working_memory.yaml").write_text(
        example_memory.read_text().replace(
            'content: "..."', 'content: "def spec(): ...  # loaded by hand"'
        )
    )
    (task / "actions.yaml").write_text("")
    return task


@pytest.fixture
def hand_task(tmp_path: Path) -> Path:
    return write_hand_task(tmp_path / "ws")


@pytest.fixture(scope="module")
def hello_after_two_steps(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A workspace holding hello_world after two steps, made once per module: copy it
    (stepped_sample.copy_task) for a test that changes it."""
    from tests.cli.stepped_sample import stepped_hello

    return stepped_hello(tmp_path_factory.mktemp("hello-template"))


def run_on_fake(cli: Any, task: Path, fake: Any, *flags: str, steps: int = 1) -> Any:
    """`forgetui run TASK --json` for `steps` steps on a litellm model aimed at the loopback
    fake server (tests/fake_openai.py), with `flags` added; `cli` is either runner fixture."""
    model = ("--model", "openai/gpt-4o-mini", "--api-base", fake.url)
    return cli("run", task, *model, "--max-steps", str(steps), "--json", *flags)
