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


async def test_a_command_s_undone_change_is_a_notice_of_its_own(
    workbench: Callable[..., ForgeApp], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In allow-list mode a command that writes project memory has it put back; the operator
    sees a warning titled for what happened, not for the context's size."""
    monkeypatch.setenv("FORGETUI_SANDBOX", "allow-list")
    plant = (
        "import os; os.makedirs('.agentforge/memory', exist_ok=True); "
        "open('.agentforge/memory/lessons.yaml', 'w').write('- id: lesson-1\\n  text: x\\n')"
    )
    step = {"action": "run_cmd", "args": {"cmd": ["python", "-c", plant]}}
    sample = custom_sample(tmp_path, "hello_world", "planting", replay=[step])
    app = workbench(sample)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        undone = [n for n in app.notices.newest_first() if "undone" in n.text]
        assert len(undone) == 1 and undone[0].severity == "warning"
        assert undone[0].title == "Undone" and "lessons.yaml" in undone[0].text
