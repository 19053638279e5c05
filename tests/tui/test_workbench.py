"""The run loop: single step, run/pause between steps, failures as recorded steps, the human
model, quitting mid-step, and the message chain the executor worker posts; the paused and
running snapshots."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.message import Message
from textual.worker import WorkerCancelled

from forgetui.engine.folder.records import IntentRecord, ResultRecord
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.tui.app import ForgeApp
from forgetui.tui.messages import EscalationRaised, StepProgress, StepRecorded, StepStarted
from forgetui.tui.modals.text_prompt import TextPromptScreen

from .conftest import SIZE, custom_sample, press, screen_text, settle, type_into

pytestmark = pytest.mark.anyio


def folder_of(app: ForgeApp) -> TaskFolder:
    return TaskFolder.open(app.reader.path)


async def test_opens_paused_then_single_steps_one_model_call(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    seen: list[Message] = []
    app = workbench(quick_hello)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "compiled context: next step preview" in text
        assert "step 0" in text.splitlines()[0]
        assert app.workbench.query_one("#status-header").has_class("-paused")
        assert len(folder_of(app).log) == 0  # nothing ran by itself

        await press(pilot, "s")
        state = folder_of(app).load_state()
        assert (state.step, state.totals.model_calls, state.status) == (1, 1, "paused")
        chain = [type(m) for m in seen if isinstance(m, StepStarted | StepProgress | StepRecorded)]
        assert chain[0] is StepStarted and chain[-1] is StepRecorded
        assert StepProgress in chain
        assert "listed .: 0 dirs, 2 files" in screen_text(app)  # the new row
        assert not app.workbench.running


async def test_run_goes_to_completion_and_pause_lands_between_steps(
    workbench: Callable[..., ForgeApp], quick_hello: Path, gated: Callable[..., list[Any]]
) -> None:
    models = gated(free_calls=1)
    app = workbench(quick_hello, engine="thread")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("space")  # run: step 1 goes through, step 2 waits for its model
        await pilot.pause()
        assert models[0].entered.wait(10)
        assert app.workbench.running and app.workbench.step_in_flight == 2
        await pilot.press("space")  # pause while step 2 is in flight ...
        assert app.workbench.step_in_flight == 2  # ... which still finishes
        models[0].gate.set()
        await settle(pilot)
        state = folder_of(app).load_state()
        assert (state.step, state.status) == (2, "paused")  # recorded, nothing after it
        assert not app.workbench.running

        await press(pilot, "space")  # run again, to the end
        while app.workbench.running:
            await settle(pilot)
        state = folder_of(app).load_state()
        assert (state.step, state.status) == (5, "complete")
        assert "complete" in screen_text(app).splitlines()[0]
        assert not app.workbench.applies("run_pause")


async def test_a_bad_model_is_a_recorded_step_never_a_crash(
    workbench: Callable[..., ForgeApp], tmp_path: Path
) -> None:
    sample = custom_sample(
        tmp_path, "hello_world", "garbage", replay=[{"text": "I would rather not say."}]
    )
    seen: list[Message] = []
    app = workbench(sample)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await settle(pilot)
        await press(pilot, "s")
        last = folder_of(app).log.tail(1)[0]
        assert isinstance(last, ResultRecord)
        assert last.result == "failure" and "unparsed" in last.summary
        await press(pilot, "s")  # the script has run out: the model "fails" -> escalated
        state = folder_of(app).load_state()
        assert state.pending_escalation is not None
        assert state.pending_escalation.reason == "model_error"
        assert any(isinstance(m, EscalationRaised) for m in seen)
        assert app.is_running
        assert "escalated" in screen_text(app).splitlines()[0]


async def test_an_unexpected_error_in_a_step_is_reported_not_fatal(
    workbench: Callable[..., ForgeApp], gated: Callable[..., list[Any]]
) -> None:
    models = gated(fail=RuntimeError("the model adapter broke"))
    app = workbench("hello_world", engine="thread")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("s")
        models[-1].gate.set()
        await settle(pilot)
        assert app.is_running
        assert app.workbench.step_in_flight is None and not app.workbench.running
        assert any("the model adapter broke" in n.message for n in app._notifications)
        assert app.workbench.applies("single_step")  # the operator can try again


async def test_human_model_asks_for_the_action_first(
    workbench: Callable[..., ForgeApp],
) -> None:
    app = workbench("hello_world", model="human")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "space", "escape")  # asked, cancelled: nothing runs
        assert folder_of(app).load_state().step == 0
        assert not app.workbench.running

        await press(pilot, "s")
        assert isinstance(app.screen, TextPromptScreen)
        assert "list_dir(path)" in screen_text(app)  # the actions available now
        await type_into(pilot, "list_dir path=.")
        await press(pilot, "enter")
        folder = folder_of(app)
        assert folder.load_state().step == 1
        intent = folder.log.records(0, 1)[0]
        assert isinstance(intent, IntentRecord)
        assert (intent.action, intent.raw_response) == ("list_dir", "list_dir path=.")


async def test_quit_waits_for_the_step_in_flight(
    workbench: Callable[..., ForgeApp], gated: Callable[..., list[Any]]
) -> None:
    models = gated()
    app = workbench("hello_world", engine="thread")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await pilot.pause()
        assert models[0].entered.wait(10)
        await pilot.press("q")
        assert app.is_running  # still there: the step is in flight
        models[-1].gate.set()
        # quitting cancels the view reloads; only the step has to finish
        with contextlib.suppress(WorkerCancelled):
            await app.workers.wait_for_complete()
        await pilot.pause()
    assert TaskFolder.open(app.reader.path).load_state().step == 1
    assert not (app.reader.path / "lock").exists()  # the executor let go of the task


def test_paused_preview_snapshot(
    snap_compare: Any, workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)

    async def run_before(pilot: Any) -> None:
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_running_snapshot(
    snap_compare: Any, workbench: Callable[..., ForgeApp], quick_hello: Path,
    gated: Callable[..., list[Any]],
) -> None:  # fmt: skip
    models = gated(free_calls=2)
    app = workbench(quick_hello, engine="thread")
    screenshot = app.export_screenshot

    def export_then_release(*args: Any, **kwargs: Any) -> str:
        svg = screenshot(*args, **kwargs)
        models[-1].gate.set()  # let the step in flight finish once the picture is taken
        return svg

    app.export_screenshot = export_then_release  # type: ignore[method-assign]

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        await press(pilot, "s", "s")
        await pilot.press("space")
        await pilot.pause()
        assert models[-1].entered.wait(10)
        while app.workbench.stage != "model":
            await pilot.pause()
        app.clear_notifications()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


@pytest.mark.parametrize("size", [(80, 24), (110, 30)])
async def test_a_small_terminal_still_shows_the_compiled_context(
    workbench: Callable[..., ForgeApp], quick_hello: Path, size: tuple[int, int]
) -> None:
    """Under 120 columns the side panes give way: every section of the next step's context
    is named, with its tokens, and the context pane keeps half the width."""
    app = workbench(quick_hello)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        text = screen_text(app)
        for name in ("system_prompt", "task_frame", "current_state", "available_actions"):
            assert name in text
        assert "574 / 1,000" in text
        context = app.workbench.query_one("#context")
        assert context.outer_size.width >= size[0] // 2
