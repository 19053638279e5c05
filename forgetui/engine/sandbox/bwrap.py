"""The bubblewrap command line that confines one agent or check command.

Everything is read-only but the workspace; the operator's home, /tmp and /run are hidden behind
empty tmpfs mounts (keys in ~/.ssh, tokens in ~/.config, agent and database sockets); the task's
own folder is read-only even though it lies in the workspace, and so is the project's Python
environment wherever it lives (put back under the hidden home or /tmp, with the base
installation its interpreter needs); the command gets its own PID,
IPC, UTS and (unless the task allows it) network namespaces, so nothing it starts outlives it
and the engine's /proc/<pid>/environ is not there to read."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from forgetui.engine.sandbox.paths import TASK_DIR_NAME
from forgetui.engine.sandbox.project_env import (
    ProjectEnvironment,
    looks_like_python_prefix,
    read_head,
)

SANDBOX_HOME = "/tmp/home"  # HOME inside: empty and writable, gone with the command
_PREFIX_DIRS = ("bin",)  # <prefix>/bin/python: the interpreter needs its whole prefix


def _shebang_interpreter(program: Path) -> Path | None:
    first = (read_head(program, 256) or b"").partition(b"\n")[0]
    if not first.startswith(b"#!"):
        return None
    words = first[2:].decode("utf-8", "replace").split()
    return Path(words[0]) if words and os.path.isabs(words[0]) else None


def _real(path: Path) -> Path | None:
    """Where `path` leads, or None for a symbolic link loop (the agent can make one)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return None


def _program_roots(program: str, workspace: Path) -> list[Path]:
    """The directories `program` needs to run: its PATH entry, where its real file lives, and
    for a script the whole prefix of its interpreter (a venv's python needs its lib/). A
    program in the workspace is the agent's to write: of its shebang only a directory that
    holds a Python installation is made visible (never `#!/home/me/.ssh/x`'s folder)."""
    path = Path(program)
    real = _real(path)
    if not path.is_absolute() or real is None:  # a link loop: exec fails, nothing to mount
        return []
    ws = workspace.resolve()
    agents = path.is_relative_to(workspace.absolute()) or path.is_relative_to(ws)
    roots = [] if agents else [path.parent, real.parent]
    interpreter = _shebang_interpreter(real)
    if interpreter is not None:
        places = (interpreter, _real(interpreter))
        for where in (place.parent for place in places if place is not None):
            root = where.parent if where.name in _PREFIX_DIRS else where
            if not agents or looks_like_python_prefix(root):
                roots.append(root)
    return roots


def _environment_roots(environment: ProjectEnvironment | None) -> list[Path]:
    """The project environment's directories and its base installation, resolved (a .venv
    may be a symlink to a shared one)."""
    if environment is None:
        return []
    found = [environment.python.parent, *environment.base]
    if environment.prefix is not None:
        found.append(environment.prefix)
    roots: list[Path] = []
    for path in found:
        roots += [path, path.resolve()]
    return [root for root in roots if root.is_dir()]


def _python_roots() -> list[Path]:
    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix}
    roots = [Path(prefix) for prefix in prefixes]
    return roots + [root.resolve() for root in roots]


def _outermost(paths: Iterable[Path]) -> list[Path]:
    """The paths without those inside another one; bwrap mounts each once."""
    kept: list[Path] = []
    for path in sorted(set(paths), key=lambda p: len(p.parts)):
        if not any(path.is_relative_to(other) for other in kept):
            kept.append(path)
    return kept


def home_to_hide(environ: Mapping[str, str]) -> Path | None:
    """The operator's home, if it is a directory that can be hidden (never `/`)."""
    home = environ.get("HOME", "")
    if not home or not os.path.isabs(home):
        return None
    path = Path(home).resolve()
    return path if path.is_dir() and path != Path("/") else None


def _put_back(hidden: Sequence[Path], wanted: Iterable[Path]) -> list[Path]:
    """What must stay readable under the hidden directories (a venv under /tmp or $HOME, pyenv
    in ~/.pyenv); never a hidden directory itself or one holding it, judged where the path
    really leads too (`home = /home/me/..` in an agent-written pyvenv.cfg is `/home`)."""

    def holds_hidden(root: Path) -> bool:
        try:
            real = root.resolve()
        except (OSError, RuntimeError):
            return True
        return any(place.is_relative_to(where) for place in hidden for where in (root, real))

    return _outermost(
        root
        for root in wanted
        if any(root.is_relative_to(place) and root != place for place in hidden)
        and not holds_hidden(root)
        and root.is_dir()
    )


def _resolver_dir(network: bool) -> list[str]:
    """With the network allowed, /etc/resolv.conf may point into the hidden /run."""
    if not network:
        return []
    target = Path("/etc/resolv.conf").resolve()
    if target.is_relative_to("/run") and target.parent.is_dir():
        return ["--ro-bind", str(target.parent), str(target.parent)]
    return []


def wrap(
    bwrap: str,
    argv: Sequence[str],
    workspace: Path,
    *,
    network: bool,
    home: Path | None,
    environment: ProjectEnvironment | None = None,
    program: str | None = None,
) -> list[str]:
    """`bwrap [mounts and namespaces] -- argv`, to run with cwd = the workspace. `program`
    is the command's own program when argv starts with a launcher.

    Mount order matters: the tmpfs mounts hide first, then what must run is bound back
    read-only, then the workspace read-write (so one under $HOME or /tmp works), then its task
    folder and a project environment inside it read-only again."""
    ws = workspace.resolve()
    args = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    if Path("/proc/sys").is_dir():
        # The new /proc's sysctls are writable by root, caps dropped or not (file modes decide):
        # kernel.core_pattern would run a workspace script as root outside the sandbox.
        args += ["--ro-bind", "/proc/sys", "/proc/sys"]
    args += ["--tmpfs", "/tmp"]
    hidden = [Path("/tmp")]
    if Path("/run").is_dir():
        args += ["--tmpfs", "/run", *_resolver_dir(network)]
        hidden.append(Path("/run"))
    if home is not None:
        args += ["--tmpfs", str(home)]
        hidden.append(home)
    env_roots = _environment_roots(environment)
    wanted = [
        *_python_roots(), *_program_roots(program or argv[0], workspace),
        *(root for root in env_roots if not root.is_relative_to(ws)),
    ]  # fmt: skip
    for root in _put_back(hidden, wanted):
        args += ["--ro-bind", str(root), str(root)]
    args += ["--dir", SANDBOX_HOME]  # after the home's tmpfs, in case $HOME is /tmp
    args += ["--bind", str(ws), str(ws)]
    inside = [ws / TASK_DIR_NAME]
    if environment is not None and environment.prefix is not None:
        inside.append(environment.prefix)
    for path in inside:
        if not path.exists():
            continue
        real = path.resolve()
        if real.is_relative_to(ws) and real != ws and real.is_dir():
            args += ["--ro-bind", str(real), str(real)]
    args += ["--chdir", str(ws), "--unshare-pid", "--unshare-ipc", "--unshare-uts"]
    if not network:
        args.append("--unshare-net")
    # --cap-drop ALL: run as root, bwrap would keep CAP_SYS_ADMIN, and the command could
    # remount / read-write or unmount the read-only task folder.
    args += ["--die-with-parent", "--new-session", "--cap-drop", "ALL", "--", *argv]
    return args
