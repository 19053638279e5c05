"""The workbench's first complete view, counted in a child process while this one starts.

Counting the next context needs the compiler and tiktoken's tables, which take longer to load
than Textual; the launcher starts this child before importing Textual, so the two load side by
side on two cores and the meters show when the app is up. The child builds the snapshot the
way `TaskReader.snapshot` does in this process (the same reader, the same arguments) and sends
it back pickled, with the task files it stood on (`task_files`: what the workbench watches, and
task.yaml). The snapshot is used only if those files are unchanged when it arrives: after that
the workbench's watcher reports any change. Anything else (the child failed, a file changed)
and the reader counts here, as it would without a child."""

from __future__ import annotations

import contextlib
import json
import os
import pickle
import select
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from forgetui.tui.task_views import TaskSnapshot

# the files a snapshot is read from that the workbench watches for other programs' edits
TASK_FILES = ("task.yaml", "state.yaml", "working_memory.yaml", "actions.yaml", "lock")

FileStamp = tuple[str, int, int, int] | tuple[str]  # name, inode, size, mtime_ns; or absent


def task_files(task: Path) -> tuple[FileStamp, ...]:
    """What a change to the task's files would change: each file's inode (an atomic write
    replaces it), size and modification time."""
    stamps: list[FileStamp] = []
    for name in TASK_FILES:
        try:
            stat = (task / name).stat()
        except OSError:
            stamps.append((name,))
            continue
        stamps.append((name, stat.st_ino, stat.st_size, stat.st_mtime_ns))
    return tuple(stamps)


class FirstView:
    """The child counting one task's first snapshot; `take` is its answer, once."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self._proc = proc
        self._taken = False  # a caller is reading (or has read) the answer
        self._answered = False  # the answer was read whole: the child only ends now

    @classmethod
    def start(
        cls, task: Path, model: str | None, api_base: str | None,
        model_overrides: Mapping[str, Any],
    ) -> FirstView:  # fmt: skip
        # -P, as the engine child: the current directory (a workspace) is not on the path
        proc = subprocess.Popen(
            [sys.executable, "-P", "-m", "forgetui.tui.first_view", str(task), model or "",
             api_base or "", json.dumps(dict(model_overrides))],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            start_new_session=True,  # the terminal's signals are the workbench's
        )  # fmt: skip
        return cls(proc)

    def ready(self, wait: float = 0.0) -> bool:
        """The answer (or the child's end) is there to read, within `wait` seconds."""
        if self._taken or self._proc.stdout is None:
            return True
        readable, _, _ = select.select([self._proc.stdout], [], [], wait)
        return bool(readable)

    def take(self, task: Path) -> TaskSnapshot | None:
        """The child's snapshot, waiting for it; None if it failed, was taken already, or the
        task's files changed since it read them (then the caller counts itself)."""
        if self._taken or self._proc.stdout is None:
            return None
        self._taken = True
        with self._proc.stdout as answer:  # the child closes it once written: no exit to wait
            data = answer.read()
        self._answered = True
        try:
            stamps, snapshot = pickle.loads(data)
        except Exception:  # nothing written (it failed) or cut short: count here
            return None
        if not isinstance(snapshot, TaskSnapshot) or stamps != task_files(task):
            return None
        return snapshot

    def close(self) -> None:
        """Stop the child if it has not answered (the app quit first), and reap it; one that
        answered is left to keep what it counted (token_store.py) and end."""
        with contextlib.suppress(ProcessLookupError):
            if self._proc.poll() is None and not self._answered:
                self._proc.kill()
        try:
            self._proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        if not self._taken and self._proc.stdout is not None:
            self._proc.stdout.close()


def _count(task: str, model: str, api_base: str, overrides: str, out: IO[bytes]) -> int:
    """The child: the task's files as they stand, then the snapshot read from them."""
    from forgetui.engine.api import ForgeError
    from forgetui.tui.snapshot import TaskReader

    path = Path(task)
    stamps = task_files(path)
    try:
        reader = TaskReader(
            path, model or None, api_base=api_base or None, model_overrides=json.loads(overrides)
        )
        snapshot = reader.snapshot()
    except ForgeError:
        return 1  # the workbench's own read reports it
    out.write(pickle.dumps((stamps, snapshot), protocol=pickle.HIGHEST_PROTOCOL))
    out.close()  # the answer is complete: the workbench reads it while this process ends
    return 0


if __name__ == "__main__":
    # the answer has the pipe to itself: whatever else writes to stdout goes nowhere
    answer = os.fdopen(os.dup(1), "wb")
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    task, model, api_base, overrides = sys.argv[1:5]
    sys.exit(_count(task, model, api_base, overrides, answer))
