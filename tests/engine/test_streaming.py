"""Streamed answers end to end: real litellm, real HTTP, a loopback server sending Server-Sent
Events. The answer reaches the observer as it arrives, the usage is the
server's, the operator can stop it, and a server that trickles is cut at the timeout."""

from __future__ import annotations

import itertools
import re
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from forgetui.engine.folder.catalog import actions_of
from forgetui.engine.folder.records import IntentRecord, ResultRecord
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.llm import LiteLLMModel
from forgetui.engine.llm.stream import STOPPED, AnswerStream, StreamProgress
from forgetui.engine.step.executor import Executor
from forgetui.engine.step.reports import StepEvent
from tests.engine.helpers import make_task
from tests.fake_openai import (
    FakeOpenAI,
    ServedStream,
    slow_reply,
    stream_reply,
    text_reply,
    tool_call_reply,
)

MESSAGES = [
    {"role": "system", "content": "You are the agent. One action per answer."},
    {"role": "user", "content": "Goal: make the tests pass.\nLast result: none."},
]
TOOLS = actions_of("execution")
ACTION = "I list the workspace first.\n\n```yaml\naction: list_dir\nargs:\n  path: .\n```"
PROSE = "Let me think about what the task needs before I act on it. " * 20  # 1,200 chars
USAGE = {"prompt_tokens": 812, "completion_tokens": 17}


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-streaming")


def model(fake: FakeOpenAI, **options: object) -> LiteLLMModel:
    settings: dict[str, object] = {
        "api_base": fake.url,
        "timeout_s": 10.0,
        "deadline_s": 60.0,
        "backoff_base_s": 0.01,
        "backoff_cap_s": 0.05,
    }
    settings.update(options)
    return LiteLLMModel("openai/gpt-4o-mini", **settings)  # type: ignore[arg-type]


def warmed(fake: FakeOpenAI, **options: object) -> LiteLLMModel:
    """A model whose first call is behind it: litellm's lazy imports take seconds on a
    process's first call, which a test that times the answer must not measure."""
    fake.queue(text_reply("```yaml\naction: run_check\n```"))
    llm = model(fake, **options)
    assert llm.complete(MESSAGES, TOOLS).action == "run_check"
    return llm


def chunks(text: str) -> int:
    """The chunks the server sends `text` in: 4 characters each."""
    return -(-len(text) // 4)


def served(fake: FakeOpenAI, index: int, *, closed: bool, seconds: float = 3) -> ServedStream:
    """The server's record of a streamed answer, once its handler has finished with it (it
    notices a closed connection at its next write)."""
    ends = time.monotonic() + seconds
    while not (len(fake.streams) > index and fake.streams[index].closed_by_client == closed):
        assert time.monotonic() < ends, fake.streams
        time.sleep(0.01)
    return fake.streams[index]


def intents_and_results(folder: TaskFolder) -> tuple[list[IntentRecord], list[ResultRecord]]:
    records = folder.log.records()
    return (
        [r for r in records if isinstance(r, IntentRecord)],
        [r for r in records if isinstance(r, ResultRecord)],
    )


def test_the_answer_reaches_the_observer_as_it_arrives(
    tmp_path: Path, fake_openai: FakeOpenAI
) -> None:
    # 17 chunks of 4 characters, 40 ms apart: about 0.7 s of streaming
    fake_openai.queue(stream_reply(ACTION, chunk_delay_s=0.04, usage=USAGE))
    folder = make_task(tmp_path, [])
    seen: list[tuple[float, StepEvent]] = []
    with Executor(
        folder, model(fake_openai), observer=lambda e: seen.append((time.monotonic(), e))
    ) as ex:
        report = ex.step()
    assert (report.action, report.result) == ("list_dir", "success")

    answers = [(at, event) for at, event in seen if event.stage == "answer"]
    texts = [event.detail for _, event in answers]
    tokens = [event.tokens for _, event in answers]
    grew = [(a, b) for a, b in itertools.pairwise(zip(texts, tokens, strict=True)) if a != b]
    assert len(grew) >= 3, texts  # several repaints, not the whole answer at once
    assert all(b[0].startswith(a[0]) and b[0] != a[0] and b[1] > a[1] for a, b in grew)
    assert texts[-1] == ACTION and tokens[-1] == chunks(ACTION)  # the last is always shown
    assert answers[-1][0] - answers[0][0] >= 0.3  # spread over the stream, not in one burst
    assert all(e.elapsed_s <= f.elapsed_s for (_, e), (_, f) in itertools.pairwise(answers))
    assert [e.stage for _, e in seen].index("model") < [e.stage for _, e in seen].index("answer")

    [request] = fake_openai.requests
    assert request["stream"] is True and request["stream_options"] == {"include_usage": True}
    [intent], _ = intents_and_results(folder)
    assert intent.raw_response == ACTION and intent.finish_reason == "stop"
    assert intent.streamed is True and intent.tools_sent is True and intent.system_role is None
    # the server's own count, from its usage chunk
    assert (intent.prompt_tokens, intent.completion_tokens) == (812, 17)
    assert intent.cost > 0


def test_streamed_tool_call_deltas_make_the_same_call_as_a_plain_answer(
    fake_openai: FakeOpenAI,
) -> None:
    call = tool_call_reply(("read_file", {"path": "src/app.py", "start_line": "5"}), usage=USAGE)
    fake_openai.queue(replace(call, chunk_chars=3), call)
    shown: list[StreamProgress] = []
    streamed = model(fake_openai).complete(MESSAGES, TOOLS, AnswerStream(shown.append))
    plain = model(fake_openai, stream=False).complete(MESSAGES, TOOLS)

    assert (streamed.action, streamed.args) == (
        "read_file",
        {"path": "src/app.py", "start_line": 5},
    )
    assert (streamed.raw, streamed.finish_reason) == (plain.raw, plain.finish_reason)
    assert (streamed.prompt_tokens, streamed.completion_tokens) == (812, 17)
    assert streamed.cost == pytest.approx(plain.cost)
    assert (streamed.streamed, plain.streamed) == (True, False)
    assert "stream" not in fake_openai.requests[1]
    # the operator watched the call being written: its name, then the arguments' JSON
    assert shown[-1].text == 'read_file {"path": "src/app.py", "start_line": "5"}'


def test_without_a_usage_chunk_nothing_is_taken_for_the_servers_count(
    fake_openai: FakeOpenAI,
) -> None:
    """litellm estimates the usage (tiktoken) when the server sent none; that estimate must not
    be recorded as the server's: prompt tokens unknown (0), completion tokens the chunks."""
    fake_openai.queue(replace(stream_reply(ACTION), stream_usage=False))
    reply = model(fake_openai).complete(MESSAGES, TOOLS)
    assert reply.action == "list_dir"
    assert reply.prompt_tokens == 0
    assert reply.completion_tokens == chunks(ACTION)


def test_a_server_that_ignores_stream_still_answers(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue(replace(text_reply(ACTION, USAGE), streams=False))
    reply = model(fake_openai).complete(MESSAGES, TOOLS, AnswerStream())
    assert (reply.action, reply.error, reply.transport_failed) == ("list_dir", None, False)
    assert (reply.prompt_tokens, reply.completion_tokens) == (812, 17)
    assert reply.streamed is False  # what came, not what was asked
    assert fake_openai.requests[0]["stream"] is True and len(fake_openai.requests) == 1
    assert fake_openai.streams == []


def test_a_reset_mid_stream_is_retried_and_the_answer_starts_over(
    fake_openai: FakeOpenAI,
) -> None:
    fake_openai.queue(replace(stream_reply(PROSE), drop_after=6), stream_reply(ACTION, usage=USAGE))
    shown: list[StreamProgress] = []
    reply = model(fake_openai).complete(MESSAGES, TOOLS, AnswerStream(shown.append, interval_s=0))
    assert (reply.action, reply.transport_failed) == ("list_dir", False)
    assert len(fake_openai.requests) == 2
    texts = [progress.text for progress in shown]
    assert PROSE[:20] in texts  # the first attempt was shown as it came...
    assert texts[-1] == ACTION  # ...and the answer is the second attempt's alone
    assert reply.raw == ACTION


def test_a_reset_on_every_attempt_names_its_kind_and_keeps_the_partial_answer(
    fake_openai: FakeOpenAI,
) -> None:
    dropped = replace(stream_reply(PROSE), drop_after=4)
    fake_openai.queue(dropped, dropped, dropped)
    reply = model(fake_openai).complete(MESSAGES, TOOLS, AnswerStream())
    assert reply.transport_failed and reply.failure_kind == "reset"
    assert reply.error is not None
    assert reply.error.startswith(f"connection to {fake_openai.url} reset after 3 attempts")
    assert reply.raw == PROSE[:12]  # what the last attempt got before the reset: 3 chunks


def test_a_trickling_server_is_cut_at_the_timeout_for_the_whole_answer(
    fake_openai: FakeOpenAI,
) -> None:
    """Each chunk comes well within the client's per-read timeout; the answer never ends."""
    llm = warmed(fake_openai, timeout_s=1.0)
    fake_openai.queue(stream_reply(PROSE, chunk_delay_s=0.1), text_reply("not asked for"))
    reply = llm.complete(MESSAGES, TOOLS, AnswerStream())  # how soon: bench/bench_streaming.py
    assert reply.transport_failed and reply.failure_kind == "timeout"
    assert reply.error == (
        f"timed out after 1 s waiting for {fake_openai.url} "
        "(not retried: a server that timed out may still be busy with the request)"
    )
    assert 4 <= len(reply.raw) < len(PROSE) and PROSE.startswith(reply.raw)
    assert len(fake_openai.requests) == 2 and fake_openai.pending == 1  # not retried
    trickled = served(fake_openai, 1, closed=True)
    assert trickled.sent < trickled.chunks  # the server was told to stop


def test_a_stop_before_the_first_token_returns_at_once(fake_openai: FakeOpenAI) -> None:
    """A server still reading the prompt sends nothing yet; the stop does not wait for it."""
    llm = warmed(fake_openai)
    fake_openai.queue(slow_reply(30, stream_reply(ACTION)))
    answer = AnswerStream()
    threading.Timer(0.3, answer.request_stop).start()
    reply = llm.complete(MESSAGES, TOOLS, answer)  # how soon: bench/bench_streaming.py
    assert len(fake_openai.streams) == 1  # the warm-up's: back before the 30 s reply began
    assert reply.stopped and reply.finish_reason == STOPPED and not reply.transport_failed
    assert (reply.raw, reply.error) == ("", "the operator stopped the answer after 0 tokens")


def _user_text(body: dict[str, object]) -> str:
    messages = body["messages"]
    assert isinstance(messages, list)
    return re.sub(r"\d+", "N", "\n".join(str(m["content"]) for m in messages))


def test_a_stopped_answer_is_recorded_as_such_and_kept_from_the_agent(
    tmp_path: Path, fake_openai: FakeOpenAI
) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "notes.txt").write_text("remember me\n")
    folder = make_task(tmp_path, [])
    # 300 chunks, 20 ms apart: 6 s if nobody stops it
    fake_openai.queue(
        tool_call_reply(("read_file", {"path": "notes.txt"})),
        stream_reply(PROSE, chunk_delay_s=0.02),
        tool_call_reply(("write_file", {"path": "out.txt", "content": "hi\n"})),
    )
    stops: list[bool] = []
    executor: Executor

    def stop_after_the_first_answer_event(event: StepEvent) -> None:
        if event.step == 2 and event.stage == "answer" and not stops:
            stops.append(False)
            thread = threading.Thread(target=lambda: stops.append(executor.stop_answer()))
            thread.start()

    with Executor(folder, model(fake_openai), observer=stop_after_the_first_answer_event) as ex:
        executor = ex
        assert ex.step().result == "success"
        stopped = ex.step()  # cut mid-answer: the server's side is checked below
        assert stops == [False, True] and ex.stop_answer() is False  # nothing in flight now
        assert stopped.escalation is None and stopped.status == "paused"
        after = ex.step()
    assert (after.action, after.result) == ("write_file", "success")

    intents, results = intents_and_results(folder)
    partial = intents[1]
    assert partial.finish_reason == "stopped" and partial.action == "(stopped)"
    assert partial.raw_response and PROSE.startswith(partial.raw_response)
    assert len(partial.raw_response) < len(PROSE)
    tokens = partial.completion_tokens
    assert 0 < tokens == chunks(partial.raw_response)
    assert (results[1].result, results[1].transport) == ("skipped", True)
    assert results[1].summary == (
        f"operator stopped the answer after {tokens} tokens (the partial answer is in the log)"
    )
    assert stopped.summary == results[1].summary and stopped.result == "skipped"
    # the server saw the connection go before it had sent the whole answer
    cut = served(fake_openai, 1, closed=True)
    assert cut.sent < cut.chunks

    # no trace in what the agent sees next: the same context as at the stopped step
    before, next_step = fake_openai.requests[1], fake_openai.requests[2]
    assert _user_text(next_step) == _user_text(before)
    assert "stopped" not in _user_text(next_step) and PROSE[:40] not in _user_text(next_step)
    memory = folder.load_memory()
    assert 2 not in [item.step for item in memory.items if item.type == "action_result"]
    state = folder.load_state()
    assert state.probe.last_errors == [] and state.failed_streak == 0
    contexts = folder.path / "artifacts" / "contexts"
    saved = [yaml.safe_load((contexts / f"step-{n:06d}.yaml").read_text()) for n in (2, 3)]
    assert saved[0]["sections"] == saved[1]["sections"]
