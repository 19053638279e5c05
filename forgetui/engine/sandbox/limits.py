"""Resource limits on a confined command: address space, file size and process count, so a
runaway allocation, a file filling the disk or a fork bomb stops the command, not the machine.

The limits are set inside bubblewrap, after it made its user namespace: RLIMIT_NPROC counts
every process of the user, but counted in a namespace of its own it counts only the command's
(a limit set before bwrap would count the operator's whole session too). Root ignores
RLIMIT_NPROC altogether, so as root the process count is a pids cgroup where one can be made;
where none can, it is not enforced and `ProcessLimit.note` says so."""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import resource
import shutil
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path

MB = 1024 * 1024
DEFAULT_MEMORY_MB = 4096
DEFAULT_FILE_SIZE_MB = 1024
DEFAULT_PROCESSES = 1024
_CGROUP_ROOTS = (Path("/sys/fs/cgroup/pids"), Path("/sys/fs/cgroup"))
_CGROUP_PREFIX = "forgetui-"
_counter = itertools.count()
_REMOVE_TRIES, _REMOVE_PAUSE_S = 20, 0.02

# Python's own wording for the failures a limit causes; a C program says the OS's (strerror).
_NO_MEMORY = re.compile(r"\bMemoryError\b|Cannot allocate memory|std::bad_alloc|out of memory")
_TOO_LARGE = re.compile(r"File too large|File size limit exceeded")
_NO_FORK = re.compile(
    r"Resource temporarily unavailable|[Cc]annot fork|can't start new thread|fork: retry"
)

# The launcher when prlimit(1) is missing: forgetui's interpreter, isolated, no site.
_LAUNCHER = (
    "import os,resource,sys\n"
    "for n,v in zip(('RLIMIT_AS','RLIMIT_FSIZE','RLIMIT_NPROC'),sys.argv[1:4]):\n"
    " resource.setrlimit(getattr(resource,n),(int(v),int(v)))\n"
    "os.execvp(sys.argv[4],sys.argv[4:])\n"
)


@dataclass(frozen=True)
class ResourceLimits:
    memory_mb: int = DEFAULT_MEMORY_MB  # address space (RLIMIT_AS)
    file_size_mb: int = DEFAULT_FILE_SIZE_MB  # largest file written (RLIMIT_FSIZE)
    processes: int = DEFAULT_PROCESSES  # processes and threads (RLIMIT_NPROC / pids.max)

    def values(self) -> tuple[int, int, int]:
        """(address space, file size, processes) within the hard limits forgetui runs under,
        which an unprivileged process cannot raise."""
        wanted = (self.memory_mb * MB, self.file_size_mb * MB, self.processes)
        kinds = (resource.RLIMIT_AS, resource.RLIMIT_FSIZE, resource.RLIMIT_NPROC)
        kept = []
        for value, kind in zip(wanted, kinds, strict=True):
            hard = resource.getrlimit(kind)[1]
            kept.append(value if hard == resource.RLIM_INFINITY else min(value, hard))
        return kept[0], kept[1], kept[2]

    def launcher(self) -> list[str]:
        """The argv prefix, run inside the sandbox, that sets the limits and execs the command."""
        memory, size, processes = self.values()
        prlimit = shutil.which("prlimit")
        if prlimit is not None:
            return [
                prlimit, f"--as={memory}:{memory}", f"--fsize={size}:{size}",
                f"--nproc={processes}:{processes}", "--",
            ]  # fmt: skip
        return [sys.executable, "-I", "-S", "-c", _LAUNCHER, str(memory), str(size), str(processes)]

    def stopped(self, exit_code: int | None, output: str, pids_hit: bool) -> str | None:
        """What stopped the command, if a limit did: "stopped: file size limit 1024 MB".

        SIGXFSZ (bwrap reports a signal as 128 + its number) and a cgroup's count are certain;
        a failed allocation or fork is recognised by what the program printed, and only on a
        failing exit."""
        if exit_code in (-signal.SIGXFSZ, 128 + signal.SIGXFSZ):
            return f"stopped: file size limit {self.file_size_mb} MB"
        if pids_hit:
            return f"stopped: process limit {self.processes} (a fork failed)"
        if not exit_code:
            return None
        tail = output[-4000:]
        if _TOO_LARGE.search(tail):
            return f"stopped: file size limit {self.file_size_mb} MB"
        if _NO_MEMORY.search(tail):
            return f"stopped: memory limit {self.memory_mb} MB (an allocation failed)"
        if _NO_FORK.search(tail):
            return f"stopped: process limit {self.processes} (a fork failed)"
        return None


class PidsCgroup:
    """A pids cgroup for one command, for root, whom RLIMIT_NPROC does not bind. `join` is the
    argv prefix that moves the launcher into it before bwrap starts (no child escapes a move
    made after it forked); `hit` says whether the limit refused a fork."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def create(cls, processes: int) -> PidsCgroup | None:
        """A new cgroup limited to `processes`, or None where none can be made (not root, no
        writable pids controller): then the process count is not enforced."""
        if os.geteuid() != 0:
            return None
        for root in _CGROUP_ROOTS:
            if not _pids_controller(root):
                continue
            _sweep(root)
            path = root / f"{_CGROUP_PREFIX}{os.getpid()}-{next(_counter)}"
            try:
                path.mkdir()
                (path / "pids.max").write_text(f"{processes}\n")
            except OSError:
                with contextlib.suppress(OSError):
                    path.rmdir()
                continue
            return cls(path)
        return None

    def join(self) -> list[str]:
        return ["/bin/sh", "-c", 'echo $$ > "$0" && exec "$@"', str(self.path / "cgroup.procs")]

    def hit(self) -> bool:
        try:
            events = (self.path / "pids.events").read_text()
        except OSError:
            return False
        match = re.search(r"^max (\d+)", events, re.MULTILINE)
        return bool(match and int(match.group(1)) > 0)

    def remove(self) -> None:
        """Remove the cgroup once its processes are gone (the killed ones are reaped a moment
        after the command); one still draining after that is left for the next sweep."""
        for _ in range(_REMOVE_TRIES):
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(_REMOVE_PAUSE_S)


def _pids_controller(root: Path) -> bool:
    if root.name == "pids":
        return (root / "cgroup.procs").is_file() and os.access(root, os.W_OK)
    try:
        enabled = (root / "cgroup.subtree_control").read_text().split()
    except OSError:
        return False
    return "pids" in enabled and os.access(root, os.W_OK)


def _sweep(root: Path) -> None:
    """Remove the cgroups earlier commands left, this process's and those of processes gone
    (another forgetui's may be made and not yet joined); rmdir refuses one still in use."""
    with contextlib.suppress(OSError):
        for stale in root.glob(f"{_CGROUP_PREFIX}*"):
            owner = stale.name.removeprefix(_CGROUP_PREFIX).partition("-")[0]
            if owner.isdigit() and int(owner) != os.getpid() and Path(f"/proc/{owner}").exists():
                continue
            with contextlib.suppress(OSError):
                stale.rmdir()
