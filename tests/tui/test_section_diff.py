"""Paging through the contexts as sent (`[`), Enter on a section opens it as sent at that step,
and `d` flips between its full text and its diff against the same section at the step before."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.content import Content
from textual.widgets import Static

from forgetui.tui.app import ForgeApp
from forgetui.tui.panes.context import ContextPane
from forgetui.tui.panes.context_blocks import ContextSection
from forgetui.tui.section_diff import SectionDiffScreen

from .conftest import SIZE, press, screen_text, settle

pytestmark = pytest.mark.anyio


async def open_section(pilot: Any, name: str) -> SectionDiffScreen:
    """After three steps, back to the context as sent at step 3, Enter on section `name`."""
    await settle(pilot)
    await press(pilot, "s", "s", "s", "left_square_bracket")
    pane = pilot.app.workbench.query_one(ContextPane)
    assert pane.view is not None and pane.view.saved and pane.view.step == 3
    pane.query_one(f"#section-{name}", ContextSection).focus()
    await press(pilot, "enter")
    screen = pilot.app.screen
    assert isinstance(screen, SectionDiffScreen)
    await settle(pilot)
    return screen


async def test_enter_opens_the_section_and_d_shows_its_diff(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_section(pilot, "recent_actions")
        text = screen_text(app)
        assert "recent_actions as sent at step 3" in text
        assert "full text," in text and "recent_actions:" in text
        await press(pilot, "d")
        text = screen_text(app)
        assert "diff against the same section at step 2 (+" in text
        assert "--- recent_actions at step 2" in text and "+++ recent_actions at step 3" in text
        body = screen.query_one("#section-diff-body", Static).visual
        assert isinstance(body, Content)
        added = next(line for line in body.plain.splitlines()[2:] if "read_file" in line)
        assert added.startswith("+")  # step 2's read_file entered the recent actions
        start = body.plain.index(added)
        assert {str(s.style) for s in body.spans if s.start <= start < s.end} == {"$success"}
        await press(pilot, "d")
        assert "full text," in screen_text(app)
        await press(pilot, "escape")
        assert not isinstance(app.screen, SectionDiffScreen)


async def test_the_next_steps_preview_still_expands_in_place(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        section = app.workbench.query_one("#section-task_frame", ContextSection)
        section.focus()
        await press(pilot, "enter")
        assert not isinstance(app.screen, SectionDiffScreen)
        assert section.has_class("-expanded")


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (160, 48)])
def test_section_diff_snapshot(
    snap_compare: Any, workbench: Callable[..., ForgeApp], quick_hello: Path,
    size: tuple[int, int],
) -> None:  # fmt: skip
    app = workbench(quick_hello)

    async def run_before(pilot: Any) -> None:
        await open_section(pilot, "recent_actions")
        await press(pilot, "d")
        app.clear_notifications()
        await settle(pilot)

    assert snap_compare(app, terminal_size=size, run_before=run_before)
