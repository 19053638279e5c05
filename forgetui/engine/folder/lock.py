"""The single-writer lock of a task folder, `<task>/lock`. The writer holds an exclusive flock
on the file for its whole life, so the kernel, not a pid, says whether the holder lives: a pid
can be reused by an unrelated process (a restarted container starts its pids afresh), a flock
dies with its holder, even one killed with SIGKILL. The file's content (pid, host, command)
only says who holds it (what it says, and the flock tests on it: lock_file.py). A second writer
is refused with the holder's name; a lock file that nobody holds is taken over. Readers never
lock: `holder()` tests the flock on a descriptor of its own and lets go at once.

A lock file naming another host whose flock is free may be on a shared file system that does
not carry flocks between hosts, so it counts as live until the operator, who can check, removes
it with `forgetui unlock` (`TaskLock.unlock`)."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shlex
import socket
import stat
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from forgetui.engine.base.clock import now_iso
from forgetui.engine.base.errors import ForgeError, LockHeldError
from forgetui.engine.folder.lock_file import (
    HAS_FLOCK,
    LockInfo,
    default_command,
    flock_fresh,
    is_at,
    lock_content,
    pid_alive,
    take_flock,
    unnamed_holder,
    wait_flock,
    writer_holds,
)

_ATTEMPTS = 20
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)  # a command the writer starts must not keep its lock
_HELD_GUARD = threading.Lock()


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
    fd: int  # open on the lock file, carrying the flock until it is closed


# Locks this process holds, by path: two TaskLock objects on the same folder in one process
# share one lock file.
_HELD: dict[Path, _Held] = {}


def _forget_in_forked_child() -> None:
    """A forked child shares its parent's open lock files, not the locks: it closes its copies
    (the parent's keep the flocks), so the lock still goes when the parent dies."""
    global _HELD_GUARD
    _HELD_GUARD = threading.Lock()  # another thread may have held it at the fork
    for held in _HELD.values():
        with contextlib.suppress(OSError):
            os.close(held.fd)
    _HELD.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_forked_child)


class TaskLock:
    """`<task>/lock`, created complete and flocked before it takes the lock's name, so nobody
    ever finds a half-written or unheld lock of a live writer. Re-entrant within one process.

    `on_take` runs when this process newly takes the lock (not on a re-entrant acquire); if it
    raises, the lock is let go and the error goes to the caller."""

    def __init__(self, folder: Path, on_take: Callable[[], object] | None = None) -> None:
        self.folder = folder
        self.path = folder / "lock"
        self.on_take = on_take
        self.taken_over: LockInfo | None = None  # the unheld lock the last acquire replaced
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
        with _HELD_GUARD:
            held = _HELD.get(self._key)
            if held is not None and held.info.pid == os.getpid():  # never open it: see _open
                return held.info
        fd = self._open()
        if fd is None:
            return None
        try:
            info = lock_content(fd)
            if writer_holds(fd, info):
                return info if info is not None else unnamed_holder(self.path)
            return info if info is not None and not info.is_local else None
        finally:
            os.close(fd)

    def acquire(self, command: str | None = None, *, on_take: bool = True) -> LockInfo:
        """Take the lock, or raise LockHeldError naming the live holder. A lock file nobody
        holds (its process is gone, or its pid now names another program) is taken over;
        `taken_over` then says whose it was. `on_take` False skips the hook."""
        with _HELD_GUARD:
            held = _HELD.get(self._key)
            if held is not None and held.info.pid == os.getpid():  # not a forked child's copy
                held.count += 1
                self._count += 1
                self._pid = os.getpid()
                return held.info
            mine = LockInfo(
                pid=os.getpid(),
                host=socket.gethostname(),
                started_at=now_iso(),
                command=command or default_command(),
            )
            fd, self.taken_over = self._take(mine)
            _HELD[self._key] = _Held(mine, 1, fd)
            self._count = 1
            self._pid = os.getpid()
        if on_take and self.on_take is not None:
            try:
                self.on_take()
            except BaseException:
                self.release()
                raise
        return mine

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
            try:  # removed while still flocked: a waiter then finds its file gone and retries
                current = lock_content(held.fd)
                if is_at(held.fd, self.path) and current is not None and current.is_mine:
                    self.path.unlink(missing_ok=True)
            finally:
                os.close(held.fd)

    def unlock(self) -> Unlocked:
        """Remove a lock file nobody holds (`forgetui unlock`), or another host's, which
        cannot be checked from here. A held one is refused: stopping its holder frees it."""
        with _HELD_GUARD:
            held = _HELD.get(self._key)
        if held is not None and held.info.pid == os.getpid():
            raise LockHeldError(self._live_message(held.info))
        if self._drop_link():
            return Unlocked(True)
        for _ in range(_ATTEMPTS):
            fd = self._open()
            if fd is None:
                return Unlocked(False)
            try:
                info = lock_content(fd)
                if not take_flock(fd, info):
                    raise LockHeldError(self._live_message(info))
                if not is_at(fd, self.path):
                    continue  # replaced meanwhile: judge the new one
                self.path.unlink(missing_ok=True)
                return Unlocked(True, info)
            finally:
                os.close(fd)
        raise LockHeldError(
            f"task {self.folder.name}: other processes keep taking {self.path}; nothing removed"
        )

    def _take(self, mine: LockInfo) -> tuple[int, LockInfo | None]:
        """Our lock file, flocked, under the lock's name: linked there when there is none,
        renamed over one nobody holds. Returns its descriptor and whose unheld lock it
        replaced."""
        data = json.dumps(mine.model_dump()).encode("utf-8") + b"\n"
        for _ in range(_ATTEMPTS):
            tmp = self.folder / f".lock.{os.getpid()}.{os.urandom(4).hex()}.tmp"
            fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_EXCL | _CLOEXEC, 0o644)
            keep = False
            try:
                flock_fresh(fd)  # a fresh file: nobody else has it
                os.write(fd, data)
                os.fsync(fd)
                try:
                    os.link(tmp, self.path)
                    keep = True
                    return fd, None
                except FileExistsError:
                    if self._drop_link():
                        continue
                except OSError:  # no hard links on this file system
                    os.close(fd)
                    fd = -1
                    taken = self._create_exclusive(data)
                    if taken is not None:
                        keep = True
                        return taken, None
                stale = self._open()
                if stale is None:
                    continue  # released between our attempts
                try:
                    info = lock_content(stale)
                    if not take_flock(stale, info):
                        raise LockHeldError(self._held_message(info))
                    if not is_at(stale, self.path):
                        continue  # replaced meanwhile: judge the new one
                    if info is not None and not info.is_local:
                        raise LockHeldError(self._held_message(info))
                    if fd == -1:  # no hard links: the stale file goes, the next turn creates
                        self.path.unlink(missing_ok=True)
                        continue
                    os.replace(tmp, self.path)  # under the stale file's flock: nobody races
                    keep = True
                    return fd, info
                finally:
                    os.close(stale)
            finally:
                if not keep and fd != -1:
                    os.close(fd)
                tmp.unlink(missing_ok=True)
        raise LockHeldError(
            f"task {self.folder.name}: could not take {self.path} after {_ATTEMPTS} attempts "
            "(other processes keep taking it); try again"
        )

    def _drop_link(self) -> bool:
        """Remove a symlink where the lock file goes (True), dangling or not: a writer's lock
        is never one, and followed it would trap every writer or lock someone else's file.
        Under an flock of the task folder, so two takers cannot both judge it and one remove
        the other's fresh lock."""
        if not self.path.is_symlink():
            return False
        if not HAS_FLOCK:
            self.path.unlink(missing_ok=True)
            return True
        fd = os.open(self.folder, os.O_RDONLY | _CLOEXEC)
        try:
            wait_flock(fd)
            if self.path.is_symlink():
                self.path.unlink(missing_ok=True)
            return True
        finally:
            os.close(fd)  # releases the folder's flock

    def _create_exclusive(self, data: bytes) -> int | None:
        """Where links are refused: create the lock file in place, flock it, check it is still
        the one under the name (a taker may have judged it, empty, unheld), then fill it."""
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL | _CLOEXEC, 0o644)
        except FileExistsError:
            return None
        try:
            if not take_flock(fd, None) or not is_at(fd, self.path):
                os.close(fd)  # judged unheld and replaced by a taker before we flocked it
                return None
            os.write(fd, data)
            os.fsync(fd)
        except BaseException:
            os.close(fd)
            raise
        return fd

    def _open(self) -> int | None:
        """A descriptor of its own on the lock file, None if there is none. Never used on a
        lock this process holds: where flock is emulated with POSIX locks (NFS), closing any
        descriptor of the file would let go of the process's lock."""
        try:  # non-blocking: a FIFO in its place reads as empty, an unreadable lock
            fd = os.open(self.path, os.O_RDONLY | _NONBLOCK | _NOFOLLOW | _CLOEXEC)
        except FileNotFoundError:
            return None
        except OSError as exc:
            if exc.errno == errno.ELOOP:  # a symlink: no writer's (see _drop_link)
                return None
            raise
        except IsADirectoryError:
            raise ForgeError(f"{self.path}: a directory where the lock file should be") from None
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            os.close(fd)
            raise ForgeError(f"{self.path}: a directory where the lock file should be")
        return fd

    def _held_message(self, info: LockInfo | None) -> str:
        if info is None:
            return (
                f"task {self.folder.name} is locked by another process (its lock file does not "
                "say which); wait for it to finish or open the task read-only"
            )
        if info.is_local:
            return (
                f"task {self.folder.name} is locked by pid {info.pid} ({info.command}, since "
                f"{info.started_at}); wait for it to finish or open the task read-only"
            )
        return (
            f"task {self.folder.name} is locked by pid {info.pid} on {info.host} ({info.command}, "
            f"since {info.started_at}); wait for it to finish or open the task read-only. If that "
            f"process is gone, run `forgetui unlock {shlex.quote(str(self.folder))}`"
        )

    def _live_message(self, info: LockInfo | None) -> str:
        if info is None:
            who = "another process (its lock file does not say which) holds the lock"
        else:
            where = "this host" if info.is_local else info.host
            who = f"pid {info.pid} ({info.command or 'forgetui'}) holds the lock on {where}"
        return f"task {self.folder.name}: {who}; stop it first"


__all__ = ["LockInfo", "TaskLock", "Unlocked", "default_command", "pid_alive"]
