"""The one-line text modal (operator notes, the human model's action)."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static

from forgetui.tui.modals.text_prompt import TextPromptScreen

pytestmark = pytest.mark.anyio


class PromptHost(App[None]):
    """A bare app hosting the modal, keeping the answers it dismisses with."""

    def __init__(self) -> None:
        super().__init__()
        self.answers: list[str | None] = []

    def compose(self) -> ComposeResult:
        yield Static("host")

    def ask(self) -> None:
        self.push_screen(
            TextPromptScreen("Add a note", "explained [here]", "hint"), self.answers.append
        )


async def test_enter_submits_and_escape_cancels() -> None:
    app = PromptHost()
    async with app.run_test() as pilot:
        app.ask()
        await pilot.pause()
        await pilot.press("enter")  # nothing typed: refused, stays open
        await pilot.pause()
        assert isinstance(app.screen, TextPromptScreen)
        shown = [str(w.render()) for w in app.screen.query(Static)]
        assert "explained [here]" in shown  # markup-free: brackets shown as typed
        assert "type something first" in str(app.screen.query_one(".prompt-error").render())
        await pilot.press(*"use [brackets] as is", "enter")
        await pilot.pause()
        app.ask()
        await pilot.pause()
        await pilot.press("x", "escape")
        await pilot.pause()
    assert app.answers == ["use [brackets] as is", None]
