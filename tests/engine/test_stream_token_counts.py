"""A streamed answer records the server's count of the prompt where the server can give one:
its usage chunk (asked for with `stream_options.include_usage`), else its tokenizer endpoint
(llama-cpp-python's stream has no usage), else none but forgetui's own, and says which."""

from __future__ import annotations

from dataclasses import replace

import pytest

from forgetui.engine.folder.catalog import actions_of
from forgetui.engine.folder.records import IntentRecord
from forgetui.engine.llm import LiteLLMModel
from forgetui.engine.llm.stream import AnswerStream
from forgetui.engine.step.executor import Executor
from tests.engine.helpers import make_task
from tests.fake_openai import FakeOpenAI, FakeReply, stream_reply

MESSAGES = [
    {"role": "system", "content": "You are the agent. One action per answer."},
    {"role": "user", "content": "Goal: make the tests pass.\nLast result: none."},
]
TOOLS = actions_of("execution")
ACTION = "I list the workspace first.\n\n```yaml\naction: list_dir\nargs:\n  path: .\n```"
USAGE = {"prompt_tokens": 812, "completion_tokens": 17}


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-counts")


def model(fake: FakeOpenAI, **options: object) -> LiteLLMModel:
    return LiteLLMModel(
        "openai/gpt-4o-mini", api_base=fake.url, timeout_s=10.0, use_tools=False, **options
    )  # type: ignore[arg-type]


def no_usage_chunk() -> FakeReply:
    """A stream that sends no usage chunk, asked or not (llama-cpp-python's)."""
    return replace(stream_reply(ACTION, usage=USAGE), stream_usage=False)


def test_a_stream_asks_for_usage_and_records_the_servers_count(fake_openai) -> None:
    fake_openai.queue(stream_reply(ACTION, usage=USAGE))
    reply = model(fake_openai).complete(MESSAGES, TOOLS, AnswerStream())
    assert reply.streamed and reply.action == "list_dir"
    assert fake_openai.requests[0]["stream"] is True
    assert fake_openai.requests[0]["stream_options"] == {"include_usage": True}
    assert (reply.prompt_tokens, reply.prompt_tokens_by) == (812, "server")
    assert fake_openai.tokenized == []  # the usage chunk was enough


def test_a_stream_without_usage_is_counted_by_the_servers_tokenizer(fake_openai) -> None:
    """llama-cpp-python's server ignores include_usage: its /extras/tokenize/count counts the
    text sent (the system prompt merged into it here, as for Gemma)."""
    fake_openai.tokenize_count = lambda text: len(text.split())
    fake_openai.queue(no_usage_chunk())
    reply = model(fake_openai, system_role="merge").complete(MESSAGES, TOOLS, AnswerStream())
    assert reply.streamed and reply.action == "list_dir"
    [counted] = fake_openai.tokenized
    assert "You are the agent" in counted and "make the tests pass" in counted
    assert (reply.prompt_tokens, reply.prompt_tokens_by) == (len(counted.split()), "tokenize")
    assert reply.completion_tokens > 0  # the chunks that carried text


def test_without_usage_or_tokenizer_only_forgetuis_count_is_left(fake_openai) -> None:
    fake_openai.queue(no_usage_chunk())
    reply = model(fake_openai).complete(MESSAGES, TOOLS, AnswerStream())
    assert reply.action == "list_dir"
    assert (reply.prompt_tokens, reply.prompt_tokens_by) == (0, "forgetui")


def test_the_step_records_who_counted_the_prompt(tmp_path, fake_openai) -> None:
    """The intent record keeps the count beside the label, with forgetui's own count."""
    fake_openai.tokenize_count = lambda text: 333
    fake_openai.queue(no_usage_chunk())
    folder = make_task(tmp_path, [])
    with Executor(folder, model(fake_openai, system_role="merge")) as executor:
        executor.step()
    intent = next(r for r in folder.log.iter_records() if isinstance(r, IntentRecord))
    assert intent.streamed and intent.system_role == "merge"
    assert (intent.prompt_tokens, intent.prompt_tokens_by) == (333, "tokenize")
    assert intent.context_tokens > 0
