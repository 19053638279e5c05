"""The escalation inbox modal (`i`): every question and its answer, the waiting one on top,
`p` pins an answer the memory pane then shows, `a` answers the waiting question."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.operator.inbox import promote_answer
from forgetui.tui.app import ForgeApp
from forgetui.tui.modals.escalation import EscalationScreen
from forgetui.tui.modals.inbox import InboxScreen
from tests.engine.test_inbox import LANGUAGE, asked_four_times

from .conftest import press, screen_text, settle

pytestmark = pytest.mark.anyio


@pytest.fixture
def asked(tmp_path: Path) -> TaskFolder:
    return asked_four_times(tmp_path)


def inbox_of(app: ForgeApp) -> InboxScreen:
    screen = app.screen
    assert isinstance(screen, InboxScreen), screen
    return screen


async def test_p_pins_the_selected_answer_and_the_memory_pane_shows_it(
    workbench: Callable[..., ForgeApp], asked: TaskFolder
) -> None:
    app = workbench(asked.path, engine="thread")
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await press(pilot, "i")
        inbox = inbox_of(app)
        text = screen_text(app)
        assert "Escalation inbox: 4 questions, 1 waiting" in text
        for words in (LANGUAGE, "Approve write_file out.txt?", "→ keep it: the check reads",
                      "Add a second line?", "options: yes / no"):  # fmt: skip
            assert words in text
        assert inbox.selected is not None and inbox.selected.pending  # the waiting one on top

        await press(pilot, "p")  # nothing to pin yet: said, nothing written
        assert "not answered yet" in "".join(n.message for n in app._notifications)
        assert not any(item.pinned for item in asked.load_memory().items)

        await press(pilot, "down", "p")
        assert inbox.selected is not None and inbox.selected.id == "3"  # the cursor stays
        item = next(i for i in asked.load_memory().items if i.key == "answer@3")
        assert item.pinned and "A: keep it: the check reads whole lines" in str(item.content)
        assert "pinned as answer@3" in screen_text(app)

        await press(pilot, "p")  # again: said, not written twice
        assert "answer@3 is already pinned" in "".join(n.message for n in app._notifications)
        assert [i.key for i in asked.load_memory().items].count("answer@3") == 1

        await press(pilot, "escape")
        assert not isinstance(app.screen, InboxScreen)
        assert "Q: Keep the trailing newline?" in screen_text(app)  # the memory pane


async def test_a_in_the_inbox_answers_the_waiting_question(
    workbench: Callable[..., ForgeApp], asked: TaskFolder
) -> None:
    app = workbench(asked.path, engine="thread")
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await press(pilot, "i", "a")
        assert isinstance(app.screen, EscalationScreen)
        assert "Add a second line?" in screen_text(app)
        await pilot.press(*"no")
        await press(pilot, "enter")
        await press(pilot, "i")
        assert "Escalation inbox: 4 questions" in screen_text(app)
        newest = inbox_of(app).entries[0]
        assert (newest.id, newest.answer, newest.pending) == ("4", "no", False)

        await press(pilot, "a")  # nothing waits now: said, the inbox stays
        assert "no question is waiting" in "".join(n.message for n in app._notifications)
        assert isinstance(app.screen, InboxScreen)


def test_inbox_snapshot_at_80x24(
    snap_compare: Any, workbench: Callable[..., ForgeApp], asked: TaskFolder
) -> None:
    promote_answer(asked, "1")
    app = workbench(asked.path, engine="thread")

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        app.clear_notifications()
        await press(pilot, "i")

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def test_an_answer_undone_by_a_rewind_says_so(asked: TaskFolder) -> None:
    from forgetui.engine.history.rewind import rewind_task
    from forgetui.engine.operator.inbox import escalation_inbox
    from forgetui.tui.modals.inbox import entry_prompt

    rewind_task(asked, 3)
    said = [entry_prompt(entry).plain for entry in escalation_inbox(asked)]
    assert "undone: rewound to step 3" in said[2]
    assert not any("undone" in text for text in said[:2] + said[3:])
