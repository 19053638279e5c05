"""Whether a task is locked is the kernel's word (a flock the writer holds while it lives), not
a pid's: a lock file whose pid now names an unrelated live process (a restarted container
reuses small pids) neither stops `run` nor traps `unlock`, while a live writer still stops
both, by name, and frees the task the moment it is killed."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.cli.stepped_sample import copy_task, lock_debris


@pytest.fixture
def task(hello_after_two_steps: Path, tmp_path: Path) -> Path:
    return copy_task(hello_after_two_steps, tmp_path / "copy")


def _lock_naming(task: Path, pid: int) -> None:
    info = {
        "pid": pid,
        "host": socket.gethostname(),
        "started_at": "2026-01-02T03:04:05Z",
        "command": "forgetui run",
    }
    (task / "lock").write_text(json.dumps(info) + "\n")


def test_run_goes_ahead_over_a_lock_naming_a_live_unrelated_process(
    cli: Any, task: Path, unrelated: subprocess.Popen[bytes]
) -> None:
    _lock_naming(task, unrelated.pid)
    run = cli("run", task, "--json")
    assert run.code == 0, run.err
    assert run.json_lines()[-1]["status"] == "complete"
    assert lock_debris(task) == []
    assert unrelated.poll() is None  # nothing was done to it


def test_unlock_removes_a_lock_naming_a_live_unrelated_process(
    cli: Any, task: Path, unrelated: subprocess.Popen[bytes]
) -> None:
    _lock_naming(task, unrelated.pid)
    unlocked = cli("unlock", task)
    assert unlocked.code == 0, unlocked.err
    assert unlocked.out.strip() == (
        f"removed the lock of pid {unrelated.pid} (forgetui run, since 2026-01-02T03:04:05Z): "
        f"no process holds it (pid {unrelated.pid} is another program now)"
    )
    assert lock_debris(task) == []


_HOLDER = textwrap.dedent(
    """
    import subprocess, sys, time
    from pathlib import Path
    from forgetui.engine.folder.lock import TaskLock
    TaskLock(Path(sys.argv[1])).acquire(command="forgetui run hello")
    child = subprocess.Popen(["sleep", "300"])  # a command it started, outliving it
    print(child.pid, flush=True)
    time.sleep(300)
    """
)


def test_a_live_writer_refuses_run_and_unlock_until_killed(cli: Any, task: Path) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(task)], stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None
    child = int(holder.stdout.readline())
    try:
        refused = cli("run", task)
        assert refused.code == 2
        assert refused.err.splitlines() == [
            f"forgetui: task hello_world is locked by pid {holder.pid} (forgetui run hello, "
            f"since {json.loads((task / 'lock').read_text())['started_at']}); wait for it to "
            "finish or open the task read-only"
        ]
        not_unlocked = cli("unlock", task)
        assert not_unlocked.code == 2
        assert not_unlocked.err.splitlines() == [
            f"forgetui: task hello_world: pid {holder.pid} (forgetui run hello) holds the lock "
            "on this host; stop it first"
        ]

        holder.kill()  # SIGKILL: the writer cleans nothing up
        holder.wait()
        _lock_naming(task, child)  # and its pid is now a live process that is not forgetui
        run = cli("run", task, "--json")
        assert run.code == 0, run.err
        assert run.json_lines()[-1]["status"] == "complete"
        assert lock_debris(task) == []
    finally:
        holder.kill()
        holder.wait()
        subprocess.run(["kill", "-9", str(child)], check=False)
