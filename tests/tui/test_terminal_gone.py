"""A workbench whose terminal goes away without a hangup signal (an SSH connection that died
without one, a program that ran it on a pseudo-terminal and closed it) quits as `q` would:
the run stops, the engine's child exits and the task is unlocked, instead of an app nobody can
reach holding the task and a core."""

from __future__ import annotations

import fcntl
import os
import pty
import shutil
import struct
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path

import pytest

from forgetui.engine.start.samples import init_sample
from forgetui.tui.terminal_watch import EXIT_HANGUP


class Terminal:
    """The real `forgetui` command on a pseudo-terminal in a session of its own (so closing the
    terminal sends it no SIGHUP), its output collected."""

    def __init__(self, args: list[str], cwd: Path) -> None:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        command = shutil.which("forgetui", path=str(Path(sys.executable).parent))
        assert command is not None, "the forgetui script beside this interpreter"
        self.proc = subprocess.Popen(
            [command, *args], stdin=slave, stdout=slave, stderr=slave, cwd=cwd,
            env={**os.environ, "TERM": "xterm-256color"}, start_new_session=True,
        )  # fmt: skip
        os.close(slave)
        self.master: int | None = master
        self.output = bytearray()
        threading.Thread(target=self._drain, args=(master,), daemon=True).start()

    def _drain(self, master: int) -> None:
        while True:
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
            os.close(self.master)
            self.master = None

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


@pytest.mark.timeout(180)
def test_a_workbench_whose_terminal_went_away_mid_run_quits_and_unlocks_the_task(
    tmp_path: Path, forge_home: Path
) -> None:
    task = init_sample("long_run", into=tmp_path / "run").path
    lock = task / "lock"
    terminal = Terminal(["open", str(task)], tmp_path)
    try:
        terminal.wait_for(b"action log")
        terminal.press(b" ")  # run: the engine's child takes the task's lock
        assert _wait_until(lock.exists), "the run never started"
        terminal.wait_for(b"read_file")  # steps are being recorded
        terminal.close()
        code = terminal.proc.wait(timeout=60)  # the step in flight is recorded first
    finally:
        terminal.stop()
    assert code == EXIT_HANGUP  # as a hangup signal would have ended it
    assert _wait_until(lambda: not lock.exists()), "the task is still locked"
