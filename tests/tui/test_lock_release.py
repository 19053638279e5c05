"""An idle workbench holds no lock: after a step, a pause, a failure or the end of a run, the
CLI in another terminal and a second workbench may write the task. Running back to back keeps
the lock between steps; the next step takes it again, a stale lock included, and a live holder
elsewhere makes it fail with that holder's pid and command, not crash."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.message import Message
from textual.pilot import Pilot

from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.tui.app import ForgeApp
from forgetui.tui.messages import SnapshotLoaded, StepProgress, StepRecorded

from .conftest import QUICK_CHECKS, SIZE, custom_sample, press, screen_text, settle

pytestmark = pytest.mark.anyio

ENGINES = pytest.mark.parametrize("engine", ["process", "thread"])

# Another terminal's writer: takes the task lock, says so, lets go when told (or is killed).
HOLDER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from forgetui.engine.folder.task_folder import TaskFolder

    folder = TaskFolder.open(Path(sys.argv[1]))
    folder.acquire("forgetui run (other terminal)")
    print("locked", flush=True)
    for line in sys.stdin:
        if line.strip() == "release":
            folder.release()
            print("released", flush=True)
    """
)


def forgetui(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """The CLI in another terminal."""
    return subprocess.run(
        [sys.executable, "-m", "forgetui", *map(str, args)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip


def hold_lock(task: Path) -> subprocess.Popen[str]:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(task)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert holder.stdout is not None
    assert holder.stdout.readline().strip() == "locked"
    return holder


def lock_identity(task: Path) -> tuple[int, int] | None:
    """Which lock file is there (a lock released and taken again is a new file), if any."""
    try:
        stat = os.stat(task / "lock")
    except FileNotFoundError:
        return None
    return stat.st_ino, stat.st_mtime_ns


def step_of(task: Path) -> int:
    return TaskFolder.open(task).load_state().step


@pytest.fixture
def long_hello(tmp_path: Path) -> Path:
    """hello_world whose agent runs fifteen commands of a fifth of a second, one a step: a run
    long enough to pause, whichever engine steps."""
    naps = [
        {"action": "run_cmd",
         "args": {"cmd": ["python", "-c", f"import time; time.sleep(0.2); print({n})"]}}
        for n in range(15)
    ]  # fmt: skip
    return custom_sample(
        tmp_path, "hello_world", "long_hello", task={"checks": QUICK_CHECKS}, replay=naps
    )


async def until(pilot: Pilot[Any], check: Callable[[], bool], timeout: float = 30) -> None:
    async def poll() -> None:
        while not check():
            await pilot.pause(0.01)

    await asyncio.wait_for(poll(), timeout)


@ENGINES
async def test_after_a_step_the_cli_may_write_and_the_next_step_locks_again(
    workbench: Callable[..., ForgeApp], quick_hello: Path, engine: str
) -> None:
    app = workbench(quick_hello, engine=engine)
    task = app.reader.path
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "s")
        assert step_of(task) == 1
        assert lock_identity(task) is None  # paused: nobody holds the task

        noted = forgetui("memory", task, "note", "from another terminal")
        assert noted.returncode == 0, noted.stderr
        assert "note: note@1" in noted.stdout

        await press(pilot, "s")  # takes the lock again, sees the note
        assert step_of(task) == 2
        assert lock_identity(task) is None
        assert "from another terminal" in screen_text(app)
        assert not app.workbench.has_class("-read-only")
        assert app.is_running


async def test_an_escalation_is_answered_from_another_terminal(
    workbench: Callable[..., ForgeApp],
) -> None:
    snapshots: list[SnapshotLoaded] = []

    def hook(message: Message) -> None:
        if isinstance(message, SnapshotLoaded):
            snapshots.append(message)

    app = workbench("escalation", watch=True)
    task = app.reader.path
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await settle(pilot)
        await press(pilot, "s")
        assert "escalated" in screen_text(app).splitlines()[0]
        assert lock_identity(task) is None  # waiting on the operator is idle too

        answered = forgetui("answer", task, "French")
        assert answered.returncode == 0, answered.stderr
        await until(pilot, lambda: snapshots[-1].snapshot.escalation is None)
        await settle(pilot)
        await press(pilot, "s")
        greeting = TaskFolder.open(task).workspace / "greeting.py"
        assert greeting.read_text() == 'print("Bonjour, le monde !")\n'
        assert lock_identity(task) is None


async def test_a_second_workbench_is_not_read_only_and_may_step(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    first = workbench(quick_hello)
    task = first.reader.path
    async with first.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "s")
        second = workbench(task)
        async with second.run_test(size=SIZE) as other:
            await settle(other)
            assert "READ-ONLY" not in screen_text(second).splitlines()[0]
            assert second.workbench.applies("single_step")
            await press(other, "s")
            assert step_of(task) == 2
        assert lock_identity(task) is None


@ENGINES
async def test_running_keeps_the_lock_between_steps_and_a_pause_lets_go(
    workbench: Callable[..., ForgeApp], long_hello: Path, engine: str
) -> None:
    seen: list[tuple[int, int] | None] = []
    recorded: list[int] = []
    hooked: dict[int, Message] = {}
    app = workbench(long_hello, engine=engine)
    task = app.reader.path

    def hook(message: Message) -> None:
        # at the screen, before the UI reacts (not as it bubbles up to the app, after)
        if not isinstance(message, StepProgress | StepRecorded) or id(message) in hooked:
            return
        hooked[id(message)] = message  # kept, so no later message reuses its id
        seen.append(lock_identity(task))
        if isinstance(message, StepRecorded):
            recorded.append(message.report.step)

    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await settle(pilot)
        await pilot.press("space")
        await until(pilot, lambda: len(recorded) >= 3)
        await press(pilot, "space")
        assert not app.workbench.running
        assert 3 <= step_of(task) < 15
        assert None not in seen and len(set(seen)) == 1  # one lock, from step 1 to the pause
        assert lock_identity(task) is None
        assert "paused" in screen_text(app).splitlines()[0]
        noted = forgetui("memory", task, "note", "paused, so I may")
        assert noted.returncode == 0, noted.stderr


@ENGINES
async def test_a_finished_run_lets_go(
    workbench: Callable[..., ForgeApp], quick_hello: Path, engine: str
) -> None:
    app = workbench(quick_hello, engine=engine)
    task = app.reader.path
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "space")
        assert TaskFolder.open(task).load_state().status == "complete"
        assert lock_identity(task) is None
        # another writer takes the lock (memory is frozen on a finished task; limits are not)
        raised = forgetui("limits", task, "--max-steps", "50")
        assert raised.returncode == 0, raised.stderr


@ENGINES
async def test_the_next_step_takes_over_a_stale_lock_and_is_refused_a_live_one(
    workbench: Callable[..., ForgeApp], quick_hello: Path, engine: str
) -> None:
    app = workbench(quick_hello, engine=engine)
    task = app.reader.path
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await press(pilot, "s")
        crashed = hold_lock(task)
        crashed.send_signal(signal.SIGKILL)  # dies holding it: the lock file stays, stale
        crashed.wait()
        assert lock_identity(task) is not None
        await press(pilot, "s")
        assert step_of(task) == 2
        assert lock_identity(task) is None

        holder = hold_lock(task)
        try:
            await press(pilot, "s")  # the view has not caught up: the step tries, and is refused
            errors = [(n.title, n.message) for n in app._notifications if n.severity == "error"]
            assert any(
                title == "step failed (task locked)"
                and f"locked by pid {holder.pid}" in text
                and "(forgetui run (other terminal)" in text
                for title, text in errors
            ), errors
            assert app.is_running and not app.workbench.running
            assert step_of(task) == 2
            header = screen_text(app).splitlines()[0]
            assert "READ-ONLY" in header and f"pid {holder.pid}" in header
            assert not app.workbench.applies("single_step")
        finally:
            holder.kill()
            holder.wait()
