"""A command as the agent wrote it turned into the argv that runs: no shell, so shell syntax is
refused rather than silently meaning something else, and only allow-listed programs."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from forgetui.engine.sandbox.errors import SandboxError

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
