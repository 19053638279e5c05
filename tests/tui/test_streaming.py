"""A model's answer streams into the workbench: the line under the header counts it, the action
log pane shows its text as it arrives, and the step key offers to stop it. Driven against the
loopback server, which streams its completions a few characters at a time."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from forgetui.engine.api import LogRow, StepEvent
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.start.samples import init_sample
from forgetui.tui.answer_line import AnswerLine, answer_figures, answer_rate
from forgetui.tui.app import ForgeApp
from forgetui.tui.launch import GIL_SWITCH_INTERVAL_S
from forgetui.tui.messages import StepProgress
from forgetui.tui.panes.answer_view import AnswerView
from forgetui.tui.session import EngineProcess
from tests.fake_openai import FakeOpenAI, stream_reply

from .conftest import screen_text, settle

pytestmark = pytest.mark.anyio

ACTION = "I list the workspace first.\n\n```yaml\naction: list_dir\nargs:\n  path: .\n```\n"
PROSE = "Let me think about what the task needs before I act on it. " * 40  # ~2,400 chars


@pytest.fixture(autouse=True)
def gil_switch_as_launched() -> Iterator[None]:
    """The GIL hand-over the workbench runs with (launch sets it): with the engine in a thread
    of the UI's process, the default 5 ms makes every key wait behind the stream's parsing."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(GIL_SWITCH_INTERVAL_S)
    yield
    sys.setswitchinterval(before)


async def wait_for(pilot: Pilot[Any], condition: Callable[[], bool], seconds: float = 5) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting on the workbench"
        await pilot.pause(0.01)


def answer_shown(app: ForgeApp) -> tuple[str, int]:
    """The answer text in the log pane's view and the tokens on the line under the header."""
    view = app.workbench.query_one(AnswerView)
    line = app.workbench.query_one(AnswerLine)
    return view.text, line.event.tokens if line.event is not None else 0


def last_row(app: ForgeApp) -> LogRow:
    _count, rows = app.reader.log_tail()
    return rows[-1]


def streaming_app(
    workbench: Callable[..., ForgeApp], task: Path, fake: FakeOpenAI, engine: str
) -> ForgeApp:
    return workbench(task, model="openai/x", api_base=fake.url, engine=engine)


async def test_a_streamed_answer_shows_as_it_arrives_then_the_step_is_recorded(
    workbench: Callable[..., ForgeApp], quick_hello: Path, fake_openai: FakeOpenAI
) -> None:
    # 18 chunks of 4 characters, 60 ms apart: about a second of streaming
    fake_openai.queue(stream_reply(ACTION, chunk_delay_s=0.06, chunk_chars=4))
    app = streaming_app(workbench, quick_hello, fake_openai, "thread")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("s")
        seen: list[tuple[str, int]] = []
        mid_stream = ""
        deadline = time.monotonic() + 30  # the first litellm call imports it
        while app.workbench.step_in_flight is not None:
            assert time.monotonic() < deadline
            shown = answer_shown(app)
            if shown[0] and (not seen or shown != seen[-1]):
                seen.append(shown)
                if len(seen) == 3:
                    mid_stream = screen_text(app)
            await pilot.pause(0.02)
        await settle(pilot)

        texts = [text for text, _ in seen]
        tokens = [count for _, count in seen]
        assert len(seen) >= 4, seen  # it grew over several repaints, not all at once
        assert all(b.startswith(a) and b != a for a, b in pairwise(texts))
        assert tokens == sorted(tokens) and tokens[0] < tokens[-1]
        assert ACTION.startswith(texts[-1])
        assert fake_openai.requests[0].get("stream") is True
        # mid-stream, the line under the header and the text so far were on screen
        assert "step 1 answer" in mid_stream and "tok/s" in mid_stream
        assert "s stop the answer" in mid_stream and "s stop answer" in mid_stream  # + footer
        assert "the model's answer so far" in mid_stream
        assert texts[2].splitlines()[-1].strip() in mid_stream
        # recorded: the row shows the action, the line and the answer's view are gone
        row = last_row(app)
        assert (row.step, row.action, row.result) == (1, "list_dir", "success")
        after = screen_text(app)
        assert "tok/s" not in after and "answer so far" not in after
        assert "list_dir" in after and " s step " in after
        assert app.reader.record_detail(row.record).raw_response == ACTION


@pytest.mark.parametrize("engine", ["thread", "process"])
async def test_s_during_a_stream_stops_it_and_the_partial_answer_is_recorded(
    workbench: Callable[..., ForgeApp], quick_hello: Path, fake_openai: FakeOpenAI, engine: str
) -> None:
    """The process engine is stopped by a signal: its pipe is busy with the step."""
    # 300 chunks, 30 ms apart: about 9 s if nobody stops it
    fake_openai.queue(stream_reply(PROSE, chunk_delay_s=0.03, chunk_chars=8))
    app = streaming_app(workbench, quick_hello, fake_openai, engine)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("space")  # a run: it pauses after the stopped step
        # the engine process imports litellm at its first call: seconds on a busy machine
        await wait_for(pilot, lambda: len(answer_shown(app)[0]) > 40, 20)

        await pilot.press("s")
        await wait_for(pilot, lambda: app.screen.id == "stop-answer-confirm")
        assert "Stop the answer?" in screen_text(app)
        await pilot.press("escape")  # no: it goes on
        await wait_for(pilot, lambda: app.screen is app.workbench)
        view = app.workbench.query_one(AnswerView)
        await wait_for(pilot, lambda: view.max_scroll_y > 0)  # longer than the view
        assert view.scroll_y == view.max_scroll_y  # which shows its end
        view.scroll_to(y=0, animate=False)  # the operator scrolls up to read the beginning
        await pilot.pause()
        before = len(view.text)
        await wait_for(pilot, lambda: len(view.text) > before + 20)
        assert view.scroll_y == 0  # and stays there while the answer grows

        await pilot.press("s")
        await wait_for(pilot, lambda: app.screen.id == "stop-answer-confirm")
        seen_before_stop = answer_shown(app)[0]
        await pilot.press("y")
        await wait_for(pilot, lambda: app.workbench.step_in_flight is None)
        shown_last = answer_shown(app)
        await settle(pilot)

        [served] = fake_openai.streams  # cut mid-answer (how soon: bench/bench_streaming.py)
        await wait_for(pilot, lambda: served.closed_by_client)  # the server saw it closed
        assert served.sent < served.chunks
        assert len(fake_openai.requests) == 1  # and the run did not go on
        row = last_row(app)
        assert (row.step, row.result) == (1, "skipped")
        assert "stopped the answer" in row.summary
        raw = app.reader.record_detail(row.record).raw_response
        assert raw and PROSE.startswith(raw) and len(raw) < len(PROSE)
        assert raw.startswith(seen_before_stop)  # all the operator read is in the record
        assert "finish_reason: stopped" in app.reader.record_detail(row.record).record_yaml
        assert shown_last == ("", 0)  # the line and the view went with the step
        state = TaskFolder.open(app.reader.path).load_state()
        assert state.status == "paused" and not app.workbench.running
        text = screen_text(app)
        assert "skipped" in text and "tok/s" not in text


async def test_the_stop_follows_a_remapped_step_key_and_goes_when_the_answer_ends(
    workbench: Callable[..., ForgeApp], quick_hello: Path, fake_openai: FakeOpenAI
) -> None:
    fake_openai.queue(stream_reply(ACTION, chunk_delay_s=0.2, chunk_chars=4))
    app = workbench(
        quick_hello, model="openai/x", api_base=fake_openai.url, engine="thread",
        keymap={"step": "w"},
    )  # fmt: skip
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("w")
        await wait_for(pilot, lambda: bool(answer_shown(app)[0]), 60)
        await pilot.pause()  # painted
        text = screen_text(app)
        assert "w stop the answer" in text and "w stop answer" in text
        await pilot.press("s")  # not the step key any more: nothing is asked
        await pilot.pause()
        assert app.screen is app.workbench
        await pilot.press("w")
        await wait_for(pilot, lambda: app.screen.id == "stop-answer-confirm", 30)
        # nobody answers: the answer ends, the question goes, and the step is recorded
        await wait_for(pilot, lambda: app.screen is app.workbench, 60)
        await settle(pilot)
        assert last_row(app).action == "list_dir"
        assert fake_openai.streams[0].complete


def test_answer_line_snapshot(
    snap_compare: Any, workbench: Callable[..., ForgeApp], quick_hello: Path,
    gated: Callable[..., list[Any]],
) -> None:  # fmt: skip
    """The line and the answer's view at 80x24, from fixed answer events (the clock is off in
    tests: elapsed and tok/s are the event's own)."""
    models = gated(free_calls=1)
    app = workbench(quick_hello, engine="thread")
    screenshot = app.export_screenshot

    def export_then_release(*args: Any, **kwargs: Any) -> str:
        svg = screenshot(*args, **kwargs)
        models[-1].gate.set()
        return svg

    app.export_screenshot = export_then_release  # type: ignore[method-assign]

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        await pilot.press("s")
        await pilot.pause()
        assert models[-1].entered.wait(10)
        answer = "I read the test first, to see what it expects.\n\n```yaml\naction: read_file\n"
        for tokens, end in ((9, 30), (21, 60), (312, len(answer))):
            event = StepEvent(2, "answer", answer[:end], tokens=tokens, elapsed_s=3.7)
            app.workbench.post_message(StepProgress(event))
            await pilot.pause()
        app.clear_notifications()
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def test_the_rate_is_the_models_writing_speed_not_its_wait_for_the_prompt() -> None:
    """A local server reads a long prompt for seconds before the first token: counted in, a
    model writing 80 tokens a second would show as 20."""
    first = StepEvent(1, "answer", "I", tokens=1, elapsed_s=3.0)
    assert answer_rate(first, first) == pytest.approx(1 / 3.0)  # too soon: the call's rate
    last = StepEvent(1, "answer", "I ...", tokens=81, elapsed_s=4.0)
    assert answer_rate(first, last) == pytest.approx(80.0)
    assert answer_figures(last.tokens, last.elapsed_s, 80.0) == "81 tok · 80 tok/s · 4.0 s"


def test_the_engine_process_builds_its_model_with_the_workbench_options(
    quick_hello: Path, fake_openai: FakeOpenAI
) -> None:
    """The options (flags, config) reach the child as one argument and every model it builds."""
    fake_openai.queue(stream_reply(ACTION), stream_reply(ACTION))
    options = {"max_output_tokens": 77, "temperature": 0.5, "tools": "off"}
    task = init_sample(quick_hello).path
    session = EngineProcess(task, "openai/x", fake_openai.url, options)
    try:
        events: list[StepEvent] = []
        session.step(events.append)
        session.set_model("openai/y")  # a model chosen later is built with them too
        session.step(events.append)
    finally:
        session.close()
    assert [r["model"] for r in fake_openai.requests] == ["x", "y"]
    for request in fake_openai.requests:
        assert (request["max_tokens"], request["temperature"]) == (77, 0.5)
        assert "tools" not in request
    assert any(event.stage == "answer" for event in events)  # the events crossed the pipe
