"""The context pane's total says the cap of the task's type: a fix_violation task's is 6,000."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from forgetui.engine import api
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.tui.app import ForgeApp

from .conftest import SIZE, custom_sample, screen_text, settle

pytestmark = pytest.mark.anyio


async def test_a_fix_violation_context_reads_of_6000(
    workbench: Callable[..., ForgeApp], tmp_path: Path
) -> None:
    sample = custom_sample(tmp_path, "fix_violation", "capped")
    app = workbench(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        expected = api.preview_context(TaskFolder.open(app.reader.path))
        assert expected.max_tokens == 6000
        assert f"total {expected.total_tokens:,} of 6,000 tokens" in screen_text(app)


async def test_the_90_percent_alert_is_one_notice(
    workbench: Callable[..., ForgeApp], tmp_path: Path
) -> None:
    """hello_world under a 1,000-token cap: its context crosses 90% and stays there; the
    workbench says so once, in a warning notice kept in the message history."""
    sample = custom_sample(tmp_path, "hello_world", "tight", task={"limits": {"max_tokens": 1000}})
    app = workbench(sample)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        for _ in range(3):
            await pilot.press("s")
            await settle(pilot)
        alerts = [n for n in app.notices.newest_first() if "of its 1,000-token cap" in n.text]
        assert len(alerts) == 1 and alerts[0].severity == "warning"
