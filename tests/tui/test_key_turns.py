"""Keys while the workbench applies a reload: a reloaded task goes on the panes one pane per
turn, so a key pressed meanwhile is answered between two panes; the state that decides which
keys apply is read once per key; the context pane's title repaints its own line."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from textual import events

from forgetui.tui import now_applies
from forgetui.tui.app import ForgeApp
from forgetui.tui.messages import SnapshotLoaded
from forgetui.tui.pane_title import set_pane_title
from forgetui.tui.panes.action_log import LogView
from forgetui.tui.panes.context import ContextPane
from forgetui.tui.panes.task_frame import TaskFramePane

from .conftest import SIZE, press, screen_text, settle
from .test_action_log import big_log_task
from .test_pane_repaints import lines_in, spans_painted

pytestmark = pytest.mark.anyio


async def test_a_key_pressed_while_a_reload_is_applied_moves_the_cursor_before_the_last_pane(
    workbench: Callable[..., ForgeApp], tmp_path: Path
) -> None:
    app = workbench(big_log_task(tmp_path, 50))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.workbench
        view = screen.query_one(LogView)
        await press(pilot, "up", "up")
        row = view.cursor
        frame = screen.query_one(TaskFramePane)
        cursor_when_framed: list[int] = []
        show = frame.show_snapshot

        def framed(snapshot: Any) -> None:
            cursor_when_framed.append(view.cursor)
            show(snapshot)

        frame.show_snapshot = framed  # type: ignore[method-assign]
        assert screen.snapshot is not None
        reloaded = replace(screen.snapshot, goal="a goal edited elsewhere")
        screen.post_message(SnapshotLoaded(reloaded))  # the header, memory and frame change
        app.post_message(events.Key("up", None))  # pressed while it is applied
        await settle(pilot)
        assert view.cursor == row - 1
        assert cursor_when_framed == [row - 1]  # the frame, last, came after the key
        assert "a goal edited elsewhere" in screen_text(app)


async def test_a_reload_leaves_the_panes_whose_part_did_not_change(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.workbench
        frame = screen.query_one(TaskFramePane)
        framed: list[object] = []
        show = frame.show_snapshot
        frame.show_snapshot = lambda snapshot: (framed.append(snapshot), show(snapshot))  # type: ignore[method-assign]
        await press(pilot, "s")  # a step: the log, memory and context change; the goal not
        assert screen.snapshot is not None and screen.snapshot.step == 1
        assert "listed .: 0 dirs, 2 files" in screen_text(app)
        assert framed == []


async def test_a_key_that_does_not_apply_reads_what_applies_once_per_look_and_says_why(
    workbench: Callable[..., ForgeApp], quick_hello: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        reads: list[object] = []
        read = now_applies.read_situation

        def counted(screen: Any) -> Any:
            reads.append(screen)
            return read(screen)

        monkeypatch.setattr(now_applies, "read_situation", counted)
        await pilot.press("a")  # no question waits for an answer
        await pilot.pause()
        [note] = [n for n in app._notifications if n.title.startswith("answer")]
        assert note.title == "answer: not now" and note.message
        # once for the listing of every key (which also says why), once as Textual gates the
        # binding's own action: the state may change between the two (they are two messages)
        assert len(reads) == 2


async def test_a_context_title_change_repaints_its_line_only(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        pane = app.workbench.query_one(ContextPane)
        spans = spans_painted(app)
        set_pane_title(pane, "compiled context: as sent at step 9")
        await pilot.pause()
        await pilot.pause()
        assert "compiled context: as sent at step 9" in screen_text(app)
        assert lines_in(spans, pane.region) == {pane.region.y}
