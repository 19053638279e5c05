"""Keys that do not apply stay in the footer (at widths with room for them) dimmer than the keys
that do, in every theme: on a complete task, run, step, answer and note read as off."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from textual.color import Color

from forgetui.engine import api
from forgetui.engine.start.samples import init_sample
from forgetui.tui.app import ForgeApp
from forgetui.tui.footer import KeyFooter

from .conftest import settle

pytestmark = pytest.mark.anyio


def contrast(text: Color, ground: Color) -> float:
    return abs(text.brightness - ground.brightness)


@pytest.mark.parametrize("theme", ["dark", "light", "high-contrast"])
@pytest.mark.parametrize("width", [100, 160])
async def test_keys_that_do_not_apply_are_dimmer_than_those_that_do(
    workbench: Callable[..., ForgeApp], quick_hello: Path, theme: str, width: int
) -> None:
    task = init_sample(quick_hello)
    api.run(task.path, until="complete")
    app = workbench(task.path, theme=theme)
    async with app.run_test(size=(width, 30)) as pilot:
        await settle(pilot)
        footer = app.workbench.query_one(KeyFooter)
        off = [key for key in footer.shown_keys if not key.enabled]
        assert {"run/pause", "step", "answer", "note"} & {key.description for key in off}

        enabled: list[float] = []
        disabled: list[float] = []
        for segment in footer.render_line(0):
            style, text = segment.style, segment.text.strip()
            if not text or style is None or style.color is None or style.bgcolor is None:
                continue
            ground = Color.from_rich_color(style.bgcolor)
            level = contrast(Color.from_rich_color(style.color), ground)
            if any(text == f"{key.display} {key.description}" for key in off):
                disabled.append(level)
            elif any(text == key.description for key in footer.shown_keys if key.enabled):
                enabled.append(level)
        assert disabled and enabled
        assert max(disabled) < 0.7 * min(enabled)  # clearly dimmer, not merely different
