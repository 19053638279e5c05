"""The screen's size classes are set before its first styling, as Textual's breakpoints set
them on the resize that follows: the resize then changes nothing, and the first paint does not
style the whole screen twice."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from forgetui.tui.app import ForgeApp
from forgetui.tui.layout import breakpoint_classes

from .conftest import settle

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("size", [(80, 24), (119, 40), (120, 40), (160, 48), (50, 10)])
async def test_the_classes_set_at_compose_are_the_resizes(
    workbench: Callable[..., ForgeApp], quick_hello: Path, size: tuple[int, int]
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        classes = breakpoint_classes(*size)
        screen = app.workbench
        assert {name for name, on in classes.items() if on} <= screen.classes
        assert not {name for name, on in classes.items() if not on} & screen.classes
        # a resize to another mode and back: Textual's breakpoints agree with ours there too
        await pilot.resize_terminal(160 if size[0] < 120 else 80, 48 if size[1] < 40 else 24)
        await pilot.resize_terminal(*size)
        await settle(pilot)
        assert {name for name, on in classes.items() if on} <= screen.classes
