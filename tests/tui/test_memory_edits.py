"""Memory edits say what they did: `x` on a pinned item asks first, `e` keeps a result's fields
fields, a note that fills memory says what it pushed out, and the next step's preview says what
will leave the context, in the words its diff uses once the step has run."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from textual.widgets import TextArea

from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.tui.app import ForgeApp
from forgetui.tui.modals.confirm import ConfirmScreen
from forgetui.tui.modals.memory_detail import MemoryDetailScreen
from forgetui.tui.panes.memory import MemoryList, MemoryPane

from .conftest import SIZE, custom_sample, press, screen_text, settle, type_into

pytestmark = pytest.mark.anyio


def toasts(app: ForgeApp) -> list[str]:
    return [n.message for n in app._notifications]


def memory_refs(app: ForgeApp) -> list[str]:
    return [item.ref for item in TaskFolder.open(app.reader.path).load_memory().items]


async def test_evicting_a_pinned_item_asks_first(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await press(pilot, "s", "s")
        app.workbench.query_one(MemoryList).focus()
        await press(pilot, "p", "x")  # pin action_result@1, then ask to evict it
        assert isinstance(app.screen, ConfirmScreen)
        assert "Evict pinned item action_result@1?" in screen_text(app)
        await press(pilot, "n")
        assert not isinstance(app.screen, ConfirmScreen)
        assert memory_refs(app) == ["action_result@1", "action_result@2"]  # kept

        await press(pilot, "x", "y")
        assert memory_refs(app) == ["action_result@2"]
        assert toasts(app)[-1] == "evicted action_result@1"

        await press(pilot, "x")  # not pinned: evicted at once, no question
        assert not isinstance(app.screen, ConfirmScreen)
        assert memory_refs(app) == []


async def test_editing_a_result_keeps_its_fields_and_refuses_broken_yaml(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await press(pilot, "s", "s")
        app.workbench.query_one(MemoryList).focus()
        await press(pilot, "down", "e")  # action_result@2: read_file's fields and output
        assert isinstance(app.screen, MemoryDetailScreen)
        assert "YAML fields: saved as fields" in screen_text(app)
        editor = app.screen.query_one("#memory-editor", TextArea)
        assert "action: read_file" in editor.text and "output: |" in editor.text
        before = (app.reader.path / "working_memory.yaml").read_text()

        editor.text = "action: [read_file"
        await press(pilot, "ctrl+s")
        assert isinstance(app.screen, MemoryDetailScreen)  # stays open, says why
        assert "not valid YAML" in screen_text(app)
        editor.text = "test_hello.py wants the greeting"
        await press(pilot, "ctrl+s")
        assert isinstance(app.screen, MemoryDetailScreen)
        assert "must keep that shape; nothing saved" in screen_text(app)
        assert (app.reader.path / "working_memory.yaml").read_text() == before

        editor.text = "action: read_file\nresult: success\nsummary: wants the greeting\n"
        await press(pilot, "ctrl+s")
        assert not isinstance(app.screen, MemoryDetailScreen)
        content = TaskFolder.open(app.reader.path).load_memory().items[1].content
        assert content == {"action": "read_file", "result": "success",
                           "summary": "wants the greeting"}  # fmt: skip
        assert toasts(app)[-1] == "edited action_result@2"


async def test_a_note_edits_as_text(workbench: Callable[..., ForgeApp], quick_hello: Path) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await press(pilot, "n")
        await type_into(pilot, "keep it short")
        await press(pilot, "enter")
        app.workbench.query_one(MemoryList).focus()
        await press(pilot, "e")
        assert "plain text: saved as text" in screen_text(app)
        editor = app.screen.query_one("#memory-editor", TextArea)
        editor.text = "key: looks like YAML"
        await press(pilot, "ctrl+s")
        assert TaskFolder.open(app.reader.path).load_memory().items[0].content == (
            "key: looks like YAML"
        )


def full_memory_sample(tmp_path: Path) -> Path:
    """hello_world whose working memory is full (2 of 2) with a file loaded for one step."""
    sample = custom_sample(tmp_path, "hello_world", "full")
    memory = {"max_items": 2, "items": [
        {"type": "note", "key": "old", "step": 0, "content": "the oldest note"},
        {"type": "loaded_context", "key": "full_file:test_hello.py", "step": 0,
         "content": "def test(): ...", "expires_after_steps": 1},
    ]}  # fmt: skip
    (sample / "working_memory.yaml").write_text(yaml.safe_dump(memory))
    return sample


async def test_the_preview_says_what_leaves_and_the_diff_agrees(
    workbench: Callable[..., ForgeApp], tmp_path: Path
) -> None:
    app = workbench(full_memory_sample(tmp_path))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "leaving at the next step" in text
        assert "- old  leaves (pushed out) · step 1's result makes 3 items: memory holds at" in text
        assert "- full_file:test_hello.py  leaves (expired) · shown for the last time at" in text
        await press(pilot, "s", "s", "left_square_bracket")  # step 2's context as sent
        text = screen_text(app)
        assert "changes since step 1" in text
        assert "- old  left (pushed out)" in text
        assert "- full_file:test_hello.py  left (expired)" in text


async def test_a_note_into_full_memory_says_what_it_pushed_out(
    workbench: Callable[..., ForgeApp], tmp_path: Path
) -> None:
    app = workbench(full_memory_sample(tmp_path))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await press(pilot, "n")
        await type_into(pilot, "prefer print")
        await press(pilot, "enter")
        assert toasts(app) == [
            "added note note@0; pushed out old (the oldest note) — memory holds at most 2 items"
        ]
        assert [row.ref for row in app.workbench.query_one(MemoryPane).rows] == [
            "full_file:test_hello.py", "note@0",
        ]  # fmt: skip
