"""The context as sent at step N says why each memory item left since step N-1, in the words and
with the rule the engine recorded (FIFO, the budget's squeeze, the operator's evict), and what
each section gave up to fit its budget."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.tui.app import ForgeApp
from forgetui.tui.modals.record_detail import RecordDetailScreen
from forgetui.tui.panes.action_log import LogView
from forgetui.tui.panes.context import ContextPane

from ..engine.test_exclusions import DROPPED, excluding_run
from .conftest import SIZE, press, screen_text, settle

pytestmark = pytest.mark.anyio


@pytest.fixture
def run(tmp_path: Path) -> TaskFolder:
    return excluding_run(tmp_path)


async def page_to(pilot: Any, step: int) -> ContextPane:
    """From the preview back to the context as sent at `step` (the run recorded 9)."""
    await settle(pilot)
    await press(pilot, *["left_square_bracket"] * (10 - step))
    pane = pilot.app.workbench.query_one(ContextPane)
    assert pane.view is not None and pane.view.saved and pane.view.step == step
    return pane


def diff_lines(pane: ContextPane) -> list[str]:
    """The diff block as a user reads it, a line per entry (the screen wraps long ones)."""
    return str(pane.query_one("#context-diff", Static).content).splitlines()


async def test_each_departure_shows_its_reason_and_rule(
    workbench: Callable[..., ForgeApp], run: TaskFolder
) -> None:
    app = workbench(run.path)
    async with app.run_test(size=SIZE) as pilot:
        pane = await page_to(pilot, 7)
        assert diff_lines(pane) == [
            "changes since step 6",
            " + action_result@6  entered (added)",
            " + note@6  entered (operator)",
            " - action_result@3  left (pushed out) · memory holds at most 4 items: "
            "action_result@6 pushed it out",
            " - action_result@4  left (pushed out) · memory holds at most 4 items: "
            "note@6 pushed it out",
            f" - note@5  left (dropped for budget) · {DROPPED}",
            " ⇣ current_state  compressed: file content: first and last lines kept; errors and "
            "long texts cut to 500 characters; lists capped at 2 items; workspace tree dropped; "
            "1 memory item omitted",
        ]
        assert "current_state       ███████████░    229 / 240 ⇣" in screen_text(app)

        await press(pilot, "left_square_bracket", "left_square_bracket")
        assert diff_lines(pane)[1:] == [
            " + action_result@4  entered (added)",
            " - full_file:big.py  left (expired) · its term of 3 steps is over",
        ]  # no section was squeezed at step 5
        await press(pilot, "left_square_bracket")
        assert diff_lines(pane)[2:] == [
            " - action_result@2  left (evicted) · by the operator",
            " ⇣ current_state  compressed: file content: first and last lines kept",
        ]


async def test_the_step_detail_lists_what_its_context_left_out(
    workbench: Callable[..., ForgeApp], run: TaskFolder
) -> None:
    app = workbench(run.path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.workbench.query_one(LogView).focus()
        await press(pilot, "up", "up", "enter")  # step 7's row, from the newest (step 9)
        assert isinstance(app.screen, RecordDetailScreen)
        assert app.screen.detail.row.step == 7
        await press(pilot, "right", "right")  # the context as sent
        text = screen_text(app)
        assert "left out of this context" in text
        assert "note@5: dropped for budget · current_state over its 240-token" in text
        assert "compressed to fit" in text
        assert "current_state: file content: first and last lines kept; errors and" in text


def test_diff_reasons_snapshot(
    snap_compare: Any, workbench: Callable[..., ForgeApp], run: TaskFolder
) -> None:
    app = workbench(run.path)

    async def run_before(pilot: Any) -> None:
        pane = await page_to(pilot, 7)
        await press(pilot, "1", "z")  # the context pane, zoomed, scrolled to the diff
        pane.scroll_to_widget(pane.query_one("#context-diff"), top=True, animate=False)
        await settle(pilot)
        app.clear_notifications()

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
