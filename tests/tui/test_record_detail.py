"""The log record detail modal: the full record, the model's raw response and the context as
sent at that step."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from forgetui.tui.app import ForgeApp
from forgetui.tui.modals.record_detail import RecordDetailScreen
from forgetui.tui.panes.action_log import LogView

from .conftest import SIZE, press, screen_text, settle

pytestmark = pytest.mark.anyio


async def test_detail_shows_record_raw_response_and_context(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "s", "s", "s")
        view = app.workbench.query_one(LogView)
        view.focus()
        await press(pilot, "enter")  # step 3's row: its result, with its intent's fields
        assert isinstance(app.screen, RecordDetailScreen)
        text = screen_text(app)  # a write opens on what it did to the file
        assert "step 3 result write_file" in text
        assert "hello.py (new file, +1 -0)" in text and '+print("Hello, world!")' in text
        await press(pilot, "right")  # the record itself
        text = screen_text(app)
        assert "action: write_file" in text and "context_tokens:" in text
        await press(pilot, "right")  # the model's raw response, as it came
        assert "I'll write it." in screen_text(app)
        await press(pilot, "right")  # the context as sent
        text = screen_text(app)
        assert "system message" in text and "You are the agent" in text
        await press(pilot, "escape")
        assert not isinstance(app.screen, RecordDetailScreen)


def test_an_operator_record_has_no_model_context(quick_hello: Path) -> None:
    from forgetui.engine import api
    from forgetui.engine.start.samples import init_sample
    from forgetui.tui.snapshot import TaskReader

    folder = init_sample(quick_hello)
    api.add_note(folder, "prefer [pathlib]")
    detail = TaskReader(folder.path).record_detail(0)
    assert (detail.row.kind, detail.row.action, detail.row.summary) == (
        "operator", "operator:note", "prefer [pathlib]",
    )  # fmt: skip
    assert detail.raw_response is None and detail.context_messages == ()
    assert detail.context_note == "an operator change: no model call, no context"
    assert "op: note" in detail.record_yaml
