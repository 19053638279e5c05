"""What the workbench offers when it cannot act: a read-only attach's footer leaves out what it
can never do; a finished task shows nothing leaving at a next step it will not take, and its
memory refuses every change with the engine's one reason."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.tui.app import ForgeApp
from forgetui.tui.footer import KeyFooter

from .conftest import QUICK_CHECKS, SIZE, custom_sample, press, screen_text, settle
from .test_attach import WRITER

pytestmark = pytest.mark.anyio


def footer_words(app: ForgeApp) -> set[str]:
    return {key.description for key in app.workbench.query_one(KeyFooter).keys}


async def test_a_read_only_footer_offers_only_what_applies(
    workbench: Callable[..., ForgeApp],
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
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            await settle(pilot)
            assert app.workbench.has_class("-read-only")
            words = footer_words(app)
            assert not words & {"run/pause", "step", "answer", "pin", "evict", "note", "edit"}
            assert {"zoom", "help", "quit"} <= words
            await press(pilot, "n")  # the key still says why, though the footer left it out
            assert any("only watches" in n.message for n in app._notifications)
            assert len(TaskFolder.open(task).log) == 0

            writer.stdin.write("release\n")
            writer.stdin.flush()
            assert writer.stdout.readline().strip() == "released"
            for _ in range(200):
                if not app.workbench.has_class("-read-only"):
                    break
                await settle(pilot, 20)
            await settle(pilot)
            assert {"run/pause", "step", "note"} <= footer_words(app)
    finally:
        writer.kill()
        writer.wait()


def crowded_hello(tmp_path: Path) -> Path:
    """quick_hello whose memory holds 2 items: every preview has an item leaving (pushed out)."""
    sample = custom_sample(tmp_path, "hello_world", "crowded", task={"checks": QUICK_CHECKS})
    memory = {"max_items": 2, "items": [
        {"type": "note", "key": "old", "step": 0, "content": "the oldest note"},
        {"type": "note", "key": "older", "step": 0, "content": "another note"},
    ]}  # fmt: skip
    (sample / "working_memory.yaml").write_text(yaml.safe_dump(memory))
    return sample


async def test_a_finished_task_shows_nothing_leaving_and_keeps_its_memory(
    workbench: Callable[..., ForgeApp], tmp_path: Path
) -> None:
    app = workbench(crowded_hello(tmp_path))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        assert "leaving at the next step" in screen_text(app)
        await press(pilot, "space")
        while app.workbench.running:
            await settle(pilot)
        folder = TaskFolder.open(app.reader.path)
        assert folder.load_state().status == "complete"
        assert "leaving at the next step" not in screen_text(app)

        memory = (folder.path / "working_memory.yaml").read_bytes()
        await press(pilot, "2")  # the memory pane, its first item selected
        assert not app.workbench.applies("toggle_pin")
        assert "pin" not in {k.description for k in app.workbench.query_one(KeyFooter).keys
                             if k.enabled}  # fmt: skip
        await press(pilot, "p", "x", "n")
        messages = [n.message for n in app._notifications]
        assert messages.count("the task is complete: rewind or fork to change its memory") == 3
        assert (folder.path / "working_memory.yaml").read_bytes() == memory
