"""The run copies of samples (`runs/` in the user data directory): every `forgetui init` without
`--into` and every sample the workbench opens leaves one, so users need to find them again and
to reclaim the disk. Pruning removes whole run directories directly inside `runs/`, never
anything else, and never a copy in use: its task locked by a live process, or shown by a live
workbench (which holds the lock only while it steps, so it leaves a mark in `runs/.open/`)."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import stat
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from forgetui.engine.base.clock import now_iso
from forgetui.engine.base.errors import ForgeError, LockHeldError
from forgetui.engine.base.yamlio import load_model
from forgetui.engine.folder.lock import LockInfo, TaskLock, default_command
from forgetui.engine.folder.task_folder import STATE_FILE, TASK_FILE, find_tasks
from forgetui.engine.folder.task_state import TaskState
from forgetui.engine.start.samples import RUN_STAMP_FORMAT
from forgetui.paths import runs_dir

# What `forgetui runs --prune` keeps when not told otherwise: enough to go back to this week's
# runs, few enough that the copies (a workspace each, plus its contexts) stay small.
DEFAULT_KEEP = 10

# `runs/.open/<run dir>@<host>-<pid>.json`: a workbench showing that copy (hidden, so not a copy).
OPEN_DIR = ".open"

# `<sample id>-<YYYYmmdd-HHMMSS>[-N]`, as samples.init_sample names a run directory.
_NAME = re.compile(r"^(?P<sample>.+)-(?P<stamp>\d{8}-\d{6})(?:-(?P<n>\d+))?$")


@dataclass(frozen=True)
class RunCopy:
    """One run directory: the sample's workspace copy and the task folder inside it."""

    path: Path
    sample: str
    created: float  # seconds since the epoch
    # Copies made in the same second: the -N suffix, then when task.yaml was written.
    order: tuple[int, int]
    tasks: tuple[Path, ...]
    status: str  # the task's status; "no task" or "unreadable" when there is none to read
    step: int | None
    size: int  # bytes on disk
    holder: LockInfo | None  # a live process writing one of its tasks, or showing it

    @property
    def task(self) -> Path | None:
        return self.tasks[0] if len(self.tasks) == 1 else None

    def created_iso(self) -> str:
        return datetime.fromtimestamp(self.created).astimezone().isoformat(timespec="seconds")

    def to_json(self) -> dict[str, Any]:
        """One `runs --json` line."""
        holder = self.holder
        return {
            "path": str(self.path),
            "sample": self.sample,
            "task": str(self.task) if self.task is not None else None,
            "created": self.created_iso(),
            "status": self.status,
            "step": self.step,
            "size_bytes": self.size,
            "in_use_by": None if holder is None else holder.who(),
        }


@dataclass(frozen=True)
class Pruned:
    """What pruning did with one copy: removed (`freed` bytes) or kept, and why."""

    copy: RunCopy
    removed: bool
    reason: str = ""

    @property
    def freed(self) -> int:
        return self.copy.size if self.removed else 0

    def to_json(self) -> dict[str, Any]:
        return {
            "path": str(self.copy.path),
            "removed": self.removed,
            "reason": self.reason or None,
            "freed_bytes": self.freed,
        }


def runs_root() -> Path:
    return runs_dir()


def run_copies(root: Path | None = None) -> list[RunCopy]:
    """Every run directory directly inside `root` (default: runs/), newest first. Hidden names,
    files and symbolic links are not run copies and are left out."""
    root = runs_root() if root is None else root
    if not root.is_dir():
        return []
    real_root = root.resolve()
    copies = []
    for entry in root.iterdir():
        if entry.name.startswith(".") or not _is_own_dir(real_root, entry):
            continue
        with contextlib.suppress(OSError):  # removed meanwhile (another prune): not listed
            copies.append(_read_copy(entry.absolute()))
    return sorted(copies, key=lambda c: (c.created, c.order), reverse=True)


def to_prune(
    copies: list[RunCopy], keep: int, older_than_days: float | None, now: float | None = None
) -> list[RunCopy]:
    """The copies past the newest `keep` and, if given, created more than that many days ago."""
    if keep < 0:
        raise ForgeError(f"runs --keep {keep}: must be 0 or more")
    if older_than_days is not None and not 0 <= older_than_days < float("inf"):
        raise ForgeError(f"runs --older-than {older_than_days}: must be 0 or more days")
    now = time.time() if now is None else now
    cutoff = None if older_than_days is None else now - older_than_days * 86400
    return [c for c in copies[keep:] if cutoff is None or c.created < cutoff]


def remove_run(copy: RunCopy, root: Path | None = None) -> Pruned:
    """Remove one run copy, only while this process holds every task lock inside it, so a live
    run is never pulled from under its writer. A path that is not a real directory directly in
    the runs directory (a link, something moved) is refused."""
    root = runs_root() if root is None else root
    if not root.is_dir() or not _is_own_dir(root.resolve(), copy.path):
        return Pruned(copy, False, "not a directory inside the runs directory; left alone")
    with contextlib.ExitStack() as held:
        for task in copy.tasks:
            lock = TaskLock(task)
            try:
                lock.acquire("forgetui runs --prune")
            except LockHeldError:
                info = lock.holder()
                who = f"pid {info.pid} ({info.command})" if info is not None else "another process"
                return Pruned(copy, False, f"in use, locked by {who}")
            held.callback(lock.release)
        viewer = _viewer(root, copy.path.name, tidy=True)
        if viewer is not None:
            return Pruned(copy, False, f"in use, open in a workbench (pid {viewer.pid})")
        try:
            shutil.rmtree(copy.path)
        except OSError as exc:
            return Pruned(copy, False, f"could not remove it: {exc.strerror or exc}")
    return Pruned(copy, True)


@contextlib.contextmanager
def shown_in_workbench(task: Path) -> Iterator[None]:
    """Mark a run copy as shown by this process while the block runs, so pruning leaves it
    alone although an idle workbench holds no lock. A task outside runs/ is not marked; a mark
    that cannot be written costs only that protection."""
    root = runs_root()
    run_dir = run_dir_of(task)
    marker: Path | None = None
    if run_dir is not None:
        info = LockInfo(
            pid=os.getpid(), host=socket.gethostname(), started_at=now_iso(),
            command=default_command(),
        )  # fmt: skip
        marker = root / OPEN_DIR / f"{run_dir.name}@{info.host}-{info.pid}.json"
        try:
            marker.parent.mkdir(exist_ok=True)
            marker.write_text(info.model_dump_json() + "\n", encoding="utf-8")
        except OSError:
            marker = None
    try:
        yield
    finally:
        if marker is not None:
            marker.unlink(missing_ok=True)


def run_dir_of(task: Path) -> Path | None:
    """The run copy (a directory of runs/) `task` is in; None for a task anywhere else."""
    root = runs_root()
    return _run_dir_of(task.resolve(), root.resolve()) if root.is_dir() else None


def _run_dir_of(task: Path, real_root: Path) -> Path | None:
    return next((p for p in task.parents if p.parent == real_root), None)


def _viewer(root: Path, name: str, tidy: bool = False) -> LockInfo | None:
    """A live workbench showing run copy `name`; with `tidy`, marks of processes gone go."""
    marks = root / OPEN_DIR
    try:
        entries = [m for m in marks.iterdir() if m.name.startswith(f"{name}@")]
    except OSError:
        return None
    for mark in entries:
        try:
            info = LockInfo.model_validate_json(mark.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if info.is_alive():
            return info
        if tidy:
            mark.unlink(missing_ok=True)
    return None


def _is_own_dir(real_root: Path, entry: Path) -> bool:
    """A real directory (not a link) whose resolved path sits directly in the runs directory."""
    try:
        mode = entry.lstat().st_mode
    except OSError:
        return False
    return stat.S_ISDIR(mode) and entry.resolve().parent == real_root


def _read_copy(path: Path) -> RunCopy:
    match = _NAME.match(path.name)
    sample, created, suffix = path.name, None, 0
    if match is not None:
        sample = match["sample"]
        with contextlib.suppress(ValueError, OverflowError):
            created = time.mktime(time.strptime(match["stamp"], RUN_STAMP_FORMAT))
        suffix = int(match["n"] or 1)
    if created is None:
        created = path.stat().st_mtime
    tasks = tuple(find_tasks(path))
    status, step = "no task", None
    if tasks:
        try:
            state = load_model(tasks[0] / STATE_FILE, TaskState)
            status, step = state.status, state.step
            sample = sample if match is not None else state.task_id
        except ForgeError:
            status = "unreadable"
    holders = (TaskLock(task).holder() for task in tasks)
    holder = next((info for info in holders if info is not None), None)
    holder = holder or _viewer(path.parent, path.name)
    written = (tasks[0] / TASK_FILE if tasks else path).stat().st_mtime_ns
    return RunCopy(
        path, sample, created, (suffix, written), tasks, status, step, _disk_usage(path), holder
    )


def _disk_usage(path: Path) -> int:
    """Bytes the tree takes on disk (as `du` counts them), links not followed, hard links once."""
    seen: set[tuple[int, int]] = set()
    total = 0
    stack = [path]
    while stack:
        current = stack.pop()
        try:
            entries = list(os.scandir(current))
        except OSError:
            continue
        for entry in entries:
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if (info.st_dev, info.st_ino) in seen:
                continue
            seen.add((info.st_dev, info.st_ino))
            blocks = getattr(info, "st_blocks", None)
            total += blocks * 512 if blocks is not None else info.st_size
            if stat.S_ISDIR(info.st_mode):
                stack.append(Path(entry.path))
    return total
