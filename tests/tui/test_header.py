"""The status line as the operator reads it: one line, one step number, who holds a read-only
task, the model in use; at 80 columns the task, its status and step and the context tokens
come first and whole parts give way rather than being cut mid-number."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from forgetui.tui.app import ForgeApp
from forgetui.tui.header import Activity, StatusHeader, model_label, short_command
from forgetui.tui.snapshot import LockHolder

from .conftest import settle

pytestmark = pytest.mark.anyio

NARROW = (80, 24)
WIDE = (160, 48)


def header_line(app: ForgeApp) -> str:
    """The header's one row exactly as drawn (cropped to the terminal's width)."""
    return app.workbench.query_one(StatusHeader).render_line(0).text


async def show(pilot: Pilot[Any], app: ForgeApp, activity: Activity, **changes: Any) -> str:
    """Draw the header for the loaded snapshot (with `changes`) and `activity`; return it."""
    snapshot = app.workbench.snapshot
    assert snapshot is not None
    app.workbench.query_one(StatusHeader).show_state(replace(snapshot, **changes), activity)
    await pilot.pause()
    return header_line(app)


@pytest.mark.parametrize("size", [NARROW, WIDE])
async def test_idle_header_shows_task_status_step_and_context_first(
    workbench: Callable[..., ForgeApp], size: tuple[int, int]
) -> None:
    app = workbench("hello_world")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        line = header_line(app)
        parts = line.rstrip().split(" │ ")
        assert parts[0].endswith(" hello_world")
        assert parts[1:4] == ["ready", "step 0", "context 1,021/8,000 tok"]
        if size == WIDE:
            assert line.startswith(" forgetui  hello_world")
            assert line.rstrip().endswith("phase execution │ model replay │ $0.0000")
        else:  # the least important parts gave way whole: nothing is cut in half
            assert line.rstrip().endswith("phase execution")
            assert "$" not in line and "model" not in line


@pytest.mark.parametrize("size", [NARROW, WIDE])
async def test_a_step_in_flight_shows_one_step_number(
    workbench: Callable[..., ForgeApp], size: tuple[int, int]
) -> None:
    app = workbench("hello_world")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        # the snapshot says step 0 while the engine is already at step 7: only 7 is shown
        line = await show(pilot, app, Activity(running=True, step_in_flight=7, stage="execute"))
        assert "running step 7: executing" in line
        assert line.count("step") == 1
        assert "context 1,021/8,000 tok" in line

        line = await show(pilot, app, Activity(running=True))  # between two steps of a run
        assert " │ running │ step 0 │ " in line


async def test_a_real_run_never_shows_two_step_numbers(
    workbench: Callable[..., ForgeApp], quick_hello: Path, gated: Callable[..., list[Any]]
) -> None:
    models = gated(free_calls=2)
    app = workbench(quick_hello, engine="thread")
    async with app.run_test(size=NARROW) as pilot:
        await settle(pilot)
        await pilot.press("space")  # run: steps 1 and 2 go through, step 3 waits for its model
        assert await _wait(pilot, lambda: models and models[0].entered.is_set())
        # step 2's "waiting for the model" may still be up until the paced header repaints
        assert await _wait(pilot, lambda: "step 3: waiting for the model" in header_line(app))
        line = header_line(app)
        assert "running step 3: waiting for the model" in line
        assert line.count("step") == 1
        models[0].gate.set()
        while app.workbench.running:
            await settle(pilot)
        line = header_line(app)
        assert " │ complete │ step 5 │ " in line


async def _wait(pilot: Pilot[Any], done: Callable[[], object], rounds: int = 500) -> bool:
    for _ in range(rounds):
        if done():
            return True
        await pilot.pause(0.01)
    return False


@pytest.mark.parametrize("size", [NARROW, WIDE])
async def test_read_only_says_who_holds_the_task_in_full(
    workbench: Callable[..., ForgeApp], size: tuple[int, int]
) -> None:
    app = workbench("hello_world")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        holder = LockHolder(4242, "forgetui run /tmp/a/very/long/path/to/the/task --json")
        line = await show(pilot, app, Activity(), holder=holder)
        parts = line.split(" │ ")
        assert "hello_world" in parts[0]
        assert parts[1] == " READ-ONLY  pid 4242 (forgetui run) holds it"  # whole, early
        assert parts[2:4] == ["running", "step 0"]  # the holder writes it: not "ready"
        assert "/tmp" not in line and "--json" not in line

        line = await show(pilot, app, Activity(), holder=LockHolder(4242, ""))
        assert " READ-ONLY  pid 4242 holds it │ " in line


@pytest.mark.parametrize("size", [NARROW, WIDE])
async def test_waiting_for_the_operator_is_said_in_words(
    workbench: Callable[..., ForgeApp], size: tuple[int, int]
) -> None:
    app = workbench("hello_world", model="human")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        line = await show(pilot, app, Activity(running=True, awaiting_human=True))
        assert "step 1: waiting for your action" in line
        assert line.count("step") == 1
        if size == WIDE:
            assert "model human" in line


async def test_the_header_names_the_model(workbench: Callable[..., ForgeApp]) -> None:
    app = workbench("hello_world", model="human")
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        assert " │ model human │ " in header_line(app)
        line = await show(pilot, app, Activity(), model="openai/gpt-4o-mini")
        assert " │ model openai/gpt-4o-mini │ " in line


def test_long_commands_and_replay_paths_are_shortened() -> None:
    assert short_command("forgetui run /tmp/x1 --json") == "forgetui run"
    assert short_command("/usr/local/bin/forgetui executor") == "forgetui executor"
    assert short_command("python -c 'import x'") == "python"
    assert short_command("forgetui 'unbalanced") == "forgetui 'unbalanced"
    assert short_command("") == ""
    assert model_label("replay:/some/where/script.yaml") == "replay:script.yaml"
    assert model_label("openai/gpt-4o-mini") == "openai/gpt-4o-mini"
