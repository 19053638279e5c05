"""The workbench's first complete view, counted in a child process while this one starts.

Counting the next context needs the compiler and tiktoken's tables, which take longer to load
than Textual; the launcher starts this child before importing Textual, so the two load side by
side on two cores and the meters show when the app is up. The child builds the snapshot the
way `TaskReader.snapshot` does in this process (the same reader, the same arguments) and sends
it back pickled, with the task files it stood on (`task_files`: what the workbench watches, and
task.yaml). The snapshot is used only if those files are unchanged when it arrives: after that
the workbench's watcher reports any change. Anything else (the child failed, a file changed)
and the reader counts here, as it would without a child.

The child started early for `forgetui open PATH` (forked as a plain command line starts:
early_start.py; else started once the command line is parsed) first sends what it found
(`Found`: the one task there, validated, with the settings and themes read for it), then the
snapshot. The launcher opens the workbench on those, so its own start loads neither YAML nor
pydantic: it imports Textual on one core while the child reads the files on the other."""

from __future__ import annotations

import contextlib
import gc
import json
import os
import pickle
import select
import signal
import subprocess
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:  # the launcher imports this module before anything else: nothing heavy here
    from forgetui.tui.settings import Settings
    from forgetui.tui.task_views import TaskSnapshot
    from forgetui.tui.theme_set import ThemeFiles

# the files a snapshot is read from that the workbench watches for other programs' edits
TASK_FILES = ("task.yaml", "state.yaml", "working_memory.yaml", "actions.yaml", "lock")

FileStamp = tuple[str, int, int, int] | tuple[str]  # name, inode, size, mtime_ns; or absent
# the task folder, model, server and model bounds a snapshot is counted with (the bounds as JSON)
Inputs = tuple[str, str, str, str]
FOUND_HEADER = 8  # bytes: the length of the pickled Found that comes first
FOUND_WAIT_S = 10.0  # the most the launcher waits for it before reading the files itself


@dataclass(frozen=True)
class Found:
    """What the early child found, sent before it counts: the launcher opens the workbench on
    these instead of reading the same files again."""

    task: Path  # the task folder, as api.open_task resolved (and validated) it
    settings: Settings
    overrides: dict[str, Any]  # the model bounds the task is counted and run with
    themes: ThemeFiles  # read, not built: building needs Textual, which the child lacks
    run_copy: bool  # in runs/: the launcher marks it shown while the workbench is open
    stamps: tuple[FileStamp, ...]  # the task's files as they stood before any was read


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


class _Forked:
    """A forked child as FirstView uses a Popen: the read end of its pipe, poll, kill, wait. A
    thread reaps it the moment it ends, so it never lingers as a zombie while the app runs."""

    def __init__(self, pid: int, fd: int) -> None:
        self.pid = pid
        self.stdout: IO[bytes] | None = os.fdopen(fd, "rb")
        self.returncode: int | None = None
        self._ended = threading.Event()
        threading.Thread(target=self._reap, name="first-view-reaper", daemon=True).start()

    def _reap(self) -> None:
        try:
            _, status = os.waitpid(self.pid, 0)
            self.returncode = os.waitstatus_to_exitcode(status)
        except ChildProcessError:  # reaped elsewhere
            self.returncode = -1
        self._ended.set()

    def poll(self) -> int | None:
        return self.returncode

    def kill(self) -> None:
        if not self._ended.is_set():
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)

    def wait(self, timeout: float | None = None) -> int:
        if not self._ended.wait(timeout):
            raise subprocess.TimeoutExpired(f"pid {self.pid}", timeout or 0.0)
        return self.returncode if self.returncode is not None else -1


class FirstView:
    """The child counting one task's first snapshot; `take` is its answer, once."""

    def __init__(
        self, proc: subprocess.Popen[bytes] | _Forked, inputs: Inputs | None = None
    ) -> None:
        self._proc = proc
        self._inputs = inputs  # what this process counts with (the child must have, too)
        self._taken = False  # a caller is reading (or has read) the answer
        self._answered = False  # the answer was read whole: the child only ends now
        self._unusable = False  # taken, and not this process's view: nothing to wait for
        self._found_read = inputs is not None  # only the early child sends a Found first

    @classmethod
    def start(
        cls, task: Path, model: str | None, api_base: str | None,
        model_overrides: Mapping[str, Any],
    ) -> FirstView:  # fmt: skip
        inputs = _inputs(task, model, api_base, model_overrides)
        return cls(_spawn("task", *inputs), inputs)

    @classmethod
    def forked(cls, pid: int, fd: int) -> FirstView:
        """The child forked as `forgetui` started (early_start.py): its pid, its pipe."""
        return cls(_Forked(pid, fd))

    @classmethod
    def early(cls, path: str | None, flags: Mapping[str, Any]) -> FirstView:
        """The child for `forgetui open PATH` (or no PATH), started before anything is read:
        it finds the one task there and reads the settings (`flags`: the command line's, as
        `load_settings` takes them) itself. Its answer is used once `expect` has given this
        process's arguments and they match; a PATH that is no single ready task ends it."""
        return cls(_spawn("path", path or "", json.dumps(dict(flags))))

    def found(self, wait: float = FOUND_WAIT_S) -> Found | None:
        """What the early child found, waiting up to `wait` seconds; None if it found no single
        task that has run, failed, or is slower than that (the launcher reads for itself).
        Read straight from the pipe, so nothing of the snapshot behind it sits in a buffer
        `ready` cannot see."""
        if self._found_read or self._proc.stdout is None:
            return None
        self._found_read = True
        fd = self._proc.stdout.fileno()
        if not select.select([fd], [], [], wait)[0]:
            self._unusable = True  # its snapshot would come behind a Found nobody read
            return None
        try:
            size = int.from_bytes(_read_exactly(fd, FOUND_HEADER), "big")
            found = pickle.loads(_read_exactly(fd, size))
        except Exception:  # it ended without a word, or cut short: the launcher reads
            return None
        return found if isinstance(found, Found) else None

    def expect(
        self, task: Path, model: str | None, api_base: str | None,
        model_overrides: Mapping[str, Any],
    ) -> None:  # fmt: skip
        """The arguments this process counts the task with: the child's answer must match."""
        self._inputs = _inputs(task, model, api_base, model_overrides)

    def ready(self, wait: float = 0.0) -> bool:
        """The answer (or the child's end) is there to read, within `wait` seconds. False at
        once when it was taken and could not be used: the caller shows what it reads itself."""
        if self._unusable:
            return False
        if self._taken or self._proc.stdout is None:
            return True
        readable, _, _ = select.select([self._proc.stdout], [], [], wait)
        return bool(readable)

    def answered(self, task: Path, wait: float = 0.0) -> TaskSnapshot | None:
        """The child's snapshot if it is there within `wait` seconds (then `take`); None, and
        nothing taken, if it is still counting. For the workbench's mount: shown then, it is in
        the first paint."""
        if self._taken or not self.ready(wait):
            return None
        return self.take(task)

    def take(self, task: Path) -> TaskSnapshot | None:
        """The child's snapshot, waiting for it; None if it failed, was taken already, or the
        task's files changed since it read them (then the caller counts itself)."""
        from forgetui.tui.task_views import TaskSnapshot

        if self._taken or self._proc.stdout is None:
            return None
        if not self._found_read:  # the launcher did not ask what it found: skip it
            self.found()
        self._taken = True
        with self._proc.stdout as answer:  # the child closes it once written: no exit to wait
            data = answer.read()
        self._answered = True
        self._unusable = True
        try:
            stamps, inputs, snapshot = pickle.loads(data)
        except Exception:  # nothing written (it failed) or cut short: count here
            return None
        if not isinstance(snapshot, TaskSnapshot) or stamps != task_files(task):
            return None
        if inputs != self._inputs or inputs[0] != str(task):  # another task, model or bounds
            return None
        self._unusable = False
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


def _inputs(
    task: Path, model: str | None, api_base: str | None, overrides: Mapping[str, Any]
) -> Inputs:
    return (str(task), model or "", api_base or "", json.dumps(dict(overrides), sort_keys=True))


def _read_exactly(fd: int, size: int) -> bytes:
    chunks: list[bytes] = []
    while size > 0:
        chunk = os.read(fd, size)
        if not chunk:
            raise EOFError("the child ended mid-answer")
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _spawn(*args: str) -> subprocess.Popen[bytes]:
    # -P, as the engine child: the current directory (a workspace) is not on the path
    return subprocess.Popen(
        [sys.executable, "-P", "-m", "forgetui.tui.first_view", *args],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        start_new_session=True,  # the terminal's signals are the workbench's
    )  # fmt: skip


def _found(path: str, flags: str) -> Found | None:
    """The child started early: the task PATH opens on, validated, and what the launcher
    would read to open it; None when PATH is not one task that has run (a sample, a list, a
    hand-written task the launcher lays out first)."""
    from forgetui.engine import api
    from forgetui.tui.config import load_settings
    from forgetui.tui.places import tasks_to_open
    from forgetui.tui.settings import model_overrides
    from forgetui.tui.theme_files import bundled_theme_files

    tasks = tasks_to_open(path or None)
    if tasks is None or len(tasks) != 1 or not (tasks[0] / "state.yaml").is_file():
        return None
    stamps = task_files(tasks[0])
    folder = api.open_task(tasks[0])
    settings = load_settings(json.loads(flags))
    overrides = model_overrides(settings, folder.spec.model_options.model_fields_set)
    run_copy = api.run_dir_of(folder.path) is not None
    return Found(folder.path, settings, overrides, bundled_theme_files(), run_copy, stamps)


def count_early(path: str | None, fd: int) -> int:
    """The forked child's work (early_start.py): what PATH holds, then its snapshot, down `fd`;
    read with no flag typed (a plain command line has none)."""
    return _count("path", [path or "", "{}"], os.fdopen(fd, "wb"))


def _send_found(found: Found | None, out: IO[bytes]) -> None:
    data = pickle.dumps(found, protocol=pickle.HIGHEST_PROTOCOL)
    out.write(len(data).to_bytes(FOUND_HEADER, "big") + data)
    out.flush()


def _count(kind: str, args: list[str], out: IO[bytes]) -> int:
    """The child: the task's files as they stand, then the snapshot read from them. The
    sandbox's probe (a confined interpreter's start) runs meanwhile: the snapshot shows the
    mode commands will run in."""
    gc.disable()  # a short life that allocates and frees nothing much: collecting finds nothing
    # pydantic looks through every installed package for plugins at its first model: this
    # process only reads files for the workbench to show, and no plugin has a use for that
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    from forgetui.engine import api
    from forgetui.engine.api import ForgeError

    try:
        if kind == "path":
            found = _found(*args)
            _send_found(found, out)
            if found is None:
                return 1
            settings = found.settings
            inputs = _inputs(found.task, settings.model, settings.api_base, found.overrides)
            stamps = found.stamps
        else:
            inputs = (args[0], args[1], args[2], args[3])
            stamps = task_files(Path(inputs[0]))
        task, model, api_base, overrides = inputs
        path = Path(task)
        api.start_probe()  # after what was found is sent: the launcher waits for that first
        from forgetui.tui.snapshot import TaskReader

        reader = TaskReader(
            path, model or None, api_base=api_base or None, model_overrides=json.loads(overrides)
        )
        snapshot = reader.snapshot()
    except ForgeError:
        return 1  # the workbench's own read reports it
    answer = (stamps, _inputs(path, model, api_base, json.loads(overrides)), snapshot)
    out.write(pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL))
    out.close()  # the answer is complete: the workbench reads it while this process ends
    return 0


if __name__ == "__main__":
    # the answer has the pipe to itself: whatever else writes to stdout goes nowhere
    answer = os.fdopen(os.dup(1), "wb")
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    # this module's own copy, not __main__'s: what it pickles (Found) must unpickle by name
    from forgetui.tui.first_view import _count as count

    sys.exit(count(sys.argv[1], sys.argv[2:], answer))
