"""Keys that arrive together (a paste, a terminal sending several at once, a fast typist) each
count: a pane key then arrows, or several arrows then Enter, land where the same keys one at a
time would. Pilot's `press` lets the app go idle between keys; `burst` queues them all first,
the way a terminal's read hands them over."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual import events

from forgetui.tui.app import ForgeApp
from forgetui.tui.panes.context import ContextPane
from forgetui.tui.panes.memory import MemoryList

from .conftest import SIZE, press, settle

pytestmark = pytest.mark.anyio

SECTIONS = [
    "system_prompt", "task_frame", "current_state", "recent_actions", "verification_status",
    "available_actions",
]  # fmt: skip


async def burst(pilot: Any, *keys: str) -> None:
    """Queue every key before the app handles the first, then let it catch up."""
    app = pilot.app
    for key in keys:
        event = events.Key(key, key if len(key) == 1 else None)
        event.set_sender(app)
        app._driver.send_message(event)
    await settle(pilot)


def focused_section(app: ForgeApp) -> str | None:
    block = app.workbench.query_one(ContextPane).focused_block()
    return block.id.removeprefix("section-") if block is not None and block.id else None


@pytest.mark.parametrize("size", [SIZE, (80, 24)])
async def test_a_pane_key_and_arrows_sent_together_all_count(
    workbench: Callable[..., ForgeApp], quick_hello: Path, size: tuple[int, int]
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await burst(pilot, "1", "home", "down", "down", "down", "down")
        assert focused_section(app) == SECTIONS[4]
        await burst(pilot, "home", "down", "down", "enter")
        assert focused_section(app) == SECTIONS[2]
        pane = app.workbench.query_one(ContextPane)
        opened = [block.id for block in pane.blocks() if block.expanded]
        assert opened == [f"section-{SECTIONS[2]}"]  # not the one two keys before

        # leaving and coming back in one burst: the section last visited, then on from it
        await burst(pilot, "escape", "2", "1", "up")
        assert focused_section(app) == SECTIONS[1]


async def test_the_memory_pane_takes_its_key_and_arrows_together(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "s", "s", "s")  # a few memory items
        memory = app.workbench.query_one(MemoryList)
        assert len(memory.items) >= 3
        await burst(pilot, "2", "end", "up", "up")
        assert app.workbench.focused is memory
        assert memory.cursor == len(memory.items) - 3
