"""What a dialog asks for is on screen as it opens, at 80x24 as at 160x48: the human model's
action box, the memory editor's buttons, an approval's pending action and its answers."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.errors import NoWidget
from textual.screen import Screen
from textual.widget import Widget

from forgetui.engine import api
from forgetui.tui.app import ForgeApp
from forgetui.tui.modals.escalation import EscalationScreen
from forgetui.tui.modals.memory_detail import MemoryDetailScreen
from forgetui.tui.modals.text_prompt import TextPromptScreen
from forgetui.tui.panes.memory import MemoryList

from .conftest import QUICK_CHECKS, custom_sample, press, screen_text, settle, type_into

pytestmark = pytest.mark.anyio

SIZES = [(80, 24), (160, 48)]


def on_screen(screen: Screen[Any], selector: str) -> bool:
    """The widget is drawn whole where the operator can see it, without scrolling anything."""
    widget: Widget = screen.query_one(selector)
    try:
        shown = screen.find_widget(widget).region
    except NoWidget:
        return False
    return shown.height == widget.outer_size.height and screen.region.contains_region(shown)


@pytest.fixture
def approving_hello(tmp_path: Path) -> Path:
    """hello_world as shipped (two steps, then the write), its writes waiting for approval."""
    return custom_sample(
        tmp_path, "hello_world", "approving_hello",
        task={"checks": QUICK_CHECKS, "approval": "confirm_writes"},
    )  # fmt: skip


@pytest.fixture
def human_hello(tmp_path: Path) -> Path:
    return custom_sample(
        tmp_path, "hello_world", "human_hello", task={"checks": QUICK_CHECKS, "model": "human"}
    )


@pytest.mark.parametrize("size", SIZES)
async def test_the_human_model_s_action_box_shows_with_the_actions(
    workbench: Callable[..., ForgeApp], human_hello: Path, size: tuple[int, int]
) -> None:
    app = workbench(human_hello)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await pilot.pause()
        await pilot.pause()
        prompt = app.screen
        assert isinstance(prompt, TextPromptScreen) and "you are the model" in prompt.title_text
        assert on_screen(prompt, "Input"), "the action box is below the fold"
        assert on_screen(prompt, ".dialog-hint")
        assert "write_file(path, content)" in screen_text(app)  # the actions start on screen
        await press(pilot, *"list_dir path=.", "enter")
        assert not isinstance(app.screen, TextPromptScreen)  # the step ran with that action


@pytest.mark.parametrize("size", SIZES)
async def test_the_memory_editor_s_buttons_show_while_editing(
    workbench: Callable[..., ForgeApp], quick_hello: Path, size: tuple[int, int]
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await press(pilot, "s", "s")
        app.workbench.query_one(MemoryList).focus()
        await press(pilot, "down", "enter", "e")
        dialog = app.screen
        assert isinstance(dialog, MemoryDetailScreen)
        assert dialog.query_one("#memory-editor").has_focus
        for selector in ("#memory-editor", "#save", "#close", "#memory-detail-dialog .dialog-hint"):
            assert on_screen(dialog, selector), selector
        assert "ctrl+s saves" in screen_text(app)


@pytest.mark.parametrize("size", SIZES)
async def test_an_approval_opens_on_the_pending_action_with_its_answers_at_hand(
    workbench: Callable[..., ForgeApp], approving_hello: Path, size: tuple[int, int]
) -> None:
    app = workbench(approving_hello)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await press(pilot, "s", "s", "s", "a")
        modal = app.screen
        assert isinstance(modal, EscalationScreen) and modal.is_approval
        assert modal.query_one("#escalation-body").scroll_y == 0  # opened at its top
        for selector in ("#escalation-pending", "#approve", "#reject", "#escalation-answer"):
            assert on_screen(modal, selector), selector
        if size == (160, 48):
            for selector in ("#takeover-human", "#takeover-complete", "#takeover-failed"):
                assert on_screen(modal, selector), selector
        text = screen_text(app)
        assert "Pending action" in text and "path: hello.py" in text
        assert "ctrl+y approves" in text  # one key, said in the dialog, from the answer box
        await press(pilot, "ctrl+y")
        assert not isinstance(app.screen, EscalationScreen)
        await press(pilot, "s")
        workspace = api.open_task(app.reader.path).workspace
        assert (workspace / "hello.py").read_text() == 'print("Hello, world!")\n'


async def test_ctrl_r_rejects_with_the_box_as_the_reason(
    workbench: Callable[..., ForgeApp], approving_hello: Path
) -> None:
    app = workbench(approving_hello)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "s", "s", "s", "a")
        await type_into(pilot, "not yet")
        await press(pilot, "ctrl+r", "s")
        folder = api.open_task(app.reader.path)
        assert not (folder.workspace / "hello.py").exists()
        last: Any = folder.log.tail(1)[0]
        assert last.result == "refused" and "not yet" in last.summary
