"""Messages outlive their toasts: `h` lists every one shown (newest first, with its step), a
message naming a path (a fork's new workspace) stays on screen until closed, and a toast never
stays on a screen a modal covers: it moves to the top screen and expires there."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.widgets._toast import Toast

from forgetui.engine import api
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.tui import notice_log
from forgetui.tui.app import ForgeApp
from forgetui.tui.modals import message_history
from forgetui.tui.modals.help import HelpScreen
from forgetui.tui.modals.message_history import MessageHistoryScreen
from forgetui.tui.modals.project_inbox import ProjectInboxScreen
from forgetui.tui.modals.rewind import ForkPrompt
from forgetui.tui.notice_log import Notice
from forgetui.tui.notices import KEPT_S
from forgetui.tui.panes.action_log import LogView

from .conftest import SIZE, press, screen_text, settle

pytestmark = pytest.mark.anyio


def toasts_on(app: ForgeApp) -> list[tuple[str, list[str]]]:
    """Each screen of the stack, bottom first, with the messages its toasts show."""
    return [
        (type(screen).__name__, [toast._notification.message for toast in screen.query(Toast)])
        for screen in app.screen_stack
    ]


def time_passes(app: ForgeApp, seconds: float = 120) -> None:
    """As if `seconds` had passed since every toast was raised; the display catches up."""
    for shown in list(app._notifications):
        shown.raised_at -= seconds
    app._refresh_notifications()


async def test_h_lists_every_message_newest_first_with_its_step(
    workbench: Callable[..., ForgeApp],
) -> None:
    app = workbench("hello_world")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "s")  # one step: the next message is said at step 1
        app.workbench.notify("first of two", title="one", markup=False)
        app.notify("second of two", severity="warning", markup=False)
        await press(pilot, "h")
        assert isinstance(app.screen, MessageHistoryScreen)
        text = screen_text(app)
        assert text.index("second of two") < text.index("first of two")  # newest first
        assert "hello_world · step 1 · one" in text
        assert "step 1 · warning" in text
        await press(pilot, "h")  # the same key closes it
        assert not isinstance(app.screen, MessageHistoryScreen)


async def test_the_history_is_bounded_and_keeps_the_newest(
    workbench: Callable[..., ForgeApp],
) -> None:
    app = workbench("hello_world")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for number in range(notice_log.HISTORY_LIMIT + 50):
            app.notify(f"message {number}", markup=False)
        kept = app.notices.newest_first()
        assert len(kept) == notice_log.HISTORY_LIMIT
        assert kept[0].text == f"message {notice_log.HISTORY_LIMIT + 49}"
        assert kept[-1].text == "message 50"


@pytest.fixture
def done(quick_hello: Path, tmp_path: Path) -> TaskFolder:
    """quick_hello run to completion: five steps."""
    folder = api.init_sample(quick_hello, into=tmp_path / "ws")
    assert api.run(folder.path).exit_code == 0
    return folder


async def test_a_fork_s_new_workspace_stays_on_screen_until_closed(
    workbench: Callable[..., ForgeApp], done: TaskFolder
) -> None:
    app = workbench(done.path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        view = app.workbench.query_one(LogView)
        view.focus()
        await press(pilot, *["up"] * (view.count - 2), "r", "f")
        assert isinstance(app.screen, ForkPrompt)
        await press(pilot, "enter")
        expected = done.workspace.with_name("ws-fork-2")
        assert (expected / "test_hello.py").is_file()
        said = f"forgetui open {expected}"
        forked = [n for n in app._notifications if said in n.message]
        assert forked and forked[0].timeout == KEPT_S  # not the 3 seconds of other messages
        time_passes(app)  # every other toast is gone by now; the fork's is still there
        await settle(pilot)
        assert [n.message for n in app._notifications] == [forked[0].message]
        assert any(said in message for message in toasts_on(app)[-1][1])  # on the top screen
        assert "click closes it" in screen_text(app)
        while app.screen is not app.workbench:  # the offer to open the fork now: stay here
            await press(pilot, "escape")
        assert any(said in message for message in toasts_on(app)[0][1])
        # the history lists it, marked as kept; opening the history takes it off the screen
        await press(pilot, "h")
        assert isinstance(app.screen, MessageHistoryScreen)
        assert "kept on screen" in screen_text(app)
        assert said in app.screen.notices[0].text and app.screen.notices[0].kept
        assert not list(app._notifications)
        await press(pilot, "c")  # copies the selected (newest) message: the fork's
        assert "copied" in screen_text(app)
        assert app.clipboard == forked[0].message


@pytest.mark.parametrize("key, modal", [("i", ProjectInboxScreen), ("question_mark", HelpScreen)])
async def test_a_toast_moves_to_the_modal_on_top_and_expires_there(
    workbench: Callable[..., ForgeApp], key: str, modal: type[Any]
) -> None:
    app = workbench("hello_world")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        app.notify("said before the modal", timeout=60, markup=False)
        await pilot.pause()
        assert toasts_on(app) == [("WorkbenchScreen", ["said before the modal"])]
        await press(pilot, key)
        assert isinstance(app.screen, modal)
        # shown on the modal, not left under it on the covered workbench
        assert toasts_on(app) == [
            ("WorkbenchScreen", []), (modal.__name__, ["said before the modal"]),
        ]  # fmt: skip
        assert "said before the modal" in screen_text(app)
        app.notify("said over the modal", timeout=60, markup=False)
        await pilot.pause()
        assert toasts_on(app)[1][1] == ["said before the modal", "said over the modal"]
        time_passes(app)
        await pilot.pause()
        assert toasts_on(app) == [("WorkbenchScreen", []), (modal.__name__, [])]
        assert "said" not in screen_text(app)
        await press(pilot, "escape")
        assert toasts_on(app) == [("WorkbenchScreen", [])]


async def test_a_toast_still_showing_comes_back_to_the_workbench(
    workbench: Callable[..., ForgeApp],
) -> None:
    app = workbench("hello_world")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await press(pilot, "i")
        app.notify("said over the inbox", timeout=60, markup=False)
        await pilot.pause()
        await press(pilot, "escape")
        assert toasts_on(app) == [("WorkbenchScreen", ["said over the inbox"])]


NOTICES = [
    Notice("model replay:other.yaml from the next step", "", "information", 0.0, 2,
           "hello_world", False),
    Notice("forked at step 2 into /home/op/runs/ws-fork-2 (3 files); open it with: "
           "forgetui open /home/op/runs/ws-fork-2", "", "information", 60.0, 2, "hello_world",
           True),
    Notice("the replay script has no step 6; another model must take over (a litellm model, "
           "or the human model: you type the actions)", "step failed (model)", "error", 120.0,
           5, "hello_world", False),
]  # fmt: skip


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (160, 48)])
def test_snapshot_message_history(
    snap_compare: Callable[..., bool], workbench: Callable[..., ForgeApp],
    monkeypatch: pytest.MonkeyPatch, size: tuple[int, int],
) -> None:  # fmt: skip
    monkeypatch.setattr(message_history, "clock", lambda at: f"10:0{int(at) // 60}:00")
    app = workbench("hello_world")

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        for notice in NOTICES:
            app.notices.add(notice)
        await press(pilot, "h")

    assert snap_compare(app, terminal_size=size, run_before=run_before)
