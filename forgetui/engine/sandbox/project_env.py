"""The project's own Python environment, which commands and checks run with.

A project's tests must import the project as its environment installs it (an editable install,
a src layout, its pinned dependencies), not whatever forgetui was installed with. Detection
only looks at the filesystem: the workspace is agent-writable, so nothing found there is run
to find out what it is."""

from __future__ import annotations

import contextlib
import os
import stat
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from forgetui.engine.base.errors import ForgeError
from forgetui.engine.sandbox.paths import PYVENV_CFG

EnvSource = Literal["workspace .venv", "VIRTUAL_ENV", "task.yaml", "forgetui"]
WORKSPACE_VENVS = (".venv", "venv")
_CFG_BYTES = 64 * 1024  # a pyvenv.cfg is a few lines; the workspace's may be anything


class PythonEnvError(ForgeError):
    """task.yaml names a Python environment that is not one: bad input, before any step."""

    title = "invalid python_env"


@dataclass(frozen=True)
class ProjectEnvironment:
    python: Path  # what `python` runs (a venv's bin/python, unresolved: it finds pyvenv.cfg)
    prefix: Path | None  # the venv (VIRTUAL_ENV) or the installation's prefix
    bin_dir: Path | None  # its console scripts; first on the command's PATH
    source: EnvSource
    label: str  # for people: ".venv/", "venv/", "$VIRTUAL_ENV", ...
    base: tuple[Path, ...] = ()  # the base installation a venv's python needs (pyvenv.cfg home)

    @property
    def is_venv(self) -> bool:
        return self.prefix is not None and (self.prefix / PYVENV_CFG).is_file()

    @property
    def short(self) -> str:
        """Where it came from in a word, for a header: ".venv/", "$VIRTUAL_ENV", "python_env"."""
        if self.source == "workspace .venv":
            return self.label.split()[0]
        return {"VIRTUAL_ENV": "$VIRTUAL_ENV", "task.yaml": "python_env"}.get(
            self.source, "forgetui's"
        )

    def to_json(self) -> dict[str, str]:
        return {"python": str(self.python), "source": self.source, "label": self.label}


def _venv_python(directory: Path) -> Path | None:
    """`directory/bin/python` if `directory` is a virtual environment (pyvenv.cfg beside it)."""
    python = directory / "bin" / "python"
    if (directory / PYVENV_CFG).is_file() and os.access(python, os.X_OK):
        return python
    return None


def looks_like_python_prefix(directory: Path) -> bool:
    """A directory that holds a Python installation or a venv, so it may be mounted for an
    interpreter to run; a path read from an agent-writable file must pass this before it is
    made visible inside the sandbox (never `~/.ssh` because a pyvenv.cfg says so)."""
    if (directory / PYVENV_CFG).is_file():
        return True
    lib = directory / "lib"
    try:
        return any((found / "os.py").is_file() for found in lib.glob("python3*"))
    except OSError:
        return False


def read_head(path: Path, limit: int) -> bytes | None:
    """The first `limit` bytes of `path` if it is a regular file, else None. The workspace is
    the agent's: a FIFO, or a link to /proc/kmsg (a "regular" file whose read waits for the
    kernel), must not stop forgetui itself, so nothing here waits for a writer."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return os.read(fd, limit)
    except OSError:  # EAGAIN from a file that would block
        return None
    finally:
        os.close(fd)


def base_prefixes(venv: Path) -> tuple[Path, ...]:
    """Where a venv's interpreter really lives: pyvenv.cfg's `home` (its bin/) and the target
    of bin/python, as installation prefixes that look like Python ones."""
    found: list[Path] = []
    text = (read_head(venv / PYVENV_CFG, _CFG_BYTES) or b"").decode("utf-8", "replace")
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() == "home" and os.path.isabs(value.strip()):
            found.append(Path(value.strip()))
    with contextlib.suppress(OSError, RuntimeError):
        found.append((venv / "bin" / "python").resolve().parent)
    prefixes: list[Path] = []
    for where in found:
        prefix = where.parent if where.name == "bin" else where
        if prefix not in prefixes and prefix != venv and looks_like_python_prefix(prefix):
            prefixes.append(prefix)
    return tuple(prefixes)


def _from_venv(venv: Path, python: Path, source: EnvSource, label: str) -> ProjectEnvironment:
    return ProjectEnvironment(
        python=python, prefix=venv, bin_dir=python.parent, source=source, label=label,
        base=base_prefixes(venv),
    )  # fmt: skip


def own_environment() -> ProjectEnvironment:
    """forgetui's own interpreter: the fallback, announced as such."""
    python = Path(sys.executable)
    prefix = Path(sys.prefix)
    base = tuple(
        dict.fromkeys(Path(p) for p in (sys.base_prefix, sys.exec_prefix) if Path(p) != prefix)
    )
    return ProjectEnvironment(
        python=python, prefix=prefix, bin_dir=python.parent, source="forgetui",
        label="forgetui's own interpreter", base=base,
    )  # fmt: skip


def configured_environment(workspace: Path, configured: str) -> ProjectEnvironment:
    """task.yaml's `python_env`: a venv directory or an interpreter, relative to the
    workspace or absolute. Raises PythonEnvError in one line if it is neither."""
    path = Path(configured).expanduser()
    if not path.is_absolute():
        path = workspace / path
    label = f"task.yaml python_env {configured}"
    if path.is_dir():
        python = _venv_python(path)
        if python is not None:
            return _from_venv(path, python, "task.yaml", label)
        for name in ("python3", "python"):
            if (path / "bin" / name).is_file() and os.access(path / "bin" / name, os.X_OK):
                interpreter = path / "bin" / name
                return ProjectEnvironment(
                    python=interpreter, prefix=path, bin_dir=interpreter.parent,
                    source="task.yaml", label=label,
                )  # fmt: skip
    elif path.is_file() and os.access(path, os.X_OK) and path.name.startswith("python"):
        venv = path.parent.parent
        if path.parent.name == "bin" and (venv / PYVENV_CFG).is_file():
            return _from_venv(venv, path, "task.yaml", label)
        prefix = path.parent.parent if path.parent.name == "bin" else None
        return ProjectEnvironment(
            python=path, prefix=prefix, bin_dir=path.parent, source="task.yaml", label=label
        )
    raise PythonEnvError(
        f"task.yaml python_env: {configured!r} is not a Python environment "
        f"(neither a venv directory with {PYVENV_CFG} and bin/python, nor a python executable)"
    )


def find_environment(
    workspace: Path, configured: str | None = None, environ: Mapping[str, str] = os.environ
) -> ProjectEnvironment:
    """The environment commands run with: the workspace's `.venv/` or `venv/`, else the
    operator's active `$VIRTUAL_ENV`, else task.yaml's `python_env`, else forgetui's own
    interpreter. A `python_env` that is not an environment is bad input even when another
    one is chosen first: a typo should not wait for the day the .venv is gone."""
    chosen = configured_environment(workspace, configured) if configured else None
    for name in WORKSPACE_VENVS:
        venv = workspace / name
        python = _venv_python(venv)
        if python is not None:
            return _from_venv(venv, python, "workspace .venv", f"{name}/ in the workspace")
    active = environ.get("VIRTUAL_ENV", "")
    if active and os.path.isabs(active):
        python = _venv_python(Path(active))
        if python is not None:
            return _from_venv(Path(active), python, "VIRTUAL_ENV", f"$VIRTUAL_ENV {active}")
    return chosen or own_environment()
