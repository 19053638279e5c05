"""The escalation modal holds a question with fixed options to them, as `forgetui answer` does:
a synonym goes through, anything else keeps the modal open with the options named."""

from __future__ import annotations

import pytest

from forgetui.engine.folder.task_state import Escalation
from forgetui.tui.modals.escalation import EscalationScreen

from .conftest import type_into
from .test_escalation import ModalHost

pytestmark = pytest.mark.anyio

DONE = Escalation(
    reason="confirm_complete", question="The agent says the task is done. Accept, or keep working?",
    step=3, raised_at="t", options=["accept", "keep working"],
)  # fmt: skip


async def test_a_non_option_stays_open_naming_the_options_and_a_synonym_answers() -> None:
    app = ModalHost(DONE)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await type_into(pilot, "maybe later")
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, EscalationScreen)  # refused in the modal
        error = str(app.screen.query_one("#escalation-error").render())
        assert "accept, keep working" in error
        app.screen.query_one("#escalation-answer").value = ""  # type: ignore[attr-defined]
        await type_into(pilot, "approve")
        await pilot.press("enter")
        await pilot.pause()
    assert app.answers == ["approve"]
