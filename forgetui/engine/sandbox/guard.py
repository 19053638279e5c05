"""What a command must not change under .agentforge/, kept in allow-list mode too.

Under bubblewrap the folder is a read-only mount. In allow-list mode a command runs as the
operator, so `python -c "open('.agentforge/memory/lessons.yaml', 'w')..."` would land, and
project memory is shown to every later task as the operator's own knowledge. So around each
command in that mode, the files later steps trust (the workspace's project memory, the running
task's own top-level files) are copied before it starts and compared once it has ended; what it
changed is put back and named, for the step's result and the operator.

The copy stays in this process, never on disk: in allow-list mode a command can write whatever
the operator can, a state directory in the home included. Only the stat of every file is
taken again after a command; the bytes are compared only where it changed. Names starting with
a dot are skipped: they are forgetui's locks and temporaries, which another forgetui process
may write at any moment. A file over MAX_COPY (a long task's log) is not copied: what a command
appended to it is cut off again (its old last TAIL bytes are compared, not the rest), and any
other change is named, not undone: the check every writer makes when it opens the task
(folder/consistency.py) and `forgetui repair` take it from there."""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path

MAX_COPY = 4 << 20  # bytes: memory files are at most 256 KiB; a log of ~1,500 steps
TAIL = 4096  # the end of a file too big to copy, to tell an append from a rewrite
# the task lock's file: put back under a new inode it would stop being the lock its holder
# took, and the lock itself tells a file swapped under it (folder/lock.py)
_NOT_GUARDED = frozenset(("lock",))
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC

Stamp = tuple[int, int, int, int, int]  # inode, size, mtime, ctime (a command cannot set it), mode


@dataclass(frozen=True)
class _Kept:
    stamp: Stamp
    data: bytes | None  # the whole file, when it is at most MAX_COPY
    tail: bytes = b""  # the last TAIL bytes of a bigger one


def _stamp(info: os.stat_result) -> Stamp:
    return (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_mode)


def _open_folder(root_fd: int, parts: tuple[str, ...], *, create: bool = False) -> int | None:
    """The folder `parts` under the workspace, entered without following a link; None if it
    is missing (or a link, or a file: nothing forgetui reads through)."""
    fd = os.dup(root_fd)
    for part in parts:
        try:
            try:
                child = os.open(part, _DIR, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                os.mkdir(part, 0o777, dir_fd=fd)
                child = os.open(part, _DIR, dir_fd=fd)
        except OSError:
            os.close(fd)
            return None
        os.close(fd)
        fd = child
    return fd


def _read(dir_fd: int, name: str, info: os.stat_result) -> _Kept:
    try:
        fd = os.open(name, _READ, dir_fd=dir_fd)
    except OSError:
        return _Kept(_stamp(info), None)
    with os.fdopen(fd, "rb") as file:
        if info.st_size <= MAX_COPY:
            return _Kept(_stamp(info), file.read(MAX_COPY + 1))
        file.seek(max(0, info.st_size - TAIL))
        return _Kept(_stamp(info), None, file.read(TAIL))


def _listing(dir_fd: int) -> dict[str, os.stat_result]:
    """The folder's files (regular or links; not subfolders), dot names and the lock left
    out."""
    found = {}
    for name in os.listdir(dir_fd):
        if name.startswith(".") or name in _NOT_GUARDED:
            continue
        with contextlib.suppress(OSError):
            info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            if not stat.S_ISDIR(info.st_mode):
                found[name] = info
    return found


class CommandGuard:
    """`before()` ahead of a command, `after()` once it has ended: the lines of what it had
    changed and what was done about it."""

    def __init__(self, workspace: Path, folders: tuple[str, ...]) -> None:
        self.root = workspace.resolve()
        self.folders = folders  # workspace-relative posix folders whose files are guarded
        self.kept: dict[str, dict[str, _Kept] | None] = {}

    def before(self) -> CommandGuard:
        root_fd = os.open(self.root, _DIR)
        try:
            for folder in self.folders:
                fd = _open_folder(root_fd, tuple(folder.split("/")))
                if fd is None:
                    self.kept[folder] = None
                    continue
                try:
                    self.kept[folder] = {
                        name: _read(fd, name, info) for name, info in _listing(fd).items()
                    }
                finally:
                    os.close(fd)
        finally:
            os.close(root_fd)
        return self

    def after(self) -> list[str]:
        lines: list[str] = []
        root_fd = os.open(self.root, _DIR)
        try:
            for folder, kept in self.kept.items():
                try:
                    lines += self._check(root_fd, folder, kept or {})
                except OSError as exc:  # the step goes on, and says what it could not do
                    lines.append(f"{folder}: could not be checked after the command ({exc})")
        finally:
            os.close(root_fd)
        return lines

    def _check(self, root_fd: int, folder: str, kept: dict[str, _Kept]) -> list[str]:
        parts = tuple(folder.split("/"))
        fd = _open_folder(root_fd, parts, create=bool(kept))
        if fd is None:
            if not kept or not os.path.lexists(self.root / folder):
                return []
            return [f"{folder}: replaced by something that is not a folder; not put back"]
        try:
            now = _listing(fd)
            lines = []
            for name in sorted({*kept, *now}):
                line = _settle(fd, name, kept.get(name), now.get(name))
                if line is not None:
                    lines.append(f"{folder}/{name}: {line}")
            return lines
        finally:
            os.close(fd)


def _settle(dir_fd: int, name: str, was: _Kept | None, now: os.stat_result | None) -> str | None:
    """Put one file back as it was, if the command changed it: what happened, or None."""
    if was is None:
        if now is None:
            return None
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name, dir_fd=dir_fd)
        return "made by the command, removed"
    if now is not None and _stamp(now) == was.stamp:
        return None
    if was.data is None:
        return _cut_append(dir_fd, name, was, now)
    if now is not None and stat.S_ISREG(now.st_mode) and _read(dir_fd, name, now).data == was.data:
        return None  # touched, not changed
    _put(dir_fd, name, was.data, stat.S_IMODE(was.stamp[4]))
    return "removed by the command, put back" if now is None else "changed by the command, put back"


def _put(dir_fd: int, name: str, data: bytes, mode: int) -> None:
    """`data` in place under `name`: a new file renamed over whatever the command left."""
    temp = f".forgetui-{secrets.token_hex(8)}.tmp"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode, dir_fd=dir_fd)
    try:
        try:
            os.fchmod(fd, mode)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.rename(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=dir_fd)
        raise


def _cut_append(dir_fd: int, name: str, was: _Kept, now: os.stat_result | None) -> str:
    """A file too big to copy: what the command appended is cut off again, when the file is
    the same one, grown, and still holds its old end; any other change is only named."""
    size = was.stamp[1]
    if now is None or now.st_ino != was.stamp[0] or now.st_size < size:
        return "changed by the command; too big to put back (check it)"
    try:
        fd = os.open(name, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
    except OSError:
        return "changed by the command; could not be opened to put it back (check it)"
    try:
        start = max(0, size - TAIL)
        if os.pread(fd, size - start, start) != was.tail:
            return "rewritten by the command; too big to put back (check it)"
        os.ftruncate(fd, size)
        os.fsync(fd)
    finally:
        os.close(fd)
    added = now.st_size - size
    if not added:
        return "changed by the command, at the same size; too big to compare (check it)"
    return f"{added} bytes appended by the command, cut off"
