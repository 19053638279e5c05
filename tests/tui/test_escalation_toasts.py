"""Opening the escalation dialog keeps the messages already on screen: a toast the operator
has not read yet stays, above the dialog and clear of its answer box."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from forgetui.tui.app import ForgeApp
from forgetui.tui.modals.escalation import EscalationScreen

from .conftest import press, settle
from .test_toasts_over_dialogs import clear_of_toasts, toasts_shown, uncovered

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_a_toast_shown_before_the_escalation_dialog_is_still_there(
    workbench: Callable[..., ForgeApp], size: tuple[int, int]
) -> None:
    app = workbench("escalation")
    async with app.run_test(size=size, notifications=True) as pilot:
        await settle(pilot)
        await press(pilot, "s")  # the agent asks
        app.notify("checks: 1 new failure since the last step", title="unread", timeout=60)
        await settle(pilot)
        assert any("1 new failure" in said for said in toasts_shown(app.workbench))

        await press(pilot, "a")
        dialog = app.screen
        assert isinstance(dialog, EscalationScreen)
        assert any("1 new failure" in said for said in toasts_shown(dialog))
        assert clear_of_toasts(dialog)
        assert uncovered(dialog, "#escalation-answer")
        await press(pilot, "escape")  # closed unanswered: the message is still to read
        assert any("1 new failure" in said for said in toasts_shown(app.workbench))
