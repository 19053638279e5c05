"""What the sandbox tests share: the two modes to run each attempt in, and a way to see, from the
host, whether a process a command started is still alive."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from forgetui.engine.sandbox import MODE_VARIABLE
from forgetui.engine.sandbox.mode import probe_bwrap

# Set by .ci/run once it has bubblewrap on PATH: from then on a bwrap test that cannot run
# fails rather than skips, so a green run means the real sandbox was tested.
REQUIRE_VARIABLE = "FORGETUI_REQUIRE_BWRAP"
REQUIRED = os.environ.get(REQUIRE_VARIABLE) == "1"
# Whether the bwrap tests run: where bubblewrap works, and always where it is required.
# Every `skipif(not BWRAP)` keys on this; `pytest -rs` prints the reason of each skip.
BWRAP = probe_bwrap()[0] is not None or REQUIRED
# the probe's own reason: bwrap missing, or present and unable to run here (no user namespaces)
NO_BWRAP = (probe_bwrap()[1] or "bubblewrap runs here") + f" ({REQUIRE_VARIABLE} is not 1)"
MODES = [
    pytest.param("bwrap", marks=pytest.mark.skipif(not BWRAP, reason=NO_BWRAP)),
    "allow-list",
]


def use_mode(monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    """bwrap: the default where it works (the marks above skip it elsewhere); allow-list: forced."""
    if mode == "allow-list":
        monkeypatch.setenv(MODE_VARIABLE, "allow-list")
    else:
        monkeypatch.setenv(MODE_VARIABLE, "bwrap")


def processes_with(marker: str) -> list[int]:
    """Live (not zombie) processes whose command line holds `marker`, as the host sees them:
    a PID namespace hides the host from the command, not the command from the host."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in cmdline and state != "Z":
            found.append(int(entry.name))
    return found


def wait_until(done: Callable[[], bool], limit_s: float = 10.0) -> None:
    """Poll `done()` until true or `limit_s` passes; the caller asserts what it sees after.
    Only bounds the wait: reaping and a child's own timer are asynchronous."""
    deadline = time.monotonic() + limit_s
    while not done() and time.monotonic() < deadline:
        time.sleep(0.05)


def kill_all(pids: list[int]) -> None:
    """Clean up after an escape that succeeded: these are processes the test started."""
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
