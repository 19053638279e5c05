"""The memory item detail modal: the item in full, edited in place, and its snapshot."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.tui.app import ForgeApp
from forgetui.tui.modals.memory_detail import MemoryDetailScreen
from forgetui.tui.panes.memory import MemoryList

from .conftest import SIZE, press, screen_text, settle


async def open_detail(app: ForgeApp, pilot: Any) -> None:
    await settle(pilot)
    await press(pilot, "s", "s")
    app.workbench.query_one(MemoryList).focus()
    await press(pilot, "down", "enter")


@pytest.mark.anyio
async def test_memory_detail_shows_the_item_and_edits_it(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=SIZE) as pilot:
        await open_detail(app, pilot)
        assert isinstance(app.screen, MemoryDetailScreen)
        text = screen_text(app)
        assert "Memory item action_result@2" in text
        assert "read test_hello.py lines 1-12 of 12" in text
        assert "def test_prints_greeting" in text or "test_hello" in text
        await press(pilot, "e")
        editor = app.screen.query_one("#memory-editor")
        assert "summary: read test_hello.py lines 1-12 of 12" in editor.text  # type: ignore[attr-defined]
        editor.text = editor.text.replace(  # type: ignore[attr-defined]
            "summary: read test_hello.py lines 1-12 of 12",
            "summary: test_hello.py expects the greeting on stdout",
        )
        await press(pilot, "ctrl+s")
        assert not isinstance(app.screen, MemoryDetailScreen)
        memory = TaskFolder.open(app.reader.path).load_memory()
        content = memory.items[1].content
        assert isinstance(content, dict)  # a result's fields stay fields
        assert content["summary"] == "test_hello.py expects the greeting on stdout"
        assert operator_ops(app) == ["edit"]
        assert "summary: test_hello.py exp" in screen_text(app)  # the edit, in the log


def operator_ops(app: ForgeApp) -> list[str]:
    log = TaskFolder.open(app.reader.path).log
    return [r.op for r in log.records() if r.kind == "operator"]


def test_memory_detail_snapshot(
    snap_compare: Any, workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)

    async def run_before(pilot: Any) -> None:
        await open_detail(app, pilot)
        app.clear_notifications()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
