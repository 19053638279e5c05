"""What the screen repaints as a running step's records arrive: the action log's changed lines
and its subtitle's line, not the whole pane (steps back to back send one such load per record,
and a key pressed meanwhile waits on every line painted); and the heap the app settled once its
first complete view was up, so later collections leave the startup objects alone."""

from __future__ import annotations

import gc
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from forgetui.tui import heap
from forgetui.tui.app import ForgeApp
from forgetui.tui.panes.action_log import ActionLogPane

from .conftest import settle
from .test_action_log import big_log_task, log_text

pytestmark = pytest.mark.anyio


def lines_painted(app: ForgeApp) -> list[set[int]]:
    """The screen lines each frame from now on writes to the terminal."""
    frames: list[set[int]] = []
    compositor = app.workbench._compositor
    render_update = compositor.render_update

    def recorded(*args: Any, **kwargs: Any) -> Any:
        update = render_update(*args, **kwargs)
        spans = getattr(update, "spans", None)
        frames.append({y for y, _, _ in spans} if spans is not None else {-1})
        return update

    compositor.render_update = recorded  # type: ignore[method-assign]
    return frames


async def test_a_records_arrival_repaints_its_row_and_the_subtitle_line_only(
    workbench: Callable[..., ForgeApp], tmp_path: Path
) -> None:
    app = workbench(big_log_task(tmp_path, 200))
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        pane = app.workbench.query_one(ActionLogPane)
        view = pane.view
        tail = tuple(view.rows[index] for index in range(view.count - 20, view.count))
        assert view.following and view.cursor == view.count - 1
        frames = lines_painted(app)

        # the newest step's result arrives: its row changes, and the record count
        changed = replace(tail[-1], summary="read module 200 again", result="failure")
        pane.show_log(view.records + 1, (*tail[:-1], changed))
        await pilot.pause()
        await pilot.pause()
        text = log_text(app)
        assert "read module 200 again" in text and "200 rows · 401 records" in text
        painted = set().union(*frames)
        assert len(painted) <= 3, painted  # the row, the subtitle's border line
        assert pane.region.bottom - 1 in painted

        # a new step's row: the log scrolls by a line, so the whole view repaints
        frames.clear()
        new = replace(changed, index=200, step=201, summary="read module 201")
        pane.show_log(view.records + 2, (*tail[1:-1], changed, new))
        await pilot.pause()
        await pilot.pause()
        assert "read module 201" in log_text(app) and view.cursor == 200
        assert len(set().union(*frames)) >= view.scrollable_content_region.height


async def test_the_heap_is_settled_once_the_first_complete_view_is_up(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert app.workbench.snapshot is not None and not app.workbench.snapshot.loading
        assert heap.settled()
        assert gc.get_freeze_count() > 0  # the startup objects are out of later collections
