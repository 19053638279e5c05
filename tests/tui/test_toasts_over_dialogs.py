"""A toast never covers a dialog's controls: over a dialog, the toasts take rows above it and
the dialog is laid out in what they leave. They are still there to read (a fork's workspace
stays until closed, then the history `h` keeps it)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets._toast import Toast

from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.tui.app import ForgeApp
from forgetui.tui.modals.memory_detail import MemoryDetailScreen
from forgetui.tui.modals.open_fork import OpenForkScreen
from forgetui.tui.modals.text_prompt import TextPromptScreen
from forgetui.tui.panes.memory import MemoryList

from .conftest import press, screen_text, settle, type_into
from .test_rewind import done, select_step  # noqa: F401 (the fixture)

pytestmark = pytest.mark.anyio


def uncovered(screen: Screen[Any], selector: str) -> bool:
    """Every cell of the widget shows the widget (or what it holds), nothing drawn over it."""
    widget: Widget = screen.query_one(selector)
    region = screen.find_widget(widget).region
    assert region.area > 0, f"{selector} is not on screen"
    for y in range(region.y, region.bottom):
        for x in range(region.x, region.right):
            at, _ = screen.get_widget_at(x, y)
            if at is not widget and widget not in at.ancestors:
                return False
    return True


def clear_of_toasts(screen: Screen[Any]) -> bool:
    """No toast overlaps the dialog, controls and border alike."""
    dialog = screen.find_widget(screen.query_one(".dialog")).region
    for toast in screen.query(Toast):
        shown = screen.find_widget(toast)
        if shown.region.intersection(shown.clip).overlaps(dialog):
            return False
    return True


def toasts_shown(screen: Screen[Any]) -> list[str]:
    return [toast._notification.message for toast in screen.query(Toast)]


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_the_fork_s_toast_sits_above_the_offer_to_open_it(
    workbench: Callable[..., ForgeApp],
    done: TaskFolder,  # noqa: F811
    size: tuple[int, int],
) -> None:
    app = workbench(done.path)
    async with app.run_test(size=size, notifications=True) as pilot:
        await settle(pilot)
        await select_step(app, pilot, 2)
        await press(pilot, "r", "f", "enter")
        offer = app.screen
        assert isinstance(offer, OpenForkScreen)
        fork = str(done.workspace.with_name("ws-fork-2"))
        assert any(fork in said for said in toasts_shown(offer))  # shown, and readable
        assert clear_of_toasts(offer)
        for selector in ("#yes", "#no", "#confirm-dialog .dialog-hint"):
            assert uncovered(offer, selector), selector
        await press(pilot, "s")  # stay: the kept toast is back on the workbench, then the history
        assert any(fork in said for said in toasts_shown(app.workbench))
        await press(pilot, "h")
        assert "forked at step 2" in screen_text(app) and fork in app.notices.newest_first()[0].text


async def test_a_toast_leaves_the_human_model_s_box_uncovered(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        await press(pilot, "m")
        app.screen.query_one("Input").value = ""  # type: ignore[attr-defined]
        await type_into(pilot, "human")
        await press(pilot, "enter")
        await pilot.press("s")
        await settle(pilot)
        prompt = app.screen
        assert isinstance(prompt, TextPromptScreen)
        assert any("human" in said for said in toasts_shown(prompt))
        assert clear_of_toasts(prompt)
        assert uncovered(prompt, "Input") and uncovered(prompt, ".dialog-hint")


async def test_a_toast_leaves_the_memory_editor_s_buttons_uncovered(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        await press(pilot, "s", "s")
        app.workbench.query_one(MemoryList).focus()
        await press(pilot, "down", "p", "enter", "e")
        dialog = app.screen
        assert isinstance(dialog, MemoryDetailScreen)
        assert any("pinned" in said for said in toasts_shown(dialog))
        assert clear_of_toasts(dialog)
        for selector in ("#save", "#close", "#memory-detail-dialog .dialog-hint"):
            assert uncovered(dialog, selector), selector
