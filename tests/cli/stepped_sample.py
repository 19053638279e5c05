"""hello_world after two of its five steps, made once per module by the real CLI and copied for
each test: damaging a task that has a history is what the hostile-file tests need."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

TASK = Path(".agentforge/tasks/hello_world")


def stepped_hello(base: Path, steps: int = 2) -> Path:
    """A workspace holding hello_world run `steps` steps; returns the workspace."""
    env = {
        **os.environ,
        "FORGETUI_HOME": str(base / "home"),
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
    }
    workspace = base / "ws"
    for args in (
        ["init", "hello_world", "--into", str(workspace)],
        ["run", str(workspace / TASK), "--max-steps", str(steps)],
    ):
        proc = subprocess.run(
            [sys.executable, "-m", "forgetui", *args],
            capture_output=True, text=True, env=env, timeout=120,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
    return workspace


def copy_task(workspace: Path, dest: Path) -> Path:
    """A copy of the workspace at `dest`; returns its task folder."""
    shutil.copytree(workspace, dest, symlinks=True)
    return dest / TASK


def files_of(path: Path) -> dict[str, bytes]:
    """Every regular file under `path`, by relative path: compared before and after a command."""
    return {p.relative_to(path).as_posix(): p.read_bytes() for p in path.rglob("*") if p.is_file()}


def lock_debris(task: Path) -> list[str]:
    """What a writer that let go properly leaves: nothing."""
    return sorted(p.name for p in task.iterdir() if p.name == "lock" or p.name.startswith(".lock."))


def billion_laughs(key: str = "lol", levels: int = 9) -> str:
    """The classic alias bomb: ~0.6 KB, 9**9 strings once expanded."""
    lines = [f'{key}0: &{key}0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for n in range(1, levels):
        prev = f"*{key}{n - 1}"
        lines.append(f"{key}{n}: &{key}{n} [{', '.join([prev] * 9)}]")
    return "\n".join(lines) + "\n"
