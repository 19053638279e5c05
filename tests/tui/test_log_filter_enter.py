"""Enter in the log's filter bar keeps the filter and hands the keys back to the log, nothing
more: no detail opens and no "not now" toast; the next enter opens the selected row."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from forgetui.tui.app import ForgeApp
from forgetui.tui.panes.log_filter_bar import FilterInput
from forgetui.tui.panes.log_view import LogView

from .conftest import press, settle

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("size", [(160, 48), (80, 24)])
async def test_enter_in_the_filter_bar_only_keeps_the_filter(
    workbench: Callable[..., ForgeApp], quick_hello: Path, size: tuple[int, int]
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await press(pilot, "s", "s", "s", "5", "slash")
        assert isinstance(app.focused, FilterInput)
        await press(pilot, "w", "r", "i", "t", "e", "enter")  # typed, no pause before enter

        view = app.workbench.query_one(LogView)
        assert view.filter == "write"
        assert app.focused is view and app.screen is app.workbench
        assert not [n for n in app._notifications if "not now" in (n.title or "")]

        await press(pilot, "enter")  # now the row: its step in full
        assert app.screen is not app.workbench
