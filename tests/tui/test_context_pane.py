"""The compiled-context pane: meters against budgets, sections expanding to their exact text,
and the context as sent at step N with why memory changed since N-1."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.color import Color
from textual.widgets import Static

from forgetui.engine import api
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.tui.app import ForgeApp
from forgetui.tui.panes.context import ContextPane
from forgetui.tui.panes.context_blocks import ContextSection, meter_bar
from forgetui.tui.snapshot import meter_level

from .conftest import SIZE, custom_sample, press, screen_text, settle, type_into

pytestmark = pytest.mark.anyio


def test_meter_levels_and_bars() -> None:
    assert meter_level(10, 100) == "ok"
    assert meter_level(85, 100) == "warn"
    assert meter_level(100, 100) == "warn"
    assert meter_level(101, 100) == "over"
    assert meter_bar(50, 100, width=10) == "█████░░░░░"
    assert meter_bar(1, 1000, width=10) == "█░░░░░░░░░"  # never looks empty when not
    assert meter_bar(300, 100, width=10) == "█" * 10


async def test_meters_match_the_engine_preview_and_warn_near_budget(
    workbench: Callable[..., ForgeApp], tmp_path: Path
) -> None:
    sample = custom_sample(
        tmp_path, "hello_world", "tight",
        task={"limits": {"max_steps": 20, "token_budget": {"task_frame": 125}}},
    )  # fmt: skip
    app = workbench(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        expected = api.preview_context(TaskFolder.open(app.reader.path))
        text = screen_text(app)
        for section in expected.sections:
            assert f"{section.tokens:,} / {section.budget:,}" in text
        task_frame = app.workbench.query_one("#section-task_frame", ContextSection)
        assert task_frame.has_class("-near-budget")  # 118 of 125
        assert meter_colour(task_frame) == theme_colour(app, "meter-warn")
        system = app.workbench.query_one("#section-system_prompt", ContextSection)
        assert meter_colour(system) == theme_colour(app, "meter-ok")
        assert f"total {expected.total_tokens:,} of 8,000 tokens" in text


def meter_colour(section: ContextSection) -> str:
    """The colour the section's meter is drawn in, as painted."""
    strip = section.query_one(".section-line", Static).render_line(0)
    bar = next(segment for segment in strip if "█" in segment.text)
    assert bar.style is not None and bar.style.color is not None
    return Color.from_rich_color(bar.style.color).hex


def theme_colour(app: ForgeApp, variable: str) -> str:
    return Color.parse(app.theme_variables[variable]).hex


async def context_as_sent(app: ForgeApp, pilot: Any) -> None:
    await settle(pilot)
    await press(pilot, "s", "s", "n")
    await type_into(pilot, "use pathlib")
    await press(pilot, "enter", "s", "left_square_bracket")


async def test_earlier_steps_show_the_context_as_sent_and_what_changed(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=SIZE) as pilot:
        await context_as_sent(app, pilot)
        pane = app.workbench.query_one(ContextPane)
        assert pane.view is not None and pane.view.saved and pane.view.step == 3
        text = screen_text(app)
        assert "compiled context: as sent at step 3" in text
        assert "changes since step 2" in text
        assert "+ action_result@2  entered (added)" in text
        assert "+ note@2  entered (operator)" in text
        assert "user message" in text
        saved = TaskFolder.open(app.reader.path).load_saved_context(3)
        assert f"total {saved['total_tokens']:,} of 8,000" in text

        await press(pilot, "left_square_bracket")
        assert "as sent at step 2" in screen_text(app)
        await press(pilot, "right_square_bracket", "right_square_bracket")
        assert "compiled context: next step preview" in screen_text(app)
        assert not app.workbench.applies("later_context")

        section = app.workbench.query_one("#section-task_frame", ContextSection)
        assert "goal: Write hello.py" not in screen_text(app)
        section.focus()
        await press(pilot, "enter")  # a section expands to its exact text
        assert section.has_class("-expanded")
        assert "goal: Write hello.py" in screen_text(app)
        await press(pilot, "enter")
        assert not section.has_class("-expanded")


def test_context_diff_snapshot(
    snap_compare: Any, workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)

    async def run_before(pilot: Any) -> None:
        await context_as_sent(app, pilot)
        app.clear_notifications()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
