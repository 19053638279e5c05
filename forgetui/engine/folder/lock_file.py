"""The lock file of a task folder, `<task>/lock`, as one descriptor of it sees it: what it says
(pid, host, command: who holds it) and the flock tests a reader and a taker make on it. The
kernel's flock, not the pid, says whether the holder lives: a pid can be reused by an unrelated
process, a flock dies with its holder (lock.py takes and keeps it)."""

from __future__ import annotations

import json
import os
import shlex
import socket
import stat
import sys
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

try:
    import fcntl
except ImportError:  # no flock on this platform: the lock's pid is all there is to go on
    fcntl = None  # type: ignore[assignment]
HAS_FLOCK = fcntl is not None

_READERS_WAITED_S = 2.0  # a reader's test holds its shared flock for microseconds, unless
# its process is descheduled in between: a loaded machine must not make a writer give up


class LockInfo(BaseModel):
    """What the lock file says: who writes the task, since when, running what."""

    model_config = ConfigDict(extra="allow", frozen=True)

    pid: int
    host: str
    started_at: str
    command: str = ""

    def who(self) -> dict[str, Any]:
        """The holder as every `in_use_by` in the JSON output says it."""
        return {"pid": self.pid, "host": self.host, "command": self.command}

    @property
    def is_local(self) -> bool:
        return self.host == socket.gethostname()

    @property
    def is_mine(self) -> bool:
        return self.is_local and self.pid == os.getpid()

    def is_alive(self) -> bool:
        """True unless the holder is on this host and its process is gone (another host's
        process cannot be checked, so it counts as alive). A reused pid reads as alive: the
        task lock asks its flock instead."""
        return not self.is_local or pid_alive(self.pid)


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


def flock_fresh(fd: int) -> None:
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


def wait_flock(fd: int) -> None:
    """Wait for the exclusive flock of `fd` and keep it until `fd` closes (HAS_FLOCK only)."""
    fcntl.flock(fd, fcntl.LOCK_EX)


def writer_holds(fd: int, info: LockInfo | None) -> bool:
    """A reader's test: whether a writer holds the lock file open as `fd`. A shared flock,
    let go at once, so it never stands in a writer's way for long. Without flock: whether
    the pid lives."""
    if fcntl is None:
        return _pid_holds(info)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    fcntl.flock(fd, fcntl.LOCK_UN)
    return False


def take_flock(fd: int, info: LockInfo | None) -> bool:
    """A writer's: take the exclusive flock on the lock file open as `fd` and keep it (True),
    or False while another writer holds it. A reader's shared flock is waited out, not taken
    for a writer's. Without flock: True unless the pid lives."""
    if fcntl is None:
        return not _pid_holds(info)
    deadline = time.monotonic() + _READERS_WAITED_S
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            pass
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return False  # an exclusive flock: a writer's
        fcntl.flock(fd, fcntl.LOCK_UN)  # only readers' shared flocks
        if time.monotonic() > deadline:
            return False
        time.sleep(0.001)


def _pid_holds(info: LockInfo | None) -> bool:
    return info is not None and info.is_local and not info.is_mine and pid_alive(info.pid)


def is_at(fd: int, path: Path) -> bool:
    """Whether `fd`'s file is still the one under `path` (a released or replaced lock file is
    not)."""
    try:
        here = os.stat(path)
    except FileNotFoundError:
        return False
    mine = os.fstat(fd)
    return (here.st_dev, here.st_ino) == (mine.st_dev, mine.st_ino)


def lock_content(fd: int) -> LockInfo | None:
    """What the lock file open as `fd` says, None if it does not read as a lock."""
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        return None
    try:
        return LockInfo.model_validate(json.loads(os.pread(fd, 4096, 0)))
    except (ValueError, ValidationError):
        return None


def unnamed_holder(path: Path) -> LockInfo:
    """A live holder whose lock file does not say who it is (written by hand meanwhile)."""
    return LockInfo(pid=0, host=socket.gethostname(), started_at="", command=f"unknown, {path}")
