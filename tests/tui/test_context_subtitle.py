"""The compiled-context pane's subtitle offers `[` (the context as sent before) only once a
step has been sent: at step 0 there is nothing earlier to show."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from forgetui.tui.app import ForgeApp
from forgetui.tui.panes.context import ContextPane

from .conftest import press, screen_text, settle

pytestmark = pytest.mark.anyio


def pane_lines(app: ForgeApp) -> list[str]:
    """The context pane as on screen, its borders (title, subtitle) included."""
    region = app.workbench.query_one(ContextPane).region
    lines = screen_text(app).splitlines()[region.y : region.bottom]
    return [line[region.x : region.right] for line in lines]


async def test_the_earlier_context_hint_waits_for_a_sent_step(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert app.workbench.snapshot is not None and app.workbench.snapshot.step == 0
        assert "next step preview" in pane_lines(app)[0]
        assert "[" not in pane_lines(app)[-1]  # the bottom border: no hint of an earlier step

        await press(pilot, "s")
        assert app.workbench.snapshot.step == 1
        assert "[ as sent before" in pane_lines(app)[-1]
        await press(pilot, "left_square_bracket")  # the hint's key does what it says
        assert "as sent at step 1" in pane_lines(app)[0]
