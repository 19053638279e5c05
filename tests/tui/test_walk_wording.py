"""What a new user read on the workbench, said once and right: the step an approval waits
on, a finished task's sentence, a message's step named once."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest

from forgetui.engine.folder.task_state import Escalation
from forgetui.tui.app import ForgeApp
from forgetui.tui.header import Activity, StatusHeader
from forgetui.tui.modals.message_history import notice_prompt
from forgetui.tui.notice_log import Notice
from forgetui.tui.task_display import finished_words

from .conftest import settle

pytestmark = pytest.mark.anyio


async def test_the_header_names_the_step_waiting_for_approval(
    workbench: Callable[..., ForgeApp],
) -> None:
    app = workbench("hello_world")
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        snap = app.workbench.snapshot
        assert snap is not None
        waiting = Escalation(
            reason="approval", question="Approve write_file hello.py?", step=3,
            raised_at="2026-11-26T12:00:00Z",
        )  # fmt: skip
        shown = replace(snap, step=2, status="escalated", escalation=waiting)
        header = app.workbench.query_one(StatusHeader)
        header.show_state(shown, Activity())
        await pilot.pause()
        line = header.render_line(0).text
        assert "step 3 waits for your approval" in line
        assert "step 2" not in line  # the steps recorded would name another step


@pytest.mark.parametrize(
    ("status", "said"),
    [("failed", "the task failed"), ("aborted", "the task was aborted"),
     ("complete", "the task is complete")],
)  # fmt: skip
def test_a_finished_task_is_said_in_a_sentence(status: str, said: str) -> None:
    assert finished_words(status) == said


def test_a_message_about_a_step_names_one_step() -> None:
    notice = Notice("escalated: which language?", "step 4", "warning", 0.0, 2, "escalation", False)
    head = notice_prompt(notice).plain.splitlines()[0]
    assert head.count("step") == 1 and "step 4" in head
    for title in ("", "step failed (model)"):  # no step named: the screen's step is said
        assert "step 2" in notice_prompt(replace(notice, title=title)).plain
