"""The action log pane: a Line API view that renders only what is on screen, loads windows of
a 10,000-record log by index, follows new rows, and opens a record's full detail."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from forgetui.engine.actionlog import encode_record
from forgetui.engine.clock import now_iso
from forgetui.engine.records import IntentRecord, ResultRecord
from forgetui.engine.samples import init_sample
from forgetui.tui.app import ForgeApp
from forgetui.tui.panes.action_log import CACHE_ROWS, LogView
from forgetui.tui.snapshot import TAIL_ROWS

from .conftest import SIZE, press, screen_text, settle

pytestmark = pytest.mark.anyio


def big_log_task(root: Path, steps: int) -> Path:
    """A hello_world instance whose log holds 2 * steps records, written in one go."""
    folder = init_sample("hello_world", into=root / "big")
    with open(folder.path / "actions.yaml", "wb") as log:
        for step in range(1, steps + 1):
            args = {"path": f"src/module_{step:05d}.py"}
            log.write(
                encode_record(
                    IntentRecord(
                        step=step,
                        at=now_iso(),
                        action="read_file",
                        args=args,
                        context_tokens=1000 + step,
                    )
                )
            )
            log.write(encode_record(ResultRecord(step=step, at=now_iso(), action="read_file",
                                                 args=args, result="success",
                                                 summary=f"read module {step}")))  # fmt: skip
    return folder.path


async def test_a_big_log_loads_only_the_rows_on_screen(
    workbench: Callable[..., ForgeApp], tmp_path: Path
) -> None:
    app = workbench(big_log_task(tmp_path, 5000))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = app.workbench.query_one(LogView)
        assert view.count == 10_000
        assert len(view.rows) <= TAIL_ROWS  # the tail came with the snapshot, nothing more
        assert view.cursor == 9_999  # following the newest row
        assert "read module 5000" in screen_text(app)

        view.focus()
        await press(pilot, "home")
        assert view.cursor == 0
        assert "read module 1" in screen_text(app)
        assert "…" not in screen_text(app)  # the window arrived
        assert len(view.rows) < 3 * TAIL_ROWS

        await press(pilot, *["pagedown"] * 3)
        assert view.cursor > 0
        assert not view.following
        assert len(view.rows) <= CACHE_ROWS


async def test_new_rows_are_followed(workbench: Callable[..., ForgeApp], quick_hello: Path) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = app.workbench.query_one(LogView)
        assert "no actions yet" in screen_text(app)
        await press(pilot, "s")
        assert view.count == 2 and view.cursor == 1
        view.focus()
        await press(pilot, "up")  # the user moved: stop following
        await press(pilot, "s")
        assert view.count == 4 and view.cursor == 0
        await press(pilot, "end", "s")
        assert view.count == 6 and view.cursor == 5  # back at the end: follow again
        text = screen_text(app)
        assert "wrote hello.py (1 line, new file)" in text
