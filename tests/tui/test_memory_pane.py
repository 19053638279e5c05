"""Working memory: pin, unpin, evict, note and edit, each reflected in the next step's preview
at once and recorded as an operator change."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.tui.app import ForgeApp
from forgetui.tui.panes.context import ContextPane
from forgetui.tui.panes.memory import MemoryList, MemoryPane

from .conftest import SIZE, custom_sample, press, screen_text, settle, type_into

pytestmark = pytest.mark.anyio


def preview_total(app: ForgeApp) -> int:
    snapshot = app.workbench.snapshot
    assert snapshot is not None and snapshot.context is not None
    return snapshot.context.total_tokens


def current_state(app: ForgeApp) -> str:
    snapshot = app.workbench.snapshot
    assert snapshot is not None and snapshot.context is not None
    return next(s.text for s in snapshot.context.sections if s.name == "current_state")


def operator_ops(app: ForgeApp) -> list[str]:
    log = TaskFolder.open(app.reader.path).log
    return [r.op for r in log.records() if r.kind == "operator"]


async def test_pin_unpin_and_evict_change_the_preview_at_once(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "s", "s", "n")  # list_dir, read_file, then a note
        await type_into(pilot, "keep it short")
        await press(pilot, "enter")
        assert "keep it short" in current_state(app)  # the next context shows the note
        pane = app.workbench.query_one(MemoryPane)
        refs = ["action_result@1", "action_result@2", "note@2"]
        assert [row.ref for row in pane.rows] == refs
        app.workbench.query_one(MemoryList).focus()
        await press(pilot, "down", "down")  # the note
        start = preview_total(app)
        assert "pinned: true" not in current_state(app)

        await press(pilot, "p")
        assert pane.rows[2].pinned
        assert "●" in screen_text(app)
        assert "pinned: true" in current_state(app)  # the next context says so

        await press(pilot, "p")
        assert not pane.rows[2].pinned
        assert "pinned: true" not in current_state(app)
        assert preview_total(app) == start

        await press(pilot, "up", "x")  # evict the read_file result and its output
        assert [row.ref for row in pane.rows] == ["action_result@1", "note@2"]
        assert preview_total(app) < start
        assert operator_ops(app) == ["note", "pin", "unpin", "evict"]


async def test_unpinning_clears_an_over_budget_preview(
    workbench: Callable[..., ForgeApp], tmp_path: Path
) -> None:
    sample = custom_sample(
        tmp_path, "hello_world", "over",
        task={"limits": {"max_steps": 20, "token_budget": {"current_state": 40}}},
    )  # fmt: skip
    big = "\n".join(f"line {i}: keep this verbatim, every word of it" for i in range(60))
    memory = {"max_items": 5, "items": [{"type": "note", "key": "spec", "content": big,
                                         "pinned": True}]}  # fmt: skip
    (sample / "working_memory.yaml").write_text(yaml.safe_dump(memory))
    app = workbench(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        context = app.workbench.query_one(ContextPane)
        assert context.has_class("-over-budget")
        assert "over budget: context over budget: pinned items spec" in screen_text(app)
        app.workbench.query_one(MemoryList).focus()
        await press(pilot, "p")
        assert not context.has_class("-over-budget")
        assert "over budget:" not in screen_text(app)


async def test_memory_commands_wait_while_a_step_runs(
    workbench: Callable[..., ForgeApp], quick_hello: Path, gated: Callable[..., list]
) -> None:
    models = gated()
    app = workbench(quick_hello, engine="thread")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "n", "escape")
        await pilot.press("s")
        await pilot.pause()
        assert models[0].entered.wait(10)
        assert not app.workbench.applies("add_note")
        assert not app.workbench.applies("toggle_pin")
        models[0].gate.set()
        await settle(pilot)
        assert app.workbench.applies("add_note")


async def test_limits_are_set_from_the_workbench(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "l")
        await type_into(pilot, "steps 3 cost 0.5")
        await press(pilot, "enter")
        assert operator_ops(app) == ["limits"]
        state = TaskFolder.open(app.reader.path).load_state()
        assert (state.max_steps, state.max_cost_usd) == (3, 0.5)
        assert "max_steps 3, max_cost $0.50" in current_state(app)  # the agent sees it
