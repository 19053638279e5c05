"""Context health and the counterfactual meter in the header: from 70% of the cap the share and
its level in the level's colour, the section under pressure, and where the line has room a
sparkline of the tokens sent beside a run that keeps the whole conversation."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from forgetui.engine.api import open_task
from forgetui.engine.api.reads import task_stats
from forgetui.engine.start.samples import init_sample
from forgetui.engine.step.runner import run
from forgetui.tui.app import ForgeApp
from forgetui.tui.header import StatusHeader, spark

from .conftest import custom_sample, settle

pytestmark = pytest.mark.anyio

NARROW = (80, 24)
WIDE = (160, 48)


@pytest.fixture
def tight_long_run(tmp_path: Path) -> Path:
    """long_run after 10 steps with its cap at 1,850 tokens: the next context fills 89% of it
    (warn, the usage tiers acting), current_state 78% of its budget (the pressure)."""
    sample = custom_sample(
        tmp_path, "long_run", "tight_long_run", task={"limits": {"max_tokens": 1850}}
    )
    folder = init_sample(str(sample), into=tmp_path / "run")
    assert run(folder.path, max_steps=10).exit_code == 0
    return folder.path


def header_line(app: ForgeApp) -> str:
    return app.workbench.query_one(StatusHeader).render_line(0).text


def test_spark_scales_both_lines_alike() -> None:
    assert spark([0, 50, 100], 100) == "▁▅█"
    assert spark([5, 5, 5], 100) == "▁▁▁"  # a flat context under a growing conversation
    assert spark([0, 0], 0) == "▁▁"


async def test_health_and_the_meter_in_the_header(
    workbench: Callable[..., ForgeApp], tight_long_run: Path
) -> None:
    steps = task_stats(open_task(tight_long_run))["steps"]
    app = workbench(tight_long_run)
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        line = header_line(app)
        assert "│ context 1,654/1,850 89% warn · current_state 78% │" in line, line
        last = steps[-1]
        assert "naive " in line and f" {last['naive'] / 1000:.1f}K sent " in line
        assert line.rstrip().endswith(f" {last['sent'] / 1000:.1f}K")
        header = app.workbench.query_one(StatusHeader)
        shown = header._shown
        assert shown is not None
        styles = {str(span.style) for span in shown.spans}
        assert "bold $warning" in styles  # the share and the pressure in the warning colour

        await pilot.resize_terminal(*NARROW)
        await settle(pilot)
        narrow = header_line(app)
        # at 80 columns the health stays whole; phase, model, cost and the meter give way
        assert narrow.rstrip().endswith("context 1,654/1,850 89% warn · current_state 78%")
        assert "phase" not in narrow and "naive" not in narrow


async def test_a_healthy_context_reads_as_before_and_few_steps_show_no_trend(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        line = header_line(app)
        assert "context 1,054/8,000 tok │" in line and "%" not in line
        assert "naive" not in line  # one step is no trend


@pytest.mark.parametrize("size", [NARROW, WIDE], ids=["80x24", "160x48"])
def test_health_header_snapshot(
    snap_compare: Any,
    workbench: Callable[..., ForgeApp],
    tight_long_run: Path,
    size: tuple[int, int],
) -> None:
    app = workbench(tight_long_run)

    async def run_before(pilot: Any) -> None:
        await settle(pilot)

    assert snap_compare(app, terminal_size=size, run_before=run_before)
