"""The workbench's writer: the engine's TaskService, used only from worker threads, in this
process or in a child process that owns the executor.

The service's public methods are the protocol: `EngineProcess` forwards any of them by name
over a socket (`served_names` is the allow-list), so a new operator verb is a method on the
service and nothing here."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping
from functools import partial
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forgetui.engine.api import ForgeError

if TYPE_CHECKING:
    from forgetui.engine.api import StepEvent, StepReport, TaskFolder, TaskService

    # What the workbench holds: the service in process, or its child's stand-in (EngineProcess).
    Session = TaskService
    # For the type checker the stand-in is a TaskService: every method it forwards keeps the
    # service's signature. At run time it has only what it defines, and forwards the rest.
    _ServiceShape = TaskService
else:
    # At run time only annotations name Session: the service (and the operator's verbs it
    # imports) loads when a step or a verb first needs it, after the workbench's first view.
    Session = _ServiceShape = object

# The stage at which a step waits for the workbench (its intent is in the log; the action runs
# next): the observer returns once the screen shows the intent, and the child waits for that.
AWAITS_SCREEN = "execute"
SHOWN = "shown"  # the parent's word to the child: go on


@functools.cache
def served_names() -> frozenset[str]:
    """What the child may be asked for by name: the service's public methods, nothing else
    (not its folder, not a private helper)."""
    from forgetui.engine.api import TaskService

    return frozenset(
        name
        for name, value in vars(TaskService).items()
        if not name.startswith("_") and callable(value)
    )


class EngineProcess(_ServiceShape):
    """TaskService's methods, served by a child process that owns the executor.

    Keeps every CPU-heavy part of a step (compiling, YAML, tiktoken, importing litellm) off the
    TUI process's threads, so keys repaint while steps run back to back. The child holds the
    task lock; `owns_lock(pid)` lets the reader tell it from another program's run. One call at
    a time; the worker thread that makes it waits on a pipe, which costs the UI nothing."""

    def __init__(
        self, path: Path, model: str | None, api_base: str | None,
        model_options: Mapping[str, Any] | None = None,
    ) -> None:  # fmt: skip
        self._path = path  # the task folder; read when first needed (not before the first paint)
        self._folder: TaskFolder | None = None
        self.model_spec = model
        self.api_base = api_base
        self.model_options = dict(model_options or {})
        self._call_lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._conn: Connection | None = None

    @property
    def folder(self) -> TaskFolder:
        from forgetui.engine.api import open_task

        if self._folder is None:
            self._folder = open_task(self._path)
        return self._folder

    @folder.setter
    def folder(self, folder: TaskFolder) -> None:
        self._folder = folder

    def __getattr__(self, name: str) -> Callable[..., Any]:
        """Any public method of the service not defined here: the same call, in the child."""
        if name not in served_names():
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

        def forward(*args: Any) -> Any:
            return self._call(name, *args)

        return forward

    @property
    def human(self) -> bool:
        from forgetui.engine.api import TaskService

        return (self.model_spec or self.folder.spec.model) == TaskService.HUMAN

    def owns_lock(self, pid: int) -> bool:
        proc = self._proc
        return proc is not None and proc.pid == pid

    def _start(self) -> Connection:
        if self._conn is not None and self._proc is not None and self._proc.poll() is None:
            return self._conn
        parent, child = socket.socketpair()
        log = self.folder.path / "artifacts" / "engine.log"  # the child's stderr, for crashes
        with log.open("ab") as stderr:
            proc = subprocess.Popen(
                # -P: `-m` would put the current directory (the workspace, after `forgetui open
                # .`) first on the import path, running a json.py the agent wrote in here, with
                # the operator's keys. Not -I: it would also drop PYTHONPATH and the user site
                # that forgetui itself may be installed through.
                [sys.executable, "-P", "-m", "forgetui.tui.session", str(child.fileno()),
                 str(self.folder.path), self.model_spec or "", self.api_base or "",
                 json.dumps(self.model_options)],
                pass_fds=(child.fileno(),), stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=stderr,
                start_new_session=True,  # the terminal's signals are the TUI's, not the engine's
            )  # fmt: skip
        child.close()
        self._proc, self._conn = proc, Connection(parent.detach())
        return self._conn

    def _call(
        self, method: str, *args: Any, observer: Callable[[StepEvent], None] | None = None,
        start: bool = True,
    ) -> Any:  # fmt: skip
        """`method` in the child; with start=False, nothing (None) if no child is running."""
        with self._call_lock:
            if start:
                conn = self._start()
            elif self._conn is not None and self._proc is not None and self._proc.poll() is None:
                conn = self._conn
            else:
                return None
            try:
                conn.send((method, args))
                while True:
                    kind, payload = conn.recv()
                    if kind == "event":
                        try:
                            if observer is not None:
                                observer(payload)
                        finally:
                            if payload.stage == AWAITS_SCREEN:
                                conn.send((SHOWN, None))
                    elif kind == "result":
                        return payload
                    else:
                        message, title = payload
                        raise ForgeError(message, title)
            except (EOFError, OSError):
                code = self._proc.poll() if self._proc is not None else None
                self._conn = None
                raise ForgeError(
                    f"the engine process stopped (exit code {code}); the next step resumes "
                    "from what was recorded"
                ) from None

    def step(
        self, observer: Callable[[StepEvent], None], human_text: str | None = None
    ) -> tuple[StepReport, list[str]]:
        """The step's events come back over the pipe while it runs, to `observer` here."""
        result: tuple[StepReport, list[str]] = self._call("step", human_text, observer=observer)
        return result

    def stop_answer(self) -> bool:
        """The child is busy in step() (the pipe is the step's until it ends): a signal reaches
        it there, and its handler stops the stream. True if a child was there to signal."""
        proc = self._proc
        if proc is None or proc.poll() is not None:
            return False
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGUSR1)
            return True
        return False

    def set_model(self, spec: str) -> str:
        said = str(self._call("set_model", spec))
        self.model_spec = spec  # `human` is asked here, in the UI process
        return said

    def release(self) -> None:
        """Have the child release the task lock but stay alive: starting Python and the engine's
        imports again for every step costs too much. No child, no lock: nothing to do."""
        self._call("release", start=False)

    def close(self) -> None:
        """Ask the child to release the lock and exit; wait briefly, then make sure."""
        with self._call_lock:
            proc, conn = self._proc, self._conn
            self._proc = self._conn = None
            if conn is not None:
                with contextlib.suppress(OSError, EOFError):
                    conn.send(None)
                    conn.recv()
                conn.close()
            if proc is not None:
                try:
                    proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout=5)


def _forward(conn: Connection, event: StepEvent) -> None:
    """A step's event to the parent; at AWAITS_SCREEN, wait until the parent says go on."""
    conn.send(("event", event))
    if event.stage == AWAITS_SCREEN:
        conn.recv()


def _serve(
    conn: Connection, path: str, model: str | None, api_base: str | None,
    model_options: Mapping[str, Any] | None = None,
) -> None:  # fmt: skip
    """The child: one TaskService, calls by name from the socket until None or the parent is
    gone. SIGUSR1 is the parent's `stop_answer` (the socket is busy with the step meanwhile)."""
    from forgetui.engine.api import TaskService

    service = TaskService(Path(path), model, api_base, model_options)
    signal.signal(signal.SIGUSR1, lambda _signum, _frame: service.stop_answer())
    try:
        while True:
            try:
                message = conn.recv()
            except (EOFError, OSError):
                return
            if message is None:
                service.close()
                conn.send(("result", None))
                return
            method, args = message
            try:
                if method not in served_names():
                    raise ForgeError(f"the engine process serves no {method!r}")
                if method == "step":
                    result: Any = service.step(partial(_forward, conn), *args)
                else:
                    result = getattr(service, method)(*args)
                conn.send(("result", result))
            except ForgeError as exc:  # with its title: "task locked" reads as such
                conn.send(("error", (exc.message, exc.title)))
            except Exception as exc:  # reported to the operator; the child keeps serving
                conn.send(("error", (f"{type(exc).__name__}: {exc}", ForgeError.title)))
    finally:
        service.close()


if __name__ == "__main__":
    _serve(
        Connection(int(sys.argv[1])), sys.argv[2], sys.argv[3] or None, sys.argv[4] or None,
        json.loads(sys.argv[5]),
    )  # fmt: skip
