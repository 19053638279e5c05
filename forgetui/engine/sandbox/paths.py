"""Paths an action names resolve inside the workspace, and the task folder stays read-only."""

from __future__ import annotations

import os
from pathlib import Path

from forgetui.engine.sandbox.errors import SandboxError

TASK_DIR_NAME = ".agentforge"


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
