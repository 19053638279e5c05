"""The task frame pane: goal, criteria with pass marks from the checks naming them, phase,
constraints and the plan tree."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from forgetui.tui.app import ForgeApp

from .conftest import SIZE, custom_sample, press, settle

pytestmark = pytest.mark.anyio

PLAN = {
    "goal": "greet the world",
    "tasks": [
        {"title": "write the script", "subtasks": [{"title": "create hello.py"},
                                                   {"title": "print the greeting"}]},
        {"title": "verify", "subtasks": [{"title": "run the checks"}]},
    ],
}  # fmt: skip


def frame_text(app: ForgeApp) -> str:
    return str(app.workbench.query_one("#task-frame-body").render())


async def test_criteria_marks_follow_the_checks(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        text = frame_text(app)
        assert "Goal Write hello.py" in text
        assert "✗ hello.py exists in the workspace" in text  # checked when laid out: missing
        assert "Phase planning › execution › verification  (generic)" in text
        assert "• Do not edit test_hello.py." in text
        await press(pilot, "s", "s", "s")  # writes hello.py: verification runs
        text = frame_text(app)
        assert "✓ hello.py exists in the workspace" in text
        assert '✓ running `python hello.py` prints exactly "Hello, world!"' in text


async def test_the_plan_tree_marks_the_current_subtask(
    workbench: Callable[..., ForgeApp], tmp_path: Path
) -> None:
    sample = custom_sample(
        tmp_path, "hello_world", "planned", task={"plan": PLAN},
        replay=[{"action": "mark_subtask_complete", "args": {"success": True, "reason": "ok"}}],
    )  # fmt: skip
    app = workbench(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "· create hello.py ← now" in frame_text(app)
        await press(pilot, "s")
        text = frame_text(app)
        assert "✓ create hello.py" in text
        assert "· print the greeting ← now" in text
        assert " ▸ verify" in text
