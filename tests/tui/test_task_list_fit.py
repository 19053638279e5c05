"""The task list in a small terminal: what tells tasks apart (the run copy a task sits in) shows
at 80 columns with no sideways scroll and no title cut, and Home / End go to the first and last
task, also when keys arrive together."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable

from forgetui.engine import api
from forgetui.tui.app import ForgeApp
from forgetui.tui.task_columns import ORDER, short_workspace
from tests.tui.conftest import screen_text
from tests.tui.test_key_bursts import burst
from tests.tui.test_task_list import idle, list_app, rows

pytestmark = pytest.mark.anyio

RUNS = ["escalation-20261126-130644", "escalation-20261126-130647", "escalation-20261126-130650"]


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    """Three copies of one sample, as `forgetui open --runs` lists them; the middle one asks."""
    place = tmp_path / "runs"
    for name in RUNS:
        api.init_sample("escalation", into=place / name)
    api.run(place / RUNS[1] / ".agentforge/tasks/escalation", max_steps=1, until="escalation")
    return place


def table(app: ForgeApp) -> DataTable[object]:
    return app.screen.query_one(DataTable)


async def test_at_80_columns_runs_of_one_sample_read_apart_and_nothing_scrolls(
    forge_home: Path, runs: Path
) -> None:
    app = list_app(forge_home, runs)
    async with app.run_test(size=(80, 24)) as pilot:
        await idle(pilot)
        await pilot.pause()
        shown = rows(app)
        assert [row["task"] for row in shown] == ["escalation"] * 3
        stamps = [row["workspace"] for row in shown]
        assert stamps == [name.removeprefix("escalation-") for name in RUNS]  # told apart
        assert shown[1]["status"] == "waiting for you"
        assert shown[1]["waiting question"].startswith("Which language")
        assert table(app).max_scroll_x == 0  # every column on screen

        text = screen_text(app)
        header = next(line for line in text.splitlines() if " workspace " in line)
        for column in table(app).ordered_columns:  # each title whole, none cut ("contex")
            assert f" {column.label} " in f"{header} "
            assert str(column.key.value) in ORDER


async def test_wide_the_list_shows_every_column_and_whole_names(
    forge_home: Path, runs: Path
) -> None:
    app = list_app(forge_home, runs)
    async with app.run_test(size=(160, 48)) as pilot:
        await idle(pilot)
        await pilot.pause()
        shown = rows(app)
        assert [row["workspace"] for row in shown] == RUNS
        assert set(shown[0]) == set(ORDER)
        assert shown[1]["context"].startswith("system_prompt ")


async def test_home_and_end_go_to_the_first_and_last_task(forge_home: Path, runs: Path) -> None:
    app = list_app(forge_home, runs)
    async with app.run_test(size=(80, 24)) as pilot:
        await idle(pilot)
        await pilot.press("end")
        assert table(app).cursor_row == 2
        await pilot.press("home")
        assert table(app).cursor_row == 0
        await burst(pilot, "end", "home", "down", "enter")  # together, as a terminal sends
        await idle(pilot)
        assert app.reader.path == runs / RUNS[1] / ".agentforge/tasks/escalation"


def test_a_run_copy_drops_only_the_sample_name_it_repeats() -> None:
    assert short_workspace("escalation-20261126-130644", "escalation") == "20261126-130644"
    assert short_workspace("alpha", "hello_world") == "alpha"
    assert short_workspace("escalation", "escalation") == "escalation"
