"""Help fills the terminal at every size and scrolls; its keys, titles and texts sit in aligned
columns, grouped (everywhere, moving around, each pane), with the keys starting near the top
even at 80x24 (the words on how the workbench works come after them)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from forgetui.tui.app import ForgeApp
from forgetui.tui.modals.help import HelpScreen

from .conftest import press, settle

pytestmark = pytest.mark.anyio
SIZES = [(80, 24), (120, 40), (160, 48)]


def open_help(app: ForgeApp) -> None:
    """Help without the machine's paths (the task folder, the interpreter), so a snapshot is
    the same everywhere; the sandbox line is the fixture's."""
    snapshot = app.workbench.snapshot
    sandbox = snapshot.sandbox if snapshot is not None else None
    app.push_screen(HelpScreen(app.settings.keymap, app.command_applies, sandbox=sandbox))


@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
async def test_help_fills_the_screen_with_aligned_grouped_keys(
    workbench: Callable[..., ForgeApp], quick_hello: Path, size: tuple[int, int]
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await press(pilot, "question_mark")
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        dialog = help_screen.query_one("#help-dialog")
        assert (dialog.region.width, dialog.region.height) == size
        headings = [str(h.render()) for h in help_screen.query(".help-group").results(Static)]
        assert headings == ["Everywhere", "Moving around", "context pane", "memory pane",
                            "verification pane", "action log pane"]  # fmt: skip
        rows = list(help_screen.query(".help-row"))
        shown = [row for row in rows if row.region.height and row.region.y < size[1]]
        assert len(shown) >= 6  # keys, not an introduction, fill the first screen
        intro = help_screen.query_one("#help-intro")
        assert intro.virtual_region.y > rows[-1].virtual_region.y  # the words come last
        # aligned: every row's key, title and text start in the same columns
        starts = {tuple(child.region.x for child in row.children if child.display) for row in rows}
        assert len(starts) == 1
        # it scrolls to its end
        body = help_screen.query_one("#help-body")
        await press(pilot, "end")
        assert body.scroll_y == body.max_scroll_y
        assert body.max_scroll_y > 0 or size != (80, 24)
        await press(pilot, "escape")
        assert not isinstance(app.screen, HelpScreen)


@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
def test_help_snapshot(
    snap_compare: Any, workbench: Callable[..., ForgeApp], quick_hello: Path,
    size: tuple[int, int],
) -> None:  # fmt: skip
    app = workbench(quick_hello)

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        open_help(pilot.app)
        await settle(pilot)

    assert snap_compare(app, terminal_size=size, run_before=run_before)
