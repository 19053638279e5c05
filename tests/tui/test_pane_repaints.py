"""What a key or a step repaints in the panes: the lines that changed, not the pane. A key's
frame waits on everything painted with it, and while steps run back to back a pane repainted
whole at every step left the keys that much less of the UI thread."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from textual.geometry import Region

from forgetui.tui.app import ForgeApp
from forgetui.tui.panes.action_log import LogView
from forgetui.tui.panes.context import ContextPane
from forgetui.tui.panes.context_blocks import MessageBlock
from forgetui.tui.panes.memory import MemoryList, MemoryPane

from .conftest import SIZE, press, screen_text, settle
from .test_action_log import big_log_task
from .test_context_pane import context_as_sent

pytestmark = pytest.mark.anyio


def spans_painted(app: ForgeApp) -> list[tuple[int, int, int]]:
    """The (line, first column, end column) spans each frame from now on writes."""
    spans: list[tuple[int, int, int]] = []
    compositor = app.workbench._compositor
    render_update = compositor.render_update

    def recorded(*args: Any, **kwargs: Any) -> Any:
        update = render_update(*args, **kwargs)
        spans.extend(getattr(update, "spans", None) or [(-1, 0, 0)])
        return update

    compositor.render_update = recorded  # type: ignore[method-assign]
    return spans


def lines_in(spans: list[tuple[int, int, int]], region: Region) -> set[int]:
    """The lines of `region` written by these spans."""
    return {
        y for y, x1, x2 in spans
        if region.y <= y < region.bottom and x1 < region.right and x2 > region.x
    }  # fmt: skip


async def test_a_log_cursor_move_repaints_the_two_rows_it_moved_between(
    workbench: Callable[..., ForgeApp], tmp_path: Path
) -> None:
    app = workbench(big_log_task(tmp_path, 200))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = app.workbench.query_one(LogView)
        await press(pilot, "up", "up")  # off the newest row: the view does not scroll
        top = int(view.scroll_offset.y)
        row = view.cursor
        spans = spans_painted(app)
        await pilot.press("up")
        await pilot.pause()
        assert view.cursor == row - 1 and int(view.scroll_offset.y) == top
        region = view.content_region
        rows = Region(region.x, region.y, view.vertical_scrollbar.region.x - region.x, 16)
        assert lines_in(spans, rows) == {region.y + row - top, region.y + row - 1 - top}


async def test_a_step_starting_repaints_its_pending_line_only(
    workbench: Callable[..., ForgeApp], tmp_path: Path
) -> None:
    app = workbench(big_log_task(tmp_path, 5))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = app.workbench.query_one(LogView)
        spans = spans_painted(app)
        view.set_pending(6)
        await pilot.pause()
        await pilot.pause()
        region = view.content_region
        assert "in flight" in screen_text(app).splitlines()[region.y + 5]
        rows = Region(region.x, region.y, view.vertical_scrollbar.region.x - region.x, 16)
        assert lines_in(spans, rows) == {region.y + 5}  # the line after the five rows


async def test_new_memory_rows_repaint_the_list_and_the_subtitle_line_not_the_pane(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "s")
        pane = app.workbench.query_one(MemoryPane)
        rows = pane.rows
        assert rows, "a step leaves an item in memory"
        spans = spans_painted(app)
        pane.show_rows((*rows, replace(rows[0], ref="note@9", summary="a second item")))
        await pilot.pause()
        await pilot.pause()
        text = screen_text(app)
        assert "a second item" in text
        assert f"{len(rows) + 1} items, 0 pinned" in text
        listed = pane.query_one(MemoryList).region
        assert lines_in(spans, pane.region) <= set(range(listed.y, listed.bottom)) | {
            pane.region.bottom - 1
        }


async def test_the_messages_as_sent_stay_mounted_across_the_preview(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=SIZE) as pilot:
        await context_as_sent(app, pilot)
        pane = app.workbench.query_one(ContextPane)
        blocks = list(pane.query(MessageBlock))
        assert [block.role for block in blocks] == ["system", "user"]
        blocks[1].focus()
        await press(pilot, "right_square_bracket", "right_square_bracket")
        assert "compiled context: next step preview" in screen_text(app)
        assert "user message" not in screen_text(app)
        assert not isinstance(app.focused, MessageBlock)  # hidden blocks do not keep the keys
        assert not any(isinstance(block, MessageBlock) for block in pane.blocks())

        await press(pilot, "left_square_bracket")
        assert "as sent at step 3" in screen_text(app) and "user message" in screen_text(app)
        assert list(pane.query(MessageBlock)) == blocks  # the same blocks, filled again
