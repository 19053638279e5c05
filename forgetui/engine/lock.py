"""The single-writer lock of a task folder: `<task>/lock` holds the
executor's pid. A second executor is refused with the holder's name; a lock whose process is
gone is taken over. Readers never lock: they ask `holder()` to know whether a run is live.

Another host's process cannot be checked, so its lock counts as live until the operator, who
can check, removes it with `forgetui unlock` (`TaskLock.unlock`)."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import socket
import stat
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from forgetui.engine.clock import now_iso
from forgetui.engine.errors import ForgeError, LockHeldError

_ATTEMPTS = 20
_HELD_GUARD = threading.Lock()


@contextlib.contextmanager
def _removers_take_turns(folder: Path) -> Iterator[None]:
    """An exclusive flock on the folder's own descriptor, where the platform has flock."""
    try:
        import fcntl
    except ImportError:  # no flock: the identity check alone
        yield
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the flock


class LockInfo(BaseModel):
    """What the lock file says: who writes the task, since when, running what."""

    model_config = ConfigDict(extra="allow", frozen=True)

    pid: int
    host: str
    started_at: str
    command: str = ""

    @property
    def is_local(self) -> bool:
        return self.host == socket.gethostname()

    @property
    def is_mine(self) -> bool:
        return self.is_local and self.pid == os.getpid()

    def is_alive(self) -> bool:
        """True unless the holder is on this host and its process is gone (another host's
        process cannot be checked, so it counts as alive)."""
        return not self.is_local or pid_alive(self.pid)


@dataclass(frozen=True)
class Unlocked:
    """What `TaskLock.unlock` removed: nothing (`removed` False, no lock), a holder's lock, or
    a lock file that did not read (`info` None)."""

    removed: bool
    info: LockInfo | None = None


@dataclass
class _Held:
    info: LockInfo
    count: int  # acquire() calls outstanding, over every TaskLock object on this path


# Locks this process holds, by path: two TaskLock objects on the same folder in one process
# share one lock file.
_HELD: dict[Path, _Held] = {}


def pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    if os.name == "nt":  # os.kill(pid, 0) would send CTRL_C_EVENT there; cannot tell
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's live process
    try:  # a zombie (killed, not yet reaped) is gone for our purposes
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def default_command() -> str:
    argv = [Path(sys.argv[0]).name, *sys.argv[1:]] if sys.argv and sys.argv[0] else ["python"]
    command = shlex.join(argv)
    return command if len(command) <= 200 else command[:197] + "..."


class TaskLock:
    """`<task>/lock`, created atomically (a complete file linked into place, so nobody ever
    reads a half-written lock). Re-entrant within one process."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.path = folder / "lock"
        self._key = self.path.absolute()
        self._count = 0  # acquire() calls on this object not yet released
        self._pid = os.getpid()  # a forked child inherits this object, not the lock

    def __enter__(self) -> TaskLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def held_by_me(self) -> bool:
        return self._count > 0 and _HELD.get(self._key) is not None and self._pid == os.getpid()

    def holder(self) -> LockInfo | None:
        """The live holder (any process, this one included), or None if nobody writes."""
        info, _ = self._read()
        return info if info is not None and info.is_alive() else None

    def acquire(self, command: str | None = None) -> LockInfo:
        """Take the lock, or raise LockHeldError naming the live holder. A stale lock (dead pid
        on this host, or an unreadable file) is taken over."""
        with _HELD_GUARD:
            held = _HELD.get(self._key)
            if held is not None and held.info.pid == os.getpid():  # not a forked child's copy
                held.count += 1
                self._count += 1
                self._pid = held.info.pid
                return held.info
            mine = LockInfo(
                pid=os.getpid(),
                host=socket.gethostname(),
                started_at=now_iso(),
                command=command or default_command(),
            )
            for _ in range(_ATTEMPTS):
                if self._create(mine):
                    return self._register(mine)
                current, identity = self._read()
                if identity is None:
                    continue  # released between our attempts
                if current is not None and current.is_mine:
                    return self._register(current)  # left by this pid; ours to reuse
                if current is not None and current.is_alive():
                    raise LockHeldError(self._held_message(current))
                self._remove_stale(identity)
            raise LockHeldError(
                f"task {self.folder.name}: could not take {self.path} after {_ATTEMPTS} attempts "
                "(other processes keep taking it); try again"
            )

    def release(self) -> None:
        """Give up one acquire(); the file goes when the last one in this process is released,
        and only if it is still ours."""
        with _HELD_GUARD:
            if not self.held_by_me():
                return
            self._count -= 1
            held = _HELD[self._key]
            held.count -= 1
            if held.count > 0:
                return
            del _HELD[self._key]
            current, _ = self._read()
            if current is not None and current.is_mine:
                self.path.unlink(missing_ok=True)

    def unlock(self) -> Unlocked:
        """Remove the lock whoever holds it (`forgetui unlock`), except a live process on this
        host, which is refused: stopping it is the way to free its task."""
        current, identity = self._read()
        if identity is None:
            return Unlocked(False)
        if current is not None and current.is_local and pid_alive(current.pid):
            raise LockHeldError(
                f"task {self.folder.name}: pid {current.pid} ({current.command or 'forgetui'}) "
                "is alive on this host; stop it first"
            )
        self._remove_stale(identity)
        taker, still = self._read()
        if still is not None:  # someone took the lock between our read and the removal
            who = f"pid {taker.pid}" if taker is not None else "another process"
            raise LockHeldError(
                f"task {self.folder.name}: {who} took the lock meanwhile; nothing removed"
            )
        return Unlocked(True, current)

    def _register(self, info: LockInfo) -> LockInfo:
        _HELD[self._key] = _Held(info, 1)
        self._count = 1
        self._pid = os.getpid()
        return info

    def _held_message(self, info: LockInfo) -> str:
        where = "" if info.is_local else f" on {info.host}"
        return (
            f"task {self.folder.name} is locked by pid {info.pid}{where} ({info.command}, since "
            f"{info.started_at}); wait for it to finish or open the task read-only. If that "
            f"process is gone, run `forgetui unlock {shlex.quote(str(self.folder))}`"
        )

    def _create(self, info: LockInfo) -> bool:
        """Link a complete temporary file to the lock's name; False if the lock exists."""
        data = json.dumps(info.model_dump()).encode("utf-8") + b"\n"
        tmp = self.folder / f".lock.{os.getpid()}.{os.urandom(4).hex()}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            os.write(fd, data)
            os.fsync(fd)
            os.close(fd)
            fd = -1
            try:
                os.link(tmp, self.path)
                return True
            except FileExistsError:
                return False
            except OSError:  # no hard links on this file system: exclusive create instead
                return self._create_exclusive(data)
        finally:
            if fd != -1:
                os.close(fd)
            tmp.unlink(missing_ok=True)

    def _create_exclusive(self, data: bytes) -> bool:
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            return False
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        return True

    def _read(self) -> tuple[LockInfo | None, tuple[int, int] | None]:
        """The lock's content (None if unreadable) and file identity (None if there is none)."""
        try:  # non-blocking: a FIFO in its place reads as empty, an unreadable lock
            fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        except FileNotFoundError:
            return None, None
        except IsADirectoryError:
            raise ForgeError(f"{self.path}: a directory where the lock file should be") from None
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            os.close(fd)
            raise ForgeError(f"{self.path}: a directory where the lock file should be")
        with os.fdopen(fd, "rb") as handle:
            raw = handle.read(4096) if stat.S_ISREG(info.st_mode) else b""
        identity = (info.st_dev, info.st_ino)
        try:
            return LockInfo.model_validate(json.loads(raw)), identity
        except (ValueError, ValidationError):
            return None, identity

    def _remove_stale(self, identity: tuple[int, int]) -> None:
        """Remove the stale lock we read, and nothing else. Removers take turns (an flock on
        the task folder itself, so no file is left behind): without it, one remover could
        move aside a lock another remover had just taken, and a third could then take it too,
        leaving two writers. Under the turn, the lock still being the file we judged stale is
        enough: lock files are never rewritten in place, and a dead holder releases nothing."""
        with _removers_take_turns(self.folder):
            try:
                info = os.stat(self.path)
            except FileNotFoundError:
                return
            if (info.st_dev, info.st_ino) == identity:
                self.path.unlink(missing_ok=True)
