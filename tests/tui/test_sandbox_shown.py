"""Where agent commands are not isolated (no bubblewrap), the workbench says so where it cannot
be missed: in the header, in a warning when the task opens, and in help with the reason."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from forgetui.engine import api
from forgetui.engine.start.samples import init_sample
from forgetui.tui.app import ForgeApp
from forgetui.tui.header import StatusHeader
from forgetui.tui.modals.help import HelpScreen

from .conftest import SIZE, press, screen_text, settle

pytestmark = pytest.mark.anyio
WHY = "bwrap not found: install it with `sudo apt-get install bubblewrap`"


async def test_allow_list_mode_is_announced(
    workbench: Callable[..., ForgeApp], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(api, "sandbox_mode", lambda: api.SandboxMode("allow-list", WHY))
    app = workbench(init_sample("hello_world").path)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        assert "no OS sandbox" in app.workbench.query_one(StatusHeader).render_line(0).text
        [warning] = [n for n in app._notifications if n.title == "No OS sandbox"]
        assert warning.message.startswith("Agent commands run with the allow-list only")
        assert WHY in warning.message
        await press(pilot, "question_mark")
        assert isinstance(app.screen, HelpScreen)
        assert "sandbox allow-list: bwrap not found" in screen_text(app)


async def test_bwrap_mode_adds_nothing_to_the_header(workbench: Callable[..., ForgeApp]) -> None:
    app = workbench(init_sample("hello_world").path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        assert "sandbox" not in app.workbench.query_one(StatusHeader).render_line(0).text
        assert not [n for n in app._notifications if n.title == "No OS sandbox"]
