"""The sandbox every action goes through (DESIGN.md section 6): paths resolve inside the
workspace, commands run without a shell from an allow-list, with a timeout, an output cap and an
environment stripped of secrets."""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from forgetui.engine.errors import ForgeError

TASK_DIR_NAME = ".agentforge"
DEFAULT_OUTPUT_CAP = 20_000
DEFAULT_TIMEOUT_S = 60.0


class SandboxError(ForgeError):
    """A path or command the sandbox refuses; the message says why, for the model to read."""

    title = "refused by the sandbox"


# ----------------------------------------------------------------------------- paths


def _inside(path: Path, root: Path) -> bool:
    return path == root or path.is_relative_to(root)


def resolve_path(workspace: Path, rel: str, *, write: bool = False) -> Path:
    """The real path `rel` names, guaranteed inside the workspace (symlinks followed).

    With `write`, the task folder (<workspace>/.agentforge) is refused too: the agent must not
    edit its own state."""
    if "\x00" in rel:
        raise SandboxError(f"path {rel!r} contains a NUL byte")
    root = workspace.resolve()
    joined = root / rel  # an absolute `rel` replaces the root
    try:
        resolved = joined.resolve(strict=False)
    except (OSError, RuntimeError) as exc:  # symlink loops
        raise SandboxError(f"path {rel!r} cannot be resolved: {exc}") from exc
    if not _inside(resolved, root):
        lexical = Path(os.path.normpath(joined))
        if _inside(lexical, root) or _inside(lexical, workspace.absolute()):
            reason = f"goes through a symlink to {resolved}, which is outside the workspace"
        elif Path(rel).is_absolute():
            reason = "is an absolute path outside the workspace"
        else:
            reason = "escapes the workspace (..)"
        raise SandboxError(f"path {rel!r} {reason}")
    if write and resolved.relative_to(root).parts[:1] == (TASK_DIR_NAME,):
        raise SandboxError(
            f"path {rel!r} is inside {TASK_DIR_NAME}/, the task's own state; it cannot be changed"
        )
    return resolved


def workspace_relative(workspace: Path, path: Path) -> str:
    """A resolved path as logs and snapshots name it: posix, relative to the workspace."""
    return path.relative_to(workspace.resolve()).as_posix() or "."


# ----------------------------------------------------------------------------- environment

_SECRET_NAME = re.compile(
    r"KEY|TOKEN|SECRET|PASSW|PASSPHRASE|CREDENTIAL|COOKIE|SESSION|DSN|ASKPASS"
    r"|^(AWS|AZURE|OPENAI|ANTHROPIC|GEMINI|COHERE|MISTRAL|GROQ|HUGGINGFACE)_"
    r"|^(SSH_AUTH_SOCK|GPG_AGENT_INFO)$",
    re.IGNORECASE,
)
_SECRET_VALUE = re.compile(
    r"(?<![A-Za-z0-9])("
    r"sk-[A-Za-z0-9_\-]{8,}"  # OpenAI, Anthropic (sk-ant-...)
    r"|AKIA[0-9A-Z]{16}"  # AWS access key id
    r"|AIza[0-9A-Za-z_\-]{30,}"  # Google API key
    r"|(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}"
    r"|glpat-[A-Za-z0-9_\-]{16,}|hf_[A-Za-z0-9]{20,}|xox[abprs]-[A-Za-z0-9\-]{10,}"
    r"|eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}"  # a JWT
    r")"
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----"
    r"|://[^/\s:@]+:[^/\s@]+@"  # credentials in a URL
)
# Variables whose values are paths or locale names: never dropped for what the value looks like.
_PATH_LIKE = frozenset(
    ("PATH", "HOME", "PWD", "TMPDIR", "LANG", "SHELL", "USER", "LOGNAME", "TERM")
)


def scrubbed_env(environ: Mapping[str, str]) -> dict[str, str]:
    """`environ` without API keys and secrets, for commands the agent runs.

    A variable goes if its name looks like a secret (…KEY…, …TOKEN…, AWS_…, …) or its value
    looks like one (sk-…, AKIA…, a private key, user:password@ in a URL)."""
    kept = {
        name: value
        for name, value in environ.items()
        if not _SECRET_NAME.search(name)
        and (name in _PATH_LIKE or name.startswith("LC_") or not _SECRET_VALUE.search(value))
    }
    kept["PYTHONDONTWRITEBYTECODE"] = "1"
    return kept


# ----------------------------------------------------------------------------- commands

_OPERATORS = frozenset((";", "|", "||", "&", "&&", ">", ">>", "<", "<<", "2>", "2>&1", "&>"))
_PYTHON = re.compile(r"python(\d+(\.\d+)?)?(\.exe)?")
_PYTEST = ("pytest", "py.test")
_EXPANSION = re.compile(r"\$(\(|\{|[A-Za-z_][A-Za-z0-9_]*)")


def _shell_syntax(cmd: str) -> str | None:
    """The first piece of syntax a shell would act on, or None: operators outside quotes, `$`
    expansion and backticks outside single quotes. Without a shell they would silently mean
    something else, so they are refused rather than passed on."""
    quote: str | None = None
    i = 0
    while i < len(cmd):
        ch = cmd[i]
        if quote == "'":
            if ch == "'":
                quote = None
        elif ch == "\\":
            i += 1
        elif expansion := _EXPANSION.match(cmd, i):
            return expansion.group()
        elif ch == "`":
            return ch
        elif quote == '"':
            if ch == '"':
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch in ";|&<>()\n":
            return "newline" if ch == "\n" else ch
        i += 1
    return None


def split_command(cmd: str | Sequence[str]) -> list[str]:
    """argv from a command string (shlex rules) or list; shell syntax is refused."""
    if isinstance(cmd, str):
        found = _shell_syntax(cmd)
        if found:
            raise SandboxError(
                f"shell syntax {found!r} is not supported: commands run without a shell "
                "(one program, its arguments; no pipes, redirection, chaining or $ expansion)"
            )
        try:
            argv = shlex.split(cmd)
        except ValueError as exc:
            raise SandboxError(f"cannot parse command {cmd!r}: {exc}") from exc
    else:
        argv = [str(part) for part in cmd]
        operators = [part for part in argv if part in _OPERATORS]
        if operators:
            raise SandboxError(
                f"shell operator {operators[0]!r} is not supported: commands run without a shell"
            )
    if not argv or not argv[0]:
        raise SandboxError("empty command")
    if any("\x00" in part for part in argv):
        raise SandboxError("command contains a NUL byte")
    return argv


def _is_python(name: str) -> bool:
    return bool(_PYTHON.fullmatch(name))


def program_argv(argv: Sequence[str], allowed: Sequence[str]) -> list[str]:
    """The argv that actually runs: argv[0]'s basename must be allow-listed; the program is
    looked up by that name (any directory given is ignored), python is this interpreter and
    pytest runs as `python -m pytest`, so the venv's tools run without it on PATH."""
    name = os.path.basename(argv[0])
    names = set(allowed)
    python_allowed = any(_is_python(entry) for entry in names)
    if _is_python(name) and python_allowed:
        return [sys.executable, *argv[1:]]
    if name not in names:
        listed = ", ".join(sorted(names)) or "nothing"
        raise SandboxError(f"command {name!r} is not allowed (allowed: {listed})")
    if name in _PYTEST:
        return [sys.executable, "-m", "pytest", *argv[1:]]
    search = os.pathsep.join((str(Path(sys.executable).parent), os.environ.get("PATH", "")))
    return [shutil.which(name, path=search) or name, *argv[1:]]


@dataclass(frozen=True)
class CommandResult:
    argv: list[str]
    exit_code: int | None  # None: timed out
    output: str  # stdout and stderr combined, capped
    timed_out: bool
    truncated: bool
    duration_ms: float


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
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def run_command(
    cmd: str | list[str],
    workspace: Path,
    allowed: Sequence[str],
    timeout_s: float = DEFAULT_TIMEOUT_S,
    output_cap: int = DEFAULT_OUTPUT_CAP,
) -> CommandResult:
    """Run one allow-listed program in the workspace, no shell, scrubbed environment.

    Raises SandboxError for a refused command; a program that fails, is missing or times out
    is a CommandResult (exit 127 for not found, None for a timeout)."""
    argv = program_argv(split_command(cmd), allowed)
    started = time.perf_counter()
    try:
        proc = subprocess.Popen(
            argv,
            cwd=workspace,
            env=scrubbed_env(os.environ),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, so a timeout kills its children
        )
    except OSError as exc:
        return CommandResult(
            argv=argv,
            exit_code=127 if isinstance(exc, FileNotFoundError) else 126,
            output=f"{argv[0]}: {exc.strerror or exc}",
            timed_out=False,
            truncated=False,
            duration_ms=(time.perf_counter() - started) * 1000,
        )
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
    output, truncated = reader.text()
    if timed_out:
        output += f"\n[timed out after {timeout_s:g}s; process group killed]"
    return CommandResult(
        argv=argv,
        exit_code=exit_code,
        output=output,
        timed_out=timed_out,
        truncated=truncated,
        duration_ms=(time.perf_counter() - started) * 1000,
    )


def cap_text(text: str, limit: int) -> str:
    """`text` cut to at most about `limit` characters, keeping its start and end."""
    if len(text) <= limit:
        return text
    head = limit // 4
    tail = limit - head
    dropped = len(text) - head - tail
    return f"{text[:head]}\n[... {dropped} characters truncated]\n{text[-tail:]}"
