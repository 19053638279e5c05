"""A command as the agent wrote it turned into the argv that runs, in the project's environment:
`python` and `pytest` are the environment's, other names are looked up in its bin/ and then on
PATH, and a program named by a path in the workspace runs as given. Only allow-listed programs
run; without a shell, shell syntax is refused rather than silently meaning something else."""

from __future__ import annotations

import os
import re
import shlex
import shutil
from collections.abc import Sequence
from pathlib import Path

from forgetui.engine.sandbox.errors import SandboxError
from forgetui.engine.sandbox.project_env import ProjectEnvironment, own_environment
from forgetui.engine.sandbox.shell import BUILTINS

_OPERATORS = frozenset((";", "|", "||", "&", "&&", ">", ">>", "<", "<<", "2>", "2>&1", "&>"))
_PYTHON = re.compile(r"python(\d+(\.\d+)?)?(\.exe)?")
_PYTEST = ("pytest", "py.test")
_EXPANSION = re.compile(r"\$(\(|\{|[A-Za-z_][A-Za-z0-9_]*)")


def shell_syntax(cmd: str) -> str | None:
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
        found = shell_syntax(cmd)
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


def _workspace_program(program: str, workspace: Path | None) -> Path | None:
    """The absolute path of a program named by a path inside the workspace, else None."""
    if workspace is None or "/" not in program:
        return None
    path = Path(os.path.normpath(workspace.absolute() / program))
    for root in (workspace.absolute(), workspace.resolve()):
        if path.is_relative_to(root):
            return path
    return None


def check_allowed(
    program: str, allowed: Sequence[str], workspace: Path | None = None, *, shell: bool = False
) -> None:
    """Refuse a program the allow-list does not name. A name counts by its basename (a python
    entry allows every python name); a program in the workspace also counts when its path
    (relative to the workspace) is listed; in a shell string, builtins that run nothing are
    allowed too."""
    name = os.path.basename(program)
    names = set(allowed)
    if shell and name in BUILTINS:
        return
    if name in names or (_is_python(name) and any(_is_python(entry) for entry in names)):
        return
    where = _workspace_program(program, workspace)
    if where is not None and workspace is not None:
        rel = os.path.relpath(where, workspace.absolute())
        listed = {os.path.normpath(entry) for entry in names if "/" in entry}
        if rel in listed:
            return
    shown = ", ".join(sorted(names)) or "nothing"
    raise SandboxError(f"command {name!r} is not allowed (allowed: {shown})")


def program_argv(
    argv: Sequence[str],
    allowed: Sequence[str],
    environment: ProjectEnvironment | None = None,
    workspace: Path | None = None,
    search_path: str | None = None,
) -> list[str]:
    """The argv that actually runs. A path inside the workspace runs as given; any other
    program is looked up by its basename: python names are the environment's interpreter,
    pytest is `python -m pytest` with it (the environment's pytest, run as `python -m` puts the
    workspace root on sys.path, as flat-layout projects' tests expect; their bin/pytest would
    not), other names its bin/ then `search_path` (the operator's PATH). A name found nowhere
    stays bare (exit 127)."""
    env = environment or own_environment()
    check_allowed(argv[0], allowed, workspace)
    given = _workspace_program(argv[0], workspace)
    if given is not None:
        return [str(given), *argv[1:]]
    name = os.path.basename(argv[0])
    if _is_python(name):
        return [str(env.python), *argv[1:]]
    if name in _PYTEST:
        return [str(env.python), "-m", "pytest", *argv[1:]]
    dirs = [str(env.bin_dir)] if env.bin_dir is not None else []
    search = os.pathsep.join([*dirs, search_path if search_path is not None else os.defpath])
    return [shutil.which(name, path=search) or name, *argv[1:]]
