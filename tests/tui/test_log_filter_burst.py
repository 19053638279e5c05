"""`/` and the text after it arriving together (a paste, or fast typing read in one go by the
terminal): the text goes into the log's filter bar, none of it to the log or to the pane that
had the focus as commands."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from forgetui.tui.app import ForgeApp
from forgetui.tui.panes.log_filter_bar import FilterInput
from forgetui.tui.panes.log_view import LogView

from .conftest import press, settle
from .test_key_bursts import burst

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("size", [(160, 48), (80, 24)])
async def test_keys_typed_right_after_slash_go_into_the_filter_bar(
    workbench: Callable[..., ForgeApp], quick_hello: Path, size: tuple[int, int]
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await press(pilot, "s", "s", "s")
        view = app.workbench.query_one(LogView)
        view.focus()
        await settle(pilot)
        said = len(app.notices)
        await burst(pilot, "slash", "a", "b")  # queued together, as a terminal hands them over

        assert isinstance(app.focused, FilterInput)
        assert app.focused.value == "ab"
        # `a` (answer) did not run as a command: no dialog, no "answer: not now" either
        assert app.screen is app.workbench and len(app.notices) == said
        await press(pilot, "enter")
        assert view.filter == "ab"


async def test_keys_typed_right_after_slash_from_another_pane(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "s", "s", "1")  # the keys are in the context pane
        await settle(pilot)
        steps = app.workbench.snapshot.step if app.workbench.snapshot else None
        said = len(app.notices)
        await burst(pilot, "slash", "s", "a")  # `s` steps and `a` answers, typed there alone
        await settle(pilot)
        assert isinstance(app.focused, FilterInput)
        assert app.focused.value == "sa"
        assert app.screen is app.workbench and len(app.notices) == said  # no dialog, no "not now"
        assert app.workbench.snapshot is not None and app.workbench.snapshot.step == steps == 2
