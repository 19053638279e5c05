"""The header names the model that steps the task: while another process runs it, that
process's model (its last step's, else its command line's), not this workbench's own."""

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

from forgetui.tui.app import ForgeApp
from forgetui.tui.header import StatusHeader
from forgetui.tui.messages import SnapshotLoaded

from .conftest import SIZE, settle

pytestmark = pytest.mark.anyio

# Holds the task lock under a given command line; records a step answered by a given model
# when told.
WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from forgetui.engine.base.clock import now_iso
    from forgetui.engine.folder.records import IntentRecord, ResultRecord
    from forgetui.engine.folder.task_folder import TaskFolder

    folder = TaskFolder.open(Path(sys.argv[1]))
    folder.acquire(sys.argv[2])
    print("locked", flush=True)
    for line in sys.stdin:
        model = line.strip()
        folder.log.append(IntentRecord(step=1, at=now_iso(), action="list_dir",
                                       args={"path": "."}, model=model))
        folder.log.append(ResultRecord(step=1, at=now_iso(), action="list_dir",
                                       args={"path": "."}, result="success", summary="listed"))
        print("appended", flush=True)
    """
)


def header(app: ForgeApp) -> str:
    return app.workbench.query_one(StatusHeader).render_line(0).text


@pytest.mark.parametrize(
    "command, named",
    [("forgetui run TASK --model human", "model human"), ("forgetui run TASK", "model replay")],
)
async def test_the_header_names_the_running_process_s_model(
    workbench: Callable[..., ForgeApp], tmp_path: Path, command: str, named: str
) -> None:
    script = tmp_path / "mine.yaml"
    script.write_text(yaml.safe_dump([{"action": "list_dir", "args": {"path": "."}}]))
    app = workbench("hello_world", watch=True, model=f"replay:{script}")
    task = app.reader.path
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(task), command.replace("TASK", str(task))],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert writer.stdout is not None and writer.stdin is not None
    try:
        assert writer.stdout.readline().strip() == "locked"
        loaded: list[SnapshotLoaded] = []

        def hook(message: Message) -> None:
            if isinstance(message, SnapshotLoaded):
                loaded.append(message)

        async with app.run_test(size=SIZE, message_hook=hook) as pilot:
            await settle(pilot)
            assert "READ-ONLY" in header(app)
            assert named in header(app) and "mine.yaml" not in header(app)
            # a step it records names the model that answered it
            writer.stdin.write("openai/gpt-test\n")
            writer.stdin.flush()
            assert writer.stdout.readline().strip() == "appended"

            async def steps_shown() -> None:
                while not any(m.snapshot.log_count == 2 for m in loaded):
                    await asyncio.sleep(0.02)

            await asyncio.wait_for(steps_shown(), timeout=15)
            await settle(pilot)
            assert "model openai/gpt-test" in header(app)
    finally:
        writer.kill()
        writer.wait()


async def test_the_workbench_s_own_model_when_it_writes(
    workbench: Callable[..., ForgeApp], tmp_path: Path
) -> None:
    script = tmp_path / "mine.yaml"
    script.write_text(yaml.safe_dump([{"action": "list_dir", "args": {"path": "."}}]))
    app = workbench("hello_world", model=f"replay:{script}")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "model replay:mine.yaml" in header(app)
