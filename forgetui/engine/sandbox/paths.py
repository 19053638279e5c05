"""Paths an action names resolve inside the workspace; the task folder and a Python
environment in the workspace stay read-only."""

from __future__ import annotations

import os
from pathlib import Path

from forgetui.engine.sandbox.errors import SandboxError

TASK_DIR_NAME = ".agentforge"
MEMORY_PARTS = (TASK_DIR_NAME, "memory")  # the workspace's project memory
TASKS_PARTS = (TASK_DIR_NAME, "tasks")  # where each task's own folder lives
PYVENV_CFG = "pyvenv.cfg"  # what marks a directory as a virtual environment


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
    if write:
        refuse_environment_write(root, resolved.relative_to(root).parts, rel)
    return resolved


# what makes a directory a Python environment for the write rule above
_ENVIRONMENT_MARKERS = (PYVENV_CFG, "conda-meta", "bin/python", "bin/python3")


def refuse_environment_write(workspace: Path, parts: tuple[str, ...], shown: str) -> None:
    """Refuse a write under a Python environment in the workspace (a directory holding
    pyvenv.cfg, a conda env's conda-meta/, or a bin/python): commands may run with it and
    mount it read-only, and a file action must not change what `python` or `pytest` is
    either."""
    for depth in range(1, len(parts)):
        folder = workspace.joinpath(*parts[:depth])
        if any(os.path.lexists(folder / marker) for marker in _ENVIRONMENT_MARKERS):
            where = "/".join(parts[:depth])
            raise SandboxError(
                f"path {shown!r} is inside {where}/, the project's Python environment; "
                "it is read-only (change the project's files, not its installed packages)"
            )


def workspace_relative(workspace: Path, path: Path) -> str:
    """A resolved path as logs and snapshots name it: posix, relative to the workspace."""
    return path.relative_to(workspace.resolve()).as_posix() or "."
