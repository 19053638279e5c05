"""The workbench's writer side: the task's Executor and the operator's changes, used only from
worker threads. It opens the executor (taking the task lock) for a step, not at launch, and the
workbench releases it whenever it goes idle, so a workbench that watches or sits paused never
keeps a headless run, `forgetui answer` or another workbench from writing."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from forgetui.engine import api
from forgetui.engine.api import ForgeError

if TYPE_CHECKING:
    from forgetui.engine.api import (
        Adoption,
        Executor,
        Model,
        Rerun,
        RewindReport,
        StepEvent,
        StepReport,
    )

HUMAN = "human"


def _closed_input(prompt: str) -> str:
    raise EOFError("the workbench supplies each human action with the step")


def _typed(text: str) -> Callable[[str], str]:
    """The human model's input for one step: the action the operator typed before it."""

    def reply(prompt: str) -> str:
        return text

    return reply


class Session(Protocol):
    """What the workbench needs from its writer, in process or in a child process."""

    @property
    def human(self) -> bool: ...
    def owns_lock(self, pid: int) -> bool: ...
    def step(
        self, observer: Callable[[StepEvent], None], human_text: str | None = None
    ) -> tuple[StepReport, list[str]]: ...
    def stop_answer(self) -> bool: ...
    def answer(self, text: str) -> str: ...
    def pin(self, ref: str, pinned: bool) -> str: ...
    def evict(self, ref: str) -> str: ...
    def edit(self, ref: str, content: str) -> str: ...
    def note(self, text: str) -> str: ...
    def promote(self, entry_id: str) -> str: ...
    def set_limits(self, max_steps: int | None, max_cost: float | None) -> str: ...
    def set_model(self, spec: str) -> str: ...
    def accept_task_change(self) -> str: ...
    def rerun(self, step: int, model: str) -> Rerun: ...
    def adopt_rerun(self, rerun: Rerun, dest: str) -> Adoption: ...
    def plan_rewind(self, to: int) -> RewindReport: ...
    def rewind(self, to: int, force: bool) -> str: ...
    def fork(self, to: int, dest: str) -> str: ...
    def release(self) -> None: ...
    def close(self) -> None: ...


class StepSession:
    """One writer per task: this process's executor and operator changes, one call at a time.
    `model_options` (max_output_tokens, temperature, timeout_s, system_role, tools) override the
    task's own for every model this session builds."""

    def __init__(
        self, path: Path, model: str | None, api_base: str | None,
        model_options: Mapping[str, Any] | None = None,
    ) -> None:  # fmt: skip
        self.folder = api.open_task(path)
        self.model_spec = model
        self.api_base = api_base
        self.model_options = dict(model_options or {})
        self._executor: Executor | None = None
        self._base_model: Model | None = None  # built at the first step, kept over releases
        self._lock = threading.Lock()

    @property
    def human(self) -> bool:
        return (self.model_spec or self.folder.spec.model) == HUMAN

    def owns_lock(self, pid: int) -> bool:
        """In-process: the lock is ours exactly when its pid is this process's."""
        return False

    def _model(self, human_text: str | None = None) -> Model:
        if self.human:
            reply = _typed(human_text) if human_text is not None else _closed_input
            return api.model_for(
                self.folder, HUMAN, self.api_base, human_input=reply, **self.model_options
            )
        return api.model_for(self.folder, self.model_spec, self.api_base, **self.model_options)

    def step(
        self, observer: Callable[[StepEvent], None], human_text: str | None = None
    ) -> tuple[StepReport, list[str]]:
        """Exactly one engine step. Returns its report and what opening the executor repaired.
        After a release the executor opens again: lock, stale-lock takeover and recovery, as
        any writer's start; a live holder elsewhere fails the step with its pid and command."""
        with self._lock:
            notices: list[str] = []
            if self._executor is None:
                # One model for the session, as before releases existed: its client and state
                # carry over, and opening re-syncs a replay script with the log.
                if self._base_model is None:
                    self._base_model = self._model()
                executor = api.Executor(self.folder, self._base_model, observer=observer)
                try:
                    notices = executor.open()
                except BaseException:
                    executor.close()  # a failed recovery must not leave the lock taken
                    raise
                self._executor = executor
            override = self._model(human_text) if self.human else None
            return self._executor.step(model=override), notices

    def stop_answer(self) -> bool:
        """Stop the answer streaming in the step in flight; True if there was one. Not under
        the session's lock: the step holds it until the answer it waits on has ended."""
        executor = self._executor
        return executor is not None and executor.stop_answer()

    def answer(self, text: str) -> str:
        with self._lock:
            decision = api.answer(self.folder, text)
            return f"answered step {decision.step}: {decision.answer}"

    def pin(self, ref: str, pinned: bool) -> str:
        with self._lock:
            return f"{'pinned' if pinned else 'unpinned'} {api.pin(self.folder, ref, pinned)}"

    def evict(self, ref: str) -> str:
        with self._lock:
            return f"evicted {api.evict(self.folder, ref)}"

    def edit(self, ref: str, content: str) -> str:
        with self._lock:
            return f"edited {api.edit_memory(self.folder, ref, content)}"

    def note(self, text: str) -> str:
        with self._lock:
            return f"added note {api.add_note(self.folder, text)}"

    def promote(self, entry_id: str) -> str:
        """The inbox's answer `entry_id` pinned in working memory."""
        with self._lock:
            return api.promote_answer(self.folder, entry_id)

    def set_limits(self, max_steps: int | None, max_cost: float | None) -> str:
        with self._lock:
            return f"limits set: {api.set_limits(self.folder, max_steps, max_cost).answer}"

    def accept_task_change(self) -> str:
        with self._lock:
            return api.accept_task_change(self.folder)

    def rerun(self, step: int, model: str) -> Rerun:
        """Step `step`'s saved context to `model`, with the workbench's api_base and bounds.
        Reads only, through a folder of its own: not under the session's lock."""
        folder = api.open_task(self.folder.path)
        return api.rerun_step(
            folder, step, model, api_base=self.api_base, bounds=self.model_options
        )

    def adopt_rerun(self, rerun: Rerun, dest: str) -> Adoption:
        """The re-run's answer as step N of a fork in the new workspace `dest`."""
        return api.adopt_rerun(api.open_task(self.folder.path), rerun, dest)

    def plan_rewind(self, to: int) -> RewindReport:
        """What rewinding to the end of step `to` would do. Reads only, through a folder of
        its own: not under the session's lock."""
        return api.plan_rewind(api.open_task(self.folder.path), to)

    def rewind(self, to: int, force: bool) -> str:
        """Back to the end of step `to` in place (the lock taken for the write only). The
        executor is closed first: the next step opens it again, re-syncing a replay script
        with the rewound log."""
        with self._lock:
            if self._executor is not None:
                self._executor.close()
                self._executor = None
            return api.rewind_task(self.folder, to, force=force).describe()

    def fork(self, to: int, dest: str) -> str:
        """A fork at step `to` into the new workspace `dest`; this task is not changed."""
        report = api.fork_task(api.open_task(self.folder.path), to, dest)
        return f"{report.describe()}; open it with: forgetui open {dest}"

    def set_model(self, spec: str) -> str:
        """The model for the steps from the next one on: built now, so a name that cannot run
        is refused here rather than at the step."""
        with self._lock:
            model = (
                None
                if spec == HUMAN
                else api.model_for(self.folder, spec, self.api_base, **self.model_options)
            )
            self.model_spec = spec
            if model is not None:
                self._base_model = model
                if self._executor is not None:
                    self._executor.model = model
            return f"model {spec} from the next step"

    def release(self) -> None:
        """Close the executor, releasing the task lock, while the workbench is idle; the next
        step reopens it. Waits for a step in flight (one call at a time)."""
        with self._lock:
            if self._executor is not None:
                self._executor.close()
                self._executor = None

    def close(self) -> None:
        """Release the task lock for good (the workbench is leaving)."""
        self.release()


# --- the engine in a child process -------------------------------------------------------------


class EngineProcess:
    """StepSession's interface, served by a child process that owns the executor.

    Keeps every CPU-heavy part of a step (compiling, YAML, tiktoken, importing litellm) off the
    TUI process's threads, so keys repaint while steps run back to back. The child holds the
    task lock; `owns_lock(pid)` lets the reader tell it from another program's run. One call at
    a time; the worker thread that makes it waits on a pipe, which costs the UI nothing."""

    def __init__(
        self, path: Path, model: str | None, api_base: str | None,
        model_options: Mapping[str, Any] | None = None,
    ) -> None:  # fmt: skip
        self.folder = api.open_task(path)
        self.model_spec = model
        self.api_base = api_base
        self.model_options = dict(model_options or {})
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._conn: Connection | None = None

    @property
    def human(self) -> bool:
        return (self.model_spec or self.folder.spec.model) == HUMAN

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
        with self._lock:
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
                        if observer is not None:
                            observer(payload)
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

    def answer(self, text: str) -> str:
        return str(self._call("answer", text))

    def pin(self, ref: str, pinned: bool) -> str:
        return str(self._call("pin", ref, pinned))

    def evict(self, ref: str) -> str:
        return str(self._call("evict", ref))

    def edit(self, ref: str, content: str) -> str:
        return str(self._call("edit", ref, content))

    def note(self, text: str) -> str:
        return str(self._call("note", text))

    def promote(self, entry_id: str) -> str:
        return str(self._call("promote", entry_id))

    def set_limits(self, max_steps: int | None, max_cost: float | None) -> str:
        return str(self._call("set_limits", max_steps, max_cost))

    def accept_task_change(self) -> str:
        return str(self._call("accept_task_change"))

    def rerun(self, step: int, model: str) -> Rerun:
        """In the child: litellm's import and the call stay out of the TUI process."""
        result: Rerun = self._call("rerun", step, model)
        return result

    def adopt_rerun(self, rerun: Rerun, dest: str) -> Adoption:
        result: Adoption = self._call("adopt_rerun", rerun, dest)
        return result

    def plan_rewind(self, to: int) -> RewindReport:
        """In the child: reading the snapshots and the log stays out of the TUI process."""
        result: RewindReport = self._call("plan_rewind", to)
        return result

    def rewind(self, to: int, force: bool) -> str:
        return str(self._call("rewind", to, force))

    def fork(self, to: int, dest: str) -> str:
        return str(self._call("fork", to, dest))

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
        with self._lock:
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


def _serve(
    conn: Connection, path: str, model: str | None, api_base: str | None,
    model_options: Mapping[str, Any] | None = None,
) -> None:  # fmt: skip
    """The child: one StepSession, commands from the socket until None or the parent is gone.
    SIGUSR1 is the parent's `stop_answer` (the socket is busy with the step meanwhile)."""
    session = StepSession(Path(path), model, api_base, model_options)
    signal.signal(signal.SIGUSR1, lambda _signum, _frame: session.stop_answer())
    try:
        while True:
            try:
                message = conn.recv()
            except (EOFError, OSError):
                return
            if message is None:
                session.close()
                conn.send(("result", None))
                return
            method, args = message
            try:
                if method == "step":
                    result: Any = session.step(lambda event: conn.send(("event", event)), *args)
                else:
                    result = getattr(session, method)(*args)
                conn.send(("result", result))
            except ForgeError as exc:  # with its title: "task locked" reads as such
                conn.send(("error", (exc.message, exc.title)))
            except Exception as exc:  # reported to the operator; the child keeps serving
                conn.send(("error", (f"{type(exc).__name__}: {exc}", ForgeError.title)))
    finally:
        session.close()


if __name__ == "__main__":
    _serve(
        Connection(int(sys.argv[1])), sys.argv[2], sys.argv[3] or None, sys.argv[4] or None,
        json.loads(sys.argv[5]),
    )  # fmt: skip
