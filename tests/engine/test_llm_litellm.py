"""The litellm adapter end to end: real litellm, real HTTP, a scripted OpenAI-compatible server.

Every test records its replies into tmp_path the way the executor logs them, and the autouse
fixture then checks the API key never reached a file.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path

import pytest

from forgetui.engine.catalog import actions_of
from forgetui.engine.llm import LiteLLMModel, ModelReply
from forgetui.engine.yamlio import atomic_write_text, dump_yaml
from tests.fake_openai import (
    FakeOpenAI,
    error_reply,
    garbage_reply,
    slow_reply,
    text_reply,
    tool_call_reply,
)

API_KEY = "sk-test-forgetui-0123456789abcdef"
MESSAGES = [
    {"role": "system", "content": "You are the agent. One action per answer."},
    {"role": "user", "content": "Goal: make the tests pass.\nLast result: none."},
]
TOOLS = actions_of("execution")


class SleepRecorder:
    """Stands in for time.sleep: tests see the backoff asked for without waiting for it."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[str]:
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    yield API_KEY
    leaked = [
        path for path in tmp_path.rglob("*") if path.is_file() and API_KEY in path.read_text()
    ]
    assert leaked == []


def record(tmp_path: Path, reply: ModelReply) -> ModelReply:
    """Write the reply as the step log would, so the key check has something to read."""
    log = tmp_path / "replies.yaml"
    previous = log.read_text() if log.exists() else ""
    atomic_write_text(log, previous + "---\n" + dump_yaml(asdict(reply)))
    return reply


def model(fake: FakeOpenAI, **options: object) -> LiteLLMModel:
    settings: dict[str, object] = {
        "api_base": fake.url,
        "timeout_s": 5.0,
        "deadline_s": 60.0,  # the first call in a process also pays litellm's lazy imports
        "backoff_base_s": 0.01,
        "backoff_cap_s": 0.05,
    }
    settings.update(options)
    return LiteLLMModel("openai/gpt-4o-mini", **settings)  # type: ignore[arg-type]


def test_tool_call_goes_through_litellm_and_comes_back_parsed(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    """Also proves litellm's tool path imports (it needs the `mcp` package, see pyproject)."""
    fake_openai.queue(
        tool_call_reply(
            ("read_file", {"path": "src/app.py", "start_line": "5"}),
            usage={"prompt_tokens": 812, "completion_tokens": 17},
        )
    )
    reply = record(tmp_path, model(fake_openai).complete(MESSAGES, TOOLS))

    assert reply.error is None
    assert (reply.action, reply.args) == ("read_file", {"path": "src/app.py", "start_line": 5})
    assert '"read_file"' in reply.raw
    assert (reply.prompt_tokens, reply.completion_tokens) == (812, 17)
    assert reply.cost > 0  # gpt-4o-mini is in litellm's bundled price list
    assert reply.model == "openai/gpt-4o-mini" and not reply.transport_failed
    [request] = fake_openai.requests
    assert request["messages"] == MESSAGES
    assert {tool["function"]["name"] for tool in request["tools"]} == {s.name for s in TOOLS}


def test_tool_call_with_bad_arguments_is_a_recorded_error(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    fake_openai.queue(tool_call_reply(("read_file", {"colour": "red"})))
    reply = record(tmp_path, model(fake_openai).complete(MESSAGES, TOOLS))
    assert reply.action is None and not reply.transport_failed
    assert reply.error is not None and "unknown argument(s) 'colour'" in reply.error


def test_two_tool_calls_in_one_response_are_refused(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue(tool_call_reply(("list_dir", {"path": "."}), ("run_check", {})))
    reply = model(fake_openai).complete(MESSAGES, TOOLS)
    assert reply.error is not None and "2 tool calls in one response" in reply.error


@pytest.mark.parametrize(
    "answer",
    [
        "I'll run the tests.\n```yaml\naction: run_cmd\nargs:\n  cmd: pytest -q\n```",
        'I\'ll run the tests.\n```json\n{"action": "run_cmd", "args": {"cmd": "pytest -q"}}\n```',
    ],
)
def test_text_answer_without_tools(fake_openai: FakeOpenAI, tmp_path: Path, answer: str) -> None:
    fake_openai.queue(text_reply(answer))
    reply = record(tmp_path, model(fake_openai, use_tools=False).complete(MESSAGES, TOOLS))
    assert (reply.action, reply.args, reply.error) == ("run_cmd", {"cmd": "pytest -q"}, None)
    assert reply.raw == answer
    [request] = fake_openai.requests
    assert request["messages"] == MESSAGES
    assert "tools" not in request


def test_text_answer_to_a_tool_request_is_parsed(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue(text_reply("```yaml\naction: list_dir\nargs: {path: src}\n```"))
    reply = model(fake_openai).complete(MESSAGES, TOOLS)
    assert (reply.action, reply.args) == ("list_dir", {"path": "src"})
    assert "tools" in fake_openai.requests[0]


def test_unparseable_text_is_an_error_not_a_transport_failure(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue(text_reply("I am not sure what to do next."))
    reply = model(fake_openai, use_tools=False).complete(MESSAGES, TOOLS)
    assert reply.action is None and not reply.transport_failed
    assert reply.error is not None and "no action block found" in reply.error
    assert reply.prompt_tokens == 120  # the call still cost tokens


def test_rate_limit_is_retried_and_retry_after_is_capped(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue(
        error_reply(429, retry_after="30"), text_reply("```yaml\naction: run_check\n```")
    )
    sleeps = SleepRecorder()
    reply = model(fake_openai, sleep=sleeps).complete(MESSAGES, TOOLS)
    assert (reply.action, reply.transport_failed) == ("run_check", False)
    assert sleeps.delays == [0.05]  # the server asked for 30 s; the cap wins
    assert len(fake_openai.requests) == 2  # our one retry, no hidden client retries


def test_short_retry_after_is_honoured(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue(
        error_reply(429, retry_after="0.02"), text_reply("```yaml\naction: run_check\n```")
    )
    sleeps = SleepRecorder()
    reply = model(fake_openai, sleep=sleeps).complete(MESSAGES, TOOLS)
    assert reply.action == "run_check"
    assert sleeps.delays == [0.02]


def test_server_errors_exhaust_the_retries_without_raising(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    fake_openai.queue(error_reply(500), error_reply(500), error_reply(500))
    sleeps = SleepRecorder()
    reply = record(tmp_path, model(fake_openai, sleep=sleeps).complete(MESSAGES, TOOLS))
    assert reply.transport_failed and reply.action is None
    assert reply.error is not None and "after 3 attempt(s)" in reply.error
    assert "InternalServerError" in reply.error
    assert sleeps.delays == [0.01, 0.02]  # exponential from the configured base
    assert len(fake_openai.requests) == 3 and fake_openai.pending == 0


@pytest.mark.parametrize(
    "garbage",
    [
        garbage_reply(),
        garbage_reply(b'{"id": "x", "object": "chat.completion"}', "application/json"),
    ],
    ids=["html", "no-choices"],
)
def test_garbage_body_is_a_recorded_error(
    fake_openai: FakeOpenAI, tmp_path: Path, garbage: object
) -> None:
    fake_openai.queue(garbage, garbage, garbage)  # type: ignore[arg-type]
    reply = record(tmp_path, model(fake_openai, max_attempts=3).complete(MESSAGES, TOOLS))
    assert reply.transport_failed and reply.action is None
    assert reply.error is not None and "model call failed" in reply.error


def test_timeout_fails_within_the_deadline(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue(slow_reply(30), slow_reply(30), slow_reply(30))
    slow = model(fake_openai, timeout_s=0.3, deadline_s=0.8)
    reply = slow.complete(MESSAGES, TOOLS)
    assert reply.transport_failed
    assert reply.error is not None and "Timeout" in reply.error
    assert reply.latency_ms < 30_000  # gave up long before the server would have answered
    assert 1 <= len(fake_openai.requests) <= 3


def test_authentication_error_is_not_retried_and_the_key_is_redacted(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    """A provider that echoes the key in its error must not get it into the log."""
    echo = error_reply(401)
    body = echo.body.replace(b"fake error 401", f"Incorrect API key provided: {API_KEY}".encode())
    fake_openai.queue(type(echo)(401, body, echo.headers))
    reply = record(tmp_path, model(fake_openai).complete(MESSAGES, TOOLS))
    assert reply.transport_failed
    assert reply.error is not None and "***" in reply.error and API_KEY not in reply.error
    assert len(fake_openai.requests) == 1


def test_unknown_model_costs_nothing_instead_of_crashing(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue(tool_call_reply(("run_check", {})))
    local = LiteLLMModel("openai/forgetui-local-model-x", api_base=fake_openai.url, timeout_s=5)
    reply = local.complete(MESSAGES, TOOLS)
    assert (reply.action, reply.cost, reply.prompt_tokens) == ("run_check", 0.0, 120)
