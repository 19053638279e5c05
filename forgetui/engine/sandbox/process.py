"""Running one command: the sandbox around it, the project's environment, a timeout, an output
cap, resource limits, a clean environment, and secret values cut from what it printed."""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from forgetui.engine.sandbox.argv import check_allowed, program_argv, shell_syntax, split_command
from forgetui.engine.sandbox.bwrap import SANDBOX_HOME, home_to_hide, wrap
from forgetui.engine.sandbox.errors import SandboxError
from forgetui.engine.sandbox.guard import CommandGuard
from forgetui.engine.sandbox.limits import PidsCgroup
from forgetui.engine.sandbox.mode import SandboxMode, SandboxName, sandbox_mode
from forgetui.engine.sandbox.redact import redact, secrets_of
from forgetui.engine.sandbox.setup import CommandSetup
from forgetui.engine.sandbox.shell import SHELL, shell_programs

DEFAULT_OUTPUT_CAP = 20_000
DEFAULT_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class CommandResult:
    argv: list[str]  # the program and its arguments, without the sandbox's wrapper
    exit_code: int | None  # None: timed out
    output: str  # stdout and stderr combined, capped, secret values redacted
    timed_out: bool
    truncated: bool
    duration_ms: float
    sandbox: SandboxName = "allow-list"
    redacted: list[str] = field(default_factory=list)  # variables whose values were cut
    stopped: str | None = None  # "stopped: file size limit 1024 MB": a resource limit hit
    # allow-list mode: what it changed under .agentforge/ and what was done about it (guard.py)
    undone: list[str] = field(default_factory=list)


class _CappedReader(threading.Thread):
    """Drains a pipe keeping the first quarter and the last three quarters of the cap: results
    and summaries come last, and a command printing gigabytes must not fill memory."""

    def __init__(self, stream: IO[bytes], cap: int) -> None:
        super().__init__(daemon=True)
        self.stream = stream  # owned: closed here once drained, never under a blocked read
        self.head_cap = cap // 4
        self.tail_cap = cap - self.head_cap
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0
        self.lock = threading.Lock()

    def run(self) -> None:
        try:
            while chunk := os.read(self.stream.fileno(), 65536):
                with self.lock:
                    self.total += len(chunk)
                    room = self.head_cap - len(self.head)
                    if room > 0:
                        self.head += chunk[:room]
                        chunk = chunk[room:]
                    self.tail += chunk
                    if len(self.tail) > 2 * self.tail_cap:
                        del self.tail[: -self.tail_cap]
        finally:
            self.stream.close()

    def text(self) -> tuple[str, bool]:
        with self.lock:
            tail = self.tail[-self.tail_cap :] if self.tail_cap else bytearray()
            dropped = self.total - len(self.head) - len(tail)
            if dropped <= 0:
                return (self.head + tail).decode("utf-8", "replace"), False
            marker = f"\n[... {dropped} bytes truncated]\n".encode()
            return (self.head + marker + tail).decode("utf-8", "replace"), True


def _kill_group(pid: int) -> None:
    """Kill the command's process group; under bwrap, killing bwrap takes its PID namespace
    (and so every process the command started) with it."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def run_command(
    cmd: str | list[str],
    workspace: Path,
    allowed: Sequence[str],
    timeout_s: float = DEFAULT_TIMEOUT_S,
    output_cap: int = DEFAULT_OUTPUT_CAP,
    *,
    network: bool = False,
    passthrough: Sequence[str] = (),
) -> CommandResult:
    """One command without a task (benchmarks, tests): the workspace's environment, default
    limits. Tasks build their CommandSetup once and call `run_in`."""
    setup = CommandSetup.plain(workspace, allowed, network=network, passthrough=passthrough)
    return run_in(setup, cmd, timeout_s, output_cap)


def _shell_prelude(python: Path) -> str:
    """Shell functions so `python`, `python3` and `pytest` in a shell string mean what they
    mean in an argv: the environment's interpreter (whose bin/ may lack a plain `python`, as
    /usr/bin does) and its `python -m pytest`, with the workspace root importable."""
    quoted = shlex.quote(str(python))
    return (
        f'python() {{ {quoted} "$@"; }}; python3() {{ {quoted} "$@"; }}; '
        f'pytest() {{ {quoted} -m pytest "$@"; }}'
    )


def command_name(cmd: str | list[str]) -> str:
    """The program a command is known by in summaries ("pytest exited 1"): its first one."""
    if isinstance(cmd, str) and shell_syntax(cmd) is not None:
        programs = shell_programs(cmd)
    else:
        programs = split_command(cmd)
    return os.path.basename(programs[0]) if programs else "sh"


def command_argv(setup: CommandSetup, cmd: str | list[str], mode: SandboxMode) -> list[str]:
    """The argv `cmd` runs as: a shell string under bubblewrap is `/bin/sh -c STRING` with
    each program it names allow-listed; in allow-list mode it is refused, saying why."""
    if isinstance(cmd, str) and (found := shell_syntax(cmd)) is not None:
        if mode.bwrap is None:
            raise SandboxError(
                f"shell syntax {found!r} needs bubblewrap: in allow-list mode commands run "
                "without a shell (one program and its arguments); give an argv, or install "
                f"bubblewrap (`sudo apt-get install bubblewrap`) [{mode.reason}]"
            )
        for program in shell_programs(cmd):
            check_allowed(program, setup.allowed, setup.workspace, shell=True)
        return [SHELL, "-c", f"{_shell_prelude(setup.environment.python)}\n{cmd}"]
    return program_argv(
        split_command(cmd), setup.allowed, setup.environment, setup.workspace,
        setup.search_path(),
    )  # fmt: skip


def run_in(
    setup: CommandSetup,
    cmd: str | list[str],
    timeout_s: float = DEFAULT_TIMEOUT_S,
    output_cap: int = DEFAULT_OUTPUT_CAP,
) -> CommandResult:
    """Run one allow-listed command in the workspace with the project's environment: an
    allow-listed process environment, under bubblewrap when it works (with resource limits;
    a shell string is run by /bin/sh there).

    Raises SandboxError for a refused command and SandboxUnavailable if FORGETUI_SANDBOX asks
    for a sandbox that cannot run; a program that fails, is missing or times out is a
    CommandResult (exit 127 for not found, None for a timeout). One function on purpose:
    every way out (not found, cannot start, timed out, stopped by a limit) removes the pids
    cgroup and kills the process group, which is easiest to check with every path here."""
    mode = sandbox_mode(setup.environ)
    argv = command_argv(setup, cmd, mode)
    started = time.perf_counter()

    def finish(
        exit_code: int | None, output: str, timed_out: bool, truncated: bool,
        stopped: str | None = None, undone: list[str] | None = None,
    ) -> CommandResult:  # fmt: skip
        if undone:
            output += f"\n[{undone_note(undone)}]"
        clean, names = redact(output, secrets_of(setup.environ))
        return CommandResult(
            argv=argv,
            exit_code=exit_code,
            output=clean,
            timed_out=timed_out,
            truncated=truncated,
            duration_ms=(time.perf_counter() - started) * 1000,
            sandbox=mode.name,
            redacted=names,
            stopped=stopped,
            undone=undone or [],
        )

    if os.sep not in argv[0]:  # a bare name: program_argv found it nowhere on PATH
        return finish(127, f"{argv[0]}: command not found", False, False)
    workspace = setup.workspace
    launched = argv
    env = setup.child_env()
    cgroup: PidsCgroup | None = None
    if mode.bwrap is not None:
        home = home_to_hide(setup.environ)
        cgroup = PidsCgroup.create(setup.limits.processes)
        launched = wrap(
            mode.bwrap, [*setup.limits.launcher(), *argv], workspace, network=setup.network,
            home=home, environment=setup.environment, program=argv[0],
        )  # fmt: skip
        if cgroup is not None:
            launched = [*cgroup.join(), *launched]
        env = setup.child_env(home=SANDBOX_HOME)
    # no mount keeps .agentforge/ read-only here: what the command changes there is put back
    guard = CommandGuard(workspace, setup.guarded).before() if mode.bwrap is None else None
    try:
        proc = subprocess.Popen(
            launched,
            cwd=workspace,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, so a timeout kills its children
        )
    except OSError as exc:
        if cgroup is not None:
            cgroup.remove()
        code = 127 if isinstance(exc, FileNotFoundError) else 126
        return finish(code, f"{argv[0]}: {exc.strerror or exc}", False, False)
    assert proc.stdout is not None
    reader = _CappedReader(proc.stdout, output_cap)
    reader.start()
    timed_out = False
    try:
        exit_code: int | None = proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        timed_out = True
        exit_code = None
    finally:
        _kill_group(proc.pid)  # on a timeout, and any background child left behind
        proc.wait()
    reader.join(timeout=2.0)  # a child that escaped the group may still hold the pipe
    undone = guard.after() if guard is not None else []
    output, truncated = reader.text()
    stopped = None
    if timed_out:
        output += f"\n[timed out after {timeout_s:g}s; process group killed]"
    elif mode.bwrap is not None:
        stopped = setup.limits.stopped(exit_code, output, cgroup is not None and cgroup.hit())
        if stopped:
            output += f"\n[{stopped}]"
    if cgroup is not None:
        cgroup.remove()
    return finish(exit_code, output, timed_out, truncated, stopped, undone)


def undone_note(undone: list[str]) -> str:
    """One line for the command's output and the step's error: the agent learns its change
    did not stay, and why."""
    return (
        "commands must not change forgetui's own files under .agentforge/, so forgetui undid "
        f"it: {'; '.join(undone)}"
    )


def cap_text(text: str, limit: int) -> str:
    """`text` cut to at most about `limit` characters, keeping its start and end."""
    if len(text) <= limit:
        return text
    head = limit // 4
    tail = limit - head
    dropped = len(text) - head - tail
    return f"{text[:head]}\n[... {dropped} characters truncated]\n{text[-tail:]}"
