"""A workbench whose terminal goes away without a hangup signal (an SSH connection that died
without one, a program that ran it on a pseudo-terminal and closed it) lets go of its task and
ends, exit 129 as the signal would give: idle, and mid-run (the step in flight recorded, the
engine's child gone, the task unlocked), instead of an app nobody can reach holding the task
and a core. The hangup signal itself, with the engine in the app's own process, ends it the
same way."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import shutil
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.start.samples import init_sample
from forgetui.tui.terminal_watch import EXIT_HANGUP, hung_up_poll, hung_up_probe
from tests.fake_openai import FakeOpenAI, stream_reply

PROSE = "Let me think about what the task needs before I act on it. " * 8


class Terminal:
    """The real `forgetui` command on a pseudo-terminal in a session of its own (so closing the
    terminal sends it no SIGHUP), its output collected."""

    def __init__(self, args: list[str], cwd: Path, env: dict[str, str] | None = None) -> None:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        command = shutil.which("forgetui", path=str(Path(sys.executable).parent))
        assert command is not None, "the forgetui script beside this interpreter"
        self.proc = subprocess.Popen(
            [command, *args], stdin=slave, stdout=slave, stderr=slave, cwd=cwd,
            env={**os.environ, "TERM": "xterm-256color", **(env or {})}, start_new_session=True,
        )  # fmt: skip
        os.close(slave)
        self.master: int | None = master
        self.output = bytearray()
        self._closing = threading.Event()
        self._drainer = threading.Thread(target=self._drain, args=(master,), daemon=True)
        self._drainer.start()

    def _drain(self, master: int) -> None:
        """Never blocked in a read when the terminal is closed: a pending read keeps the
        terminal open (no hang-up) until it returns."""
        while not self._closing.is_set():
            if not select.select([master], [], [], 0.05)[0]:
                continue
            try:
                data = os.read(master, 65536)
            except OSError:
                return
            if not data:
                return
            self.output.extend(data)

    def wait_for(self, text: bytes, seconds: float = 60.0) -> None:
        deadline = time.monotonic() + seconds
        while text not in self.output:
            assert time.monotonic() < deadline, f"{text!r} never shown"
            assert self.proc.poll() is None, f"forgetui ended: {bytes(self.output[-400:])!r}"
            time.sleep(0.05)

    def press(self, key: bytes) -> None:
        assert self.master is not None
        os.write(self.master, key)

    def close(self) -> None:
        """The terminal goes away."""
        if self.master is not None:
            self._closing.set()
            self._drainer.join()
            os.close(self.master)
            self.master = None

    def hang_up(self, seconds: float = 60.0) -> int:
        """The terminal goes away; the exit code, once the app has ended."""
        self.close()
        return self.proc.wait(timeout=seconds)

    def stop(self) -> None:
        self.close()
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, 9)
            self.proc.wait()


def _wait_until(check: object, seconds: float = 30.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return True
        time.sleep(0.05)
    return False


def _running(terminal: Terminal, lock: Path) -> None:
    """Opened, then run (space): the engine has the task's lock and steps are recorded."""
    terminal.wait_for(b"action log")
    terminal.press(b" ")
    assert _wait_until(lock.exists), "the run never started"
    terminal.wait_for(b"read_file")


@pytest.mark.timeout(180)
@pytest.mark.parametrize(
    ("engine", "ending"),
    [("process", "terminal closed"), ("thread", "hangup signal")],  # thread: the signal's
)  # default would end the app, the engine with it, mid-step
def test_a_workbench_leaving_mid_run_records_the_step_and_unlocks_the_task(
    tmp_path: Path, forge_home: Path, engine: str, ending: str
) -> None:
    task = init_sample("long_run", into=tmp_path / "run").path
    lock = task / "lock"
    terminal = Terminal(["open", str(task)], tmp_path, {"FORGETUI_ENGINE": engine})
    try:
        _running(terminal, lock)
        if ending == "hangup signal":
            os.kill(terminal.proc.pid, signal.SIGHUP)
            code = terminal.proc.wait(timeout=60)  # the step in flight is recorded first
        else:
            code = terminal.hang_up()
    finally:
        terminal.stop()
    assert code == EXIT_HANGUP  # as a hangup signal ends a program
    assert _wait_until(lambda: not lock.exists()), "the task is still locked"
    last = TaskFolder.open(task).log.last_step_status()
    assert last is not None and last.result is not None  # the step in flight was recorded


@pytest.mark.timeout(120)
def test_an_idle_workbench_whose_terminal_went_away_ends(tmp_path: Path, forge_home: Path) -> None:
    task = init_sample("long_run", into=tmp_path / "run").path
    terminal = Terminal(["open", str(task)], tmp_path)
    try:
        terminal.wait_for(b"action log")
        time.sleep(0.5)  # nothing repaints any more: only the hang-up can tell
        code = terminal.hang_up()
    finally:
        terminal.stop()
    assert code == EXIT_HANGUP
    assert not (task / "lock").exists()


@pytest.mark.timeout(180)
def test_an_answer_streaming_in_is_stopped_when_the_terminal_goes_away(
    tmp_path: Path, forge_home: Path, fake_openai: FakeOpenAI
) -> None:
    """Else the step in flight, recorded first, would keep the process (and the lock) until
    the whole answer had come: 120 chunks a second apart here."""
    fake_openai.queue(stream_reply(PROSE, chunk_delay_s=1.0, chunk_chars=4))
    task = init_sample("hello_world", into=tmp_path / "run").path
    terminal = Terminal(
        ["open", "--model", "openai/x", "--api-base", fake_openai.url, str(task)], tmp_path
    )
    try:
        terminal.wait_for(b"action log")
        terminal.press(b"s")
        terminal.wait_for(b"Let me")  # the answer is streaming in
        code = terminal.hang_up()
    finally:
        terminal.stop()
    assert code == EXIT_HANGUP
    assert not (task / "lock").exists()
    last = TaskFolder.open(task).log.last_step_status()
    assert last is not None and last.result is not None
    assert last.result.result == "skipped"  # the answer was stopped, not waited for


@pytest.mark.timeout(30)
@pytest.mark.parametrize("wait", [hung_up_poll, hung_up_probe])
def test_each_way_of_waiting_returns_once_the_terminal_hangs_up(wait: Any) -> None:
    """Linux's poll, and the probe of a terminal's settings where poll cannot watch one
    (macOS): neither returns while the terminal is there, both once it hangs up."""
    master, slave = pty.openpty()
    returned = threading.Event()

    def waiting() -> None:
        wait(slave)
        returned.set()

    threading.Thread(target=waiting, daemon=True).start()
    try:
        os.write(master, b"typed")  # input is not a hang-up
        assert not returned.wait(1.5)
        os.close(master)
        assert returned.wait(10), "the hang-up went unnoticed"
    finally:
        os.close(slave)
