"""Enter on a write_file or edit_file row opens on what the step did to the file: a unified diff
in the theme's colours (additions green, removals red, hunk heads dim), not the record's YAML."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.content import Content
from textual.widgets import Static, TabbedContent

from forgetui.tui.app import ForgeApp
from forgetui.tui.modals.record_detail import RecordDetailScreen
from forgetui.tui.panes.action_log import LogView

from .conftest import QUICK_CHECKS, SIZE, custom_sample, press, screen_text, settle

pytestmark = pytest.mark.anyio

EDIT = {"action": "edit_file", "args": {
    "path": "README.md", "old": "The smallest forgetui task", "new": "The first forgetui task",
}}  # fmt: skip
WRITE = {"action": "write_file", "args": {
    "path": "hello.py", "content": 'def main():\n    print("Hello, world!")\n\n\nmain()\n',
}}  # fmt: skip


@pytest.fixture
def edited(tmp_path: Path) -> Path:
    """hello_world whose step 1 edits README.md and step 2 writes hello.py."""
    return custom_sample(
        tmp_path, "hello_world", "edited", task={"checks": QUICK_CHECKS},
        replay=[EDIT, WRITE, {"action": "list_dir", "args": {"path": "."}}],
    )  # fmt: skip


async def open_step(pilot: Any, up: int) -> RecordDetailScreen:
    """After two steps, Enter on the row `up` rows above the newest."""
    await settle(pilot)
    await press(pilot, "s", "s")
    pilot.app.workbench.query_one(LogView).focus()
    await press(pilot, *["up"] * up, "enter")
    screen = pilot.app.screen
    assert isinstance(screen, RecordDetailScreen)
    return screen


def styles_of(content: Content, text: str) -> set[str]:
    """The styles spanning the line holding `text` in a rendered diff."""
    start = content.plain.index(text)
    return {str(span.style) for span in content.spans if span.start <= start < span.end}


async def test_an_edit_opens_on_its_coloured_diff(
    workbench: Callable[..., ForgeApp], edited: Path
) -> None:
    app = workbench(edited)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_step(pilot, 1)  # step 1: the edit
        assert screen.query_one(TabbedContent).active == "tab-diff"
        text = screen_text(app)
        assert "README.md (+1 -1)" in text
        assert "-The smallest forgetui task" in text and "+The first forgetui task" in text
        shown = screen.query_one(".record-file-diff", Static).visual
        assert isinstance(shown, Content)
        assert styles_of(shown, "+The first") == {"$success"}
        assert styles_of(shown, "-The smallest") == {"$error"}
        assert styles_of(shown, "@@ -1,3 +1,3 @@") == {"$foreground-muted"}
        await press(pilot, "escape")
        await press(pilot, "down", "enter")  # step 2: a new file, all additions
        text = screen_text(app)
        assert "hello.py (new file, +5 -0)" in text and '+    print("Hello, world!")' in text


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (160, 48)])
def test_file_diff_snapshot(
    snap_compare: Any, workbench: Callable[..., ForgeApp], edited: Path, size: tuple[int, int]
) -> None:
    app = workbench(edited)

    async def run_before(pilot: Any) -> None:
        await open_step(pilot, 1)
        app.clear_notifications()
        await settle(pilot)

    assert snap_compare(app, terminal_size=size, run_before=run_before)
