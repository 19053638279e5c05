"""Project memory in the workbench: the memory pane lists the workspace's entries under their
own heading, P promotes a note to it (logged in the task), and e and x edit and remove an entry
as they edit and evict a working-memory item."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from textual.widgets import TextArea

from forgetui.engine import api
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.tui.app import ForgeApp
from forgetui.tui.modals.confirm import ConfirmScreen
from forgetui.tui.modals.memory_detail import MemoryDetailScreen
from forgetui.tui.panes.memory import MemoryList, MemoryPane

from .conftest import SIZE, press, screen_text, settle, type_into

pytestmark = pytest.mark.anyio


def workspace(app: ForgeApp) -> Path:
    return api.project_workspace(app.reader.path)


def entries(app: ForgeApp, kind_file: str) -> list[dict[str, str]]:
    path = workspace(app) / ".agentforge" / "memory" / kind_file
    return yaml.safe_load(path.read_text()) if path.is_file() else []


def toasts(app: ForgeApp) -> list[str]:
    return [n.message for n in app._notifications]


async def test_the_pane_lists_project_memory_and_a_file_left_out(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)
    api.add_project_entry(workspace(app), "convention", "greetings end with an exclamation mark")
    broken = workspace(app) / ".agentforge" / "memory" / "lessons.yaml"
    broken.write_text("- id: lesson-1\n")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "project memory · all tasks here" in text
        assert "convention-1 greetings end …" in text  # cut to the pane's width
        assert "left out: lessons.yaml:1: entry 1:" in text
        assert "field 'text': Field required" in text  # wrapped: the reason is the point
        assert "0 items, 0 pinned · 1 project" in text


async def test_p_promotes_a_note_and_the_task_log_records_it(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await press(pilot, "n")
        await type_into(pilot, "hello.py must print exactly one line")
        await press(pilot, "enter")
        app.workbench.query_one(MemoryList).focus()
        await press(pilot, "P")
        assert "Promote note@0 to project memory" in screen_text(app)
        await type_into(pilot, "lesson")
        await press(pilot, "enter")
        assert entries(app, "lessons.yaml")[0]["text"] == "hello.py must print exactly one line"
        assert toasts(app)[-1].startswith("promoted to project memory as lesson-1 (lesson)")
        folder = TaskFolder.open(app.reader.path)
        record = next(iter(folder.log.iter_backwards(("operator",))))
        assert (record.op, record.key) == ("promote", "lesson-1")
        pane = app.workbench.query_one(MemoryPane)
        assert [row.ref for row in pane.list.project] == ["lesson-1"]
        assert "lesson-1 hello.py" in screen_text(app)


async def test_e_edits_and_x_removes_a_project_entry(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)
    api.add_project_entry(workspace(app), "command", "python hello.py")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        app.workbench.query_one(MemoryList).focus()
        await press(pilot, "e")
        assert isinstance(app.screen, MemoryDetailScreen)
        assert "Project memory command-1" in screen_text(app)
        editor = app.screen.query_one("#memory-editor", TextArea)
        editor.text = "python hello.py prints the greeting"
        await press(pilot, "ctrl+s")
        assert entries(app, "commands.yaml")[0]["text"] == "python hello.py prints the greeting"
        assert toasts(app)[-1] == "edited project memory command-1"

        await press(pilot, "p")  # pin does not apply to an entry: it says so
        assert "not pinned" in toasts(app)[-1]
        await press(pilot, "x")
        assert isinstance(app.screen, ConfirmScreen)
        assert "Remove project memory command-1?" in screen_text(app)
        await press(pilot, "y")
        assert entries(app, "commands.yaml") == []
        assert app.workbench.query_one(MemoryPane).list.project == ()


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (160, 48)])
def test_memory_pane_with_project_memory_snapshot(
    snap_compare: Any, workbench: Callable[..., ForgeApp], quick_hello: Path,
    size: tuple[int, int],
) -> None:  # fmt: skip
    app = workbench(quick_hello)
    api.add_project_entry(workspace(app), "convention", "greetings end with an exclamation mark")
    api.add_project_entry(workspace(app), "command", "python hello.py")

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        await press(pilot, "n")
        await type_into(pilot, "keep hello.py to one print call")
        await press(pilot, "enter")
        app.workbench.action_show_pane("memory")
        app.workbench.query_one(MemoryList).focus()
        await press(pilot, "down")  # the cursor on the first project memory entry
        app.clear_notifications()
        await settle(pilot)

    assert snap_compare(app, terminal_size=size, run_before=run_before)


async def test_P_in_the_inbox_makes_an_answer_project_memory(
    workbench: Callable[..., ForgeApp], tmp_path: Path
) -> None:
    from forgetui.tui.modals.inbox import InboxScreen
    from tests.engine.test_inbox import asked_four_times

    asked = asked_four_times(tmp_path)
    app = workbench(asked.path, engine="thread")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await press(pilot, "i")
        assert isinstance(app.screen, InboxScreen)
        assert "P to project memory" in screen_text(app)
        await press(pilot, "P")  # the waiting question: nothing to promote yet
        assert "not answered yet" in toasts(app)[-1]
        await press(pilot, "down", "P")
        await settle(pilot)
        made = entries(app, "preferences.yaml")
        assert [e["id"] for e in made] == ["preference-1"]
        assert "Q: Keep the trailing newline?" in made[0]["text"]
        assert toasts(app)[-1].startswith("promoted to project memory as preference-1")
        record = next(iter(asked.log.iter_backwards(("operator",))))
        assert (record.op, record.detail["from"]) == ("promote", "inbox 3")
        await press(pilot, "escape")
        assert "preference-1 Q: Keep" in screen_text(app)  # the memory pane
