"""The re-run comparison shows what differs: a different action stands out in both columns;
with the same action, the arguments whose values differ stand out and the same ones are dim."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from textual.content import Content
from textual.widgets import Static

from forgetui.tui.app import ForgeApp
from forgetui.tui.modals.rerun import RerunScreen

from .conftest import SIZE, press, settle
from .test_rerun import _canned, _refused

pytestmark = pytest.mark.anyio


def styles_at(content: Content, text: str) -> set[str]:
    start = content.plain.index(text)
    return {str(span.style) for span in content.spans if span.start <= start < span.end}


async def facts_after_rerun(pilot: Any, rerun: Any) -> tuple[Content, Content]:
    """The recorded and the new column's facts once `rerun` has answered."""
    app = pilot.app
    await settle(pilot)
    recorded = rerun.recorded
    screen = RerunScreen(
        2, "replay", Path("/tmp/ws"), lambda: recorded, lambda model: rerun, _refused
    )
    await app.push_screen(screen)
    await settle(pilot)
    await press(pilot, "enter")  # the prefilled model
    await settle(pilot)
    shown = []
    for side in ("recorded", "new"):
        facts = screen.query_one(f"#rerun-{side}").query_one(".rerun-facts", Static).visual
        assert isinstance(facts, Content)
        shown.append(facts)
    return shown[0], shown[1]


async def test_a_different_action_stands_out_in_both_columns(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    _recorded, rerun = _canned()  # read_file recorded, write_file new
    app = workbench(quick_hello)
    async with app.run_test(size=SIZE) as pilot:
        recorded, new = await facts_after_rerun(pilot, rerun)
        assert "read_file  a different action" in recorded.plain
        assert "write_file  a different action" in new.plain
        assert "reverse" in " ".join(styles_at(new, "write_file"))
        assert styles_at(new, "path: hello.py") == set()  # arguments of another action: plain


async def test_same_action_highlights_the_changed_arguments_and_dims_the_rest(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    _recorded, rerun = _canned()
    recorded_args = {"path": "test_hello.py", "start_line": 1, "end_line": 12}
    rerun = replace(
        rerun,
        recorded=replace(rerun.recorded, args=recorded_args),
        new=replace(rerun.new, action="read_file",
                    args={"path": "test_hello.py", "start_line": 5}),
    )  # fmt: skip
    assert rerun.different_args == ["end_line", "start_line"]
    app = workbench(quick_hello)
    async with app.run_test(size=SIZE) as pilot:
        recorded, new = await facts_after_rerun(pilot, rerun)
        assert "a different action" not in recorded.plain + new.plain
        for facts in (recorded, new):
            assert styles_at(facts, "path: test_hello.py") == {"$foreground-muted"}  # the same: dim
        assert styles_at(new, "5") >= {"reverse $warning"}  # the changed value stands out
        assert styles_at(recorded, "1\n") >= {"reverse $warning"}
        assert "end_line: (not given)" in new.plain  # the new answer dropped it
        assert "b $warning" in styles_at(new, "end_line")
