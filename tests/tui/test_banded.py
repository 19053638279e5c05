"""The workbench's frames render band by band (tui/banded.py): what they write to the terminal is
what Textual's own partial update writes for the same changed regions, and a frame changing
the header and one log row renders those lines, not every widget between them."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual._compositor import Compositor
from textual.geometry import Region
from textual.widget import Widget

from forgetui.tui.app import ForgeApp
from forgetui.tui.banded import BandedCompositor, bands
from forgetui.tui.panes.action_log import LogView
from forgetui.tui.panes.memory import MemoryPane

from .conftest import SIZE, settle
from .test_action_log import big_log_task

pytestmark = pytest.mark.anyio


def test_bands_merge_regions_whose_lines_touch() -> None:
    merged = list(bands([Region(0, 0, 10, 1), Region(5, 1, 10, 2), Region(0, 10, 4, 1)]))
    assert merged == [Region(0, 0, 15, 3), Region(0, 10, 4, 1)]
    assert list(bands([])) == []


def written(compositor: Compositor, regions: list[Region], app: ForgeApp, banded: bool) -> str:
    """What a partial update of `regions` writes to the terminal."""
    compositor._dirty_regions.update(regions)
    update = compositor.render_update() if banded else Compositor.render_partial_update(compositor)
    assert update is not None
    return update.render_segments(app.console)  # type: ignore[attr-defined]


async def test_a_banded_frame_writes_what_textual_writes(
    workbench: Callable[..., ForgeApp], tmp_path: Path
) -> None:
    app = workbench(big_log_task(tmp_path, 40))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        compositor = app.workbench._compositor
        assert isinstance(compositor, BandedCompositor)
        screen = app.workbench
        log = screen.query_one(LogView).region
        memory = screen.query_one(MemoryPane).region
        cases = [
            [Region(0, 0, SIZE[0], 1), Region(log.x, log.y + 3, log.width, 1)],  # header, a row
            [memory, Region(0, SIZE[1] - 1, SIZE[0], 1)],  # a whole pane and the footer
            [Region(log.right - 1, log.y, 1, log.height), Region(log.x, log.y, 20, 2)],
        ]
        rng = random.Random(7)
        for _ in range(30):
            cases.append([
                Region(x, y, rng.randint(1, SIZE[0] - x), rng.randint(1, min(6, SIZE[1] - y)))
                for x, y in ((rng.randrange(SIZE[0]), rng.randrange(SIZE[1]))
                             for _ in range(rng.randint(1, 5)))
            ])  # fmt: skip
        for regions in cases:
            assert written(compositor, regions, app, banded=True) == written(
                compositor, regions, app, banded=False
            ), regions


async def test_a_frame_of_the_header_and_one_row_renders_those_lines(
    workbench: Callable[..., ForgeApp], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = workbench(big_log_task(tmp_path, 40))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        compositor = app.workbench._compositor
        log = app.workbench.query_one(LogView).region
        rendered: list[tuple[str, int]] = []
        render_lines = Widget.render_lines

        def counted(widget: Widget, crop: Region) -> Any:
            rendered.append((widget.id or type(widget).__name__, crop.height))
            return render_lines(widget, crop)

        monkeypatch.setattr(Widget, "render_lines", counted)
        compositor._dirty_regions.update(
            [Region(0, 0, SIZE[0], 1), Region(log.x, log.y + 3, log.width, 1)]
        )
        assert compositor.render_update() is not None
        # the header's line and the row's line, each by the widgets in front (the row's line
        # crosses the log's scrollbar and the pane's borders): none between them, none behind
        shown = {"status-header", "log-view", "ScrollBar", "action-log"}
        assert {name for name, _ in rendered} <= shown
        assert sum(lines for _, lines in rendered) <= len(shown)
