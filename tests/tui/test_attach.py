"""Attaching to a run another process drives: the workbench follows its writes through the file
watcher, says it is read-only, refuses to step or change memory, and takes over once the other
process lets go of the task."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from textual.message import Message

from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.tui.app import ForgeApp
from forgetui.tui.messages import SnapshotFailed, SnapshotLoaded

from .conftest import SIZE, press, screen_text, settle

pytestmark = pytest.mark.anyio

# Holds the task lock, appends records when told, lets go when told: a headless run in a box.
WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from forgetui.engine.base.clock import now_iso
    from forgetui.engine.folder.records import IntentRecord, ResultRecord
    from forgetui.engine.folder.task_folder import TaskFolder

    folder = TaskFolder.open(Path(sys.argv[1]))
    folder.acquire("forgetui run (test writer)")
    print("locked", flush=True)
    for line in sys.stdin:
        if line.strip() == "append":
            for step in (1, 2, 3):
                folder.log.append(IntentRecord(step=step, at=now_iso(), action="list_dir",
                                               args={"path": f"dir{step}"}))
                folder.log.append(ResultRecord(step=step, at=now_iso(), action="list_dir",
                                               args={"path": f"dir{step}"}, result="success",
                                               summary=f"listed dir{step}"))
            print("appended", flush=True)
        elif line.strip() == "release":
            folder.release()
            print("released", flush=True)
    """
)


async def wait_for(
    snapshots: list[SnapshotLoaded], pilot: object, check: Callable[..., bool]
) -> None:
    """Until a loaded snapshot passes `check` (the watcher's reload arrives as a message)."""

    async def poll() -> None:
        while not any(check(m.snapshot) for m in snapshots):
            await asyncio.sleep(0.02)

    await asyncio.wait_for(poll(), timeout=15)
    await settle(pilot)  # type: ignore[arg-type]


async def wait_for_message(messages: list[SnapshotFailed], pilot: object) -> None:
    async def poll() -> None:
        while not messages:
            await asyncio.sleep(0.02)

    await asyncio.wait_for(poll(), timeout=15)
    await settle(pilot)  # type: ignore[arg-type]


async def test_attached_read_only_to_another_writer(
    workbench: Callable[..., ForgeApp], tmp_path: Path
) -> None:
    app = workbench("hello_world", watch=True)
    task = app.reader.path
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(task)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert writer.stdout is not None and writer.stdin is not None
    try:
        assert writer.stdout.readline().strip() == "locked"
        snapshots: list[SnapshotLoaded] = []
        failures: list[SnapshotFailed] = []

        def hook(message: Message) -> None:
            if isinstance(message, SnapshotLoaded):
                snapshots.append(message)
            elif isinstance(message, SnapshotFailed):
                failures.append(message)

        async with app.run_test(size=SIZE, message_hook=hook) as pilot:
            await settle(pilot)
            header = screen_text(app).splitlines()[0]
            assert "READ-ONLY" in header and f"pid {writer.pid}" in header
            assert app.workbench.has_class("-read-only")
            for action in ("single_step", "run_pause", "add_note", "answer"):
                assert not app.workbench.applies(action)
            await press(pilot, "s", "space")
            assert len(TaskFolder.open(task).log) == 0  # nothing stepped here

            writer.stdin.write("append\n")
            writer.stdin.flush()
            assert writer.stdout.readline().strip() == "appended"
            await wait_for(snapshots, pilot, lambda s: s.log_count == 6)
            text = screen_text(app)
            assert "listed dir3" in text and "6 records" in text

            writer.stdin.write("release\n")
            writer.stdin.flush()
            assert writer.stdout.readline().strip() == "released"
            await wait_for(snapshots, pilot, lambda s: not s.read_only)
            assert "READ-ONLY" not in screen_text(app).splitlines()[0]
            assert app.workbench.applies("single_step")

            # an editor saves working_memory.yaml: the pane follows; a broken save is reported
            # and the last good view stays
            note = {"type": "note", "key": "hand", "content": "edited by hand", "step": 0}
            memory = {"max_items": 5, "items": [note]}
            (task / "working_memory.yaml").write_text(yaml.safe_dump(memory))
            await wait_for(snapshots, pilot, lambda s: [m.summary for m in s.memory] == [
                "edited by hand"])  # fmt: skip
            assert "edited by hand" in screen_text(app)
            (task / "working_memory.yaml").write_text("items: [unclosed\n")
            await wait_for_message(failures, pilot)
            assert "edited by hand" in screen_text(app)
    finally:
        writer.kill()
        writer.wait()
