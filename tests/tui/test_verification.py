"""The verification pane: each check, pass or fail, the step it last changed, the ready flag."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest

from forgetui.tui.app import ForgeApp
from forgetui.tui.panes.verification import VerificationPane, verification_content
from forgetui.tui.snapshot import CheckView

from .conftest import SIZE, press, settle


def pane_text(app: ForgeApp) -> str:
    return str(app.workbench.query_one("#verification-body").render())


@pytest.mark.anyio
async def test_checks_turn_green_at_the_step_that_changed_them(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        text = pane_text(app)
        assert " —   script-exists" in text and "not run yet" in text
        assert "ready for completion: not yet" in text
        await press(pilot, "s", "s", "s")
        text = pane_text(app)
        assert "pass script-exists  since step 3" in text
        assert "pass runs           since step 3" in text
        assert "ready for completion: yes" in text
        assert app.workbench.query_one(VerificationPane).has_class("-ready")


def test_test_runner_timings_are_not_shown() -> None:
    snapshot = SimpleNamespace(
        checks=(CheckView("tests", True, "exit 0: 1 passed in 0.52s", 3),),
        ready=True,
    )
    text = verification_content(snapshot).plain  # type: ignore[arg-type]
    assert "1 passed" in text
    assert re.search(r" in \d+(\.\d+)?s", text) is None
