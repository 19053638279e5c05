"""The litellm adapter end to end: real litellm, real HTTP, a scripted OpenAI-compatible server.

Every test records its replies into tmp_path the way the executor logs them, and the autouse
fixture then checks the API key never reached a file.
"""

from __future__ import annotations

import socket
import struct
import threading
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from types import TracebackType

import pytest

from forgetui.engine.base.yamlio import atomic_write_text, dump_yaml
from forgetui.engine.folder.catalog import actions_of
from forgetui.engine.llm import LiteLLMModel, ModelReply
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


class ResettingServer:
    """Accepts each connection, reads the request and resets it (SO_LINGER 0): no answer."""

    def __init__(self) -> None:
        self._socket = socket.create_server(("127.0.0.1", 0))
        self._socket.settimeout(0.05)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self.accepted = 0
        self.url = f"http://127.0.0.1:{self._socket.getsockname()[1]}/v1"

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._socket.accept()
            except TimeoutError:
                continue
            self.accepted += 1
            with conn:
                conn.settimeout(5)
                conn.recv(65536)
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))

    def __enter__(self) -> ResettingServer:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self._socket.close()


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
    assert reply.error == f"HTTP 500 from {fake_openai.url} after 3 attempts: fake error 500"
    assert sleeps.delays == [0.01, 0.02]  # exponential from the configured base
    assert len(fake_openai.requests) == 3 and fake_openai.pending == 0


def test_service_unavailable_then_an_answer_takes_two_requests(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue(error_reply(503), text_reply("```yaml\naction: run_check\n```"))
    reply = model(fake_openai, sleep=SleepRecorder()).complete(MESSAGES, TOOLS)
    assert (reply.action, reply.error, reply.transport_failed) == ("run_check", None, False)
    assert len(fake_openai.requests) == 2


@pytest.mark.parametrize("status", [400, 404, 409, 422, 501])
def test_client_errors_are_not_retried(fake_openai: FakeOpenAI, status: int) -> None:
    fake_openai.queue(error_reply(status), text_reply("```yaml\naction: run_check\n```"))
    reply = model(fake_openai, sleep=SleepRecorder()).complete(MESSAGES, TOOLS)
    assert reply.transport_failed
    assert reply.error == (
        f"HTTP {status} from {fake_openai.url} (not retried: the same request would fail the "
        f"same way): fake error {status}"
    )
    assert len(fake_openai.requests) == 1 and fake_openai.pending == 1


def test_a_timeout_is_tried_once_and_says_why(fake_openai: FakeOpenAI) -> None:
    """A local server that timed out is still busy: a second request would queue behind it."""
    fake_openai.queue(slow_reply(30), text_reply("```yaml\naction: run_check\n```"))
    reply = model(fake_openai, timeout_s=0.5).complete(MESSAGES, TOOLS)
    assert reply.transport_failed and reply.action is None
    assert reply.error == (
        f"timed out after 0.5 s waiting for {fake_openai.url} "
        "(not retried: a server that timed out may still be busy with the request)"
    )
    assert len(fake_openai.requests) == 1 and fake_openai.pending == 1
    assert fake_openai.requests[0]["max_tokens"] == 1024  # the cap that keeps this rare


def test_http_408_is_a_timeout_too(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue(error_reply(408), text_reply("```yaml\naction: run_check\n```"))
    reply = model(fake_openai).complete(MESSAGES, TOOLS)
    assert reply.error is not None and reply.error.startswith(f"HTTP 408 from {fake_openai.url}")
    assert "not retried: a server that timed out may still be busy" in reply.error
    assert len(fake_openai.requests) == 1


def test_a_refused_connection_is_not_retried() -> None:
    with socket.socket() as probe:  # a port nothing listens on: bound, never listening
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
        sleeps = SleepRecorder()
        reply = LiteLLMModel("openai/gpt-4o-mini", api_base=url, sleep=sleeps).complete(
            MESSAGES, TOOLS
        )
    assert reply.error == (
        f"connection to {url} refused (not retried: nothing is listening there; start the server)"
    )
    assert sleeps.delays == []


def test_a_reset_connection_is_retried_and_named() -> None:
    """A server that drops the connection without answering (a restart, a proxy)."""
    with ResettingServer() as server:
        sleeps = SleepRecorder()
        reply = LiteLLMModel(
            "openai/gpt-4o-mini", api_base=server.url, backoff_base_s=0.01, sleep=sleeps
        ).complete(MESSAGES, TOOLS)
    assert reply.transport_failed
    assert reply.error is not None
    assert reply.error.startswith(f"connection to {server.url} reset after 3 attempts: ")
    assert server.accepted == 3 and len(sleeps.delays) == 2


def test_every_call_sends_the_cap_the_temperature_and_no_client_retries(
    fake_openai: FakeOpenAI,
) -> None:
    fake_openai.queue(text_reply("```yaml\naction: run_check\n```"))
    model(fake_openai).complete(MESSAGES, TOOLS)
    fake_openai.queue(text_reply("```yaml\naction: run_check\n```"))
    model(fake_openai, max_output_tokens=64, temperature=0.7).complete(MESSAGES, TOOLS)
    first, second = fake_openai.requests
    assert (first["max_tokens"], first["temperature"]) == (1024, 0)
    assert (second["max_tokens"], second["temperature"]) == (64, 0.7)


def test_an_answer_cut_at_the_cap_says_so(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.queue(text_reply("I will first look at", finish_reason="length"))
    reply = record(tmp_path, model(fake_openai, max_output_tokens=5).complete(MESSAGES, TOOLS))
    assert reply.finish_reason == "length" and not reply.transport_failed
    assert reply.error is not None
    assert reply.error.startswith("the answer was cut off at the 5-token cap (max_output_tokens): ")
    assert "no action block found" in reply.error


def test_a_finished_answer_records_its_finish_reason(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue(tool_call_reply(("run_check", {})))
    reply = model(fake_openai).complete(MESSAGES, TOOLS)
    assert (reply.action, reply.finish_reason) == ("run_check", "tool_calls")


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
    reply = record(
        tmp_path,
        model(fake_openai, max_attempts=3, sleep=SleepRecorder()).complete(MESSAGES, TOOLS),
    )
    assert reply.transport_failed and reply.action is None
    # litellm calls a 200 that is not a completion a 500; no HTTP 500 is claimed
    assert reply.error is not None
    assert reply.error.startswith(f"{fake_openai.url} failed (litellm status 500) after 3 attempts")
    assert len(fake_openai.requests) == 3


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


def test_merge_sends_one_user_message_with_the_system_prompt_first(
    fake_openai: FakeOpenAI,
) -> None:
    fake_openai.queue(text_reply("```yaml\naction: run_check\n```"))
    reply = model(fake_openai, system_role="merge").complete(MESSAGES, TOOLS)
    assert reply.action == "run_check"
    [request] = fake_openai.requests
    [message] = request["messages"]
    assert message["role"] == "user"
    assert message["content"] == (
        "<system>\nYou are the agent. One action per answer.\n</system>\n\n"
        "Goal: make the tests pass.\nLast result: none."
    )
    assert MESSAGES[0]["role"] == "system"  # what was compiled is left as it was


def test_system_role_by_default_sends_two_messages(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue(text_reply("```yaml\naction: run_check\n```"))
    model(fake_openai).complete(MESSAGES, TOOLS)
    assert [m["role"] for m in fake_openai.requests[0]["messages"]] == ["system", "user"]


@pytest.mark.parametrize(
    ("name", "role"),
    [
        ("gemini/gemma-3-27b-it", "merge"),  # litellm's model info: no system messages
        ("openai/gpt-4o-mini", "system"),
        ("openai/gemma", "system"),  # unknown to litellm: the system role is kept
    ],
)
def test_system_role_follows_litellm_model_info(name: str, role: str) -> None:
    from forgetui.engine.llm.litellm_model import import_litellm
    from forgetui.engine.llm.system_role import resolve_system_role

    litellm = import_litellm()
    assert resolve_system_role(litellm, name, None) == role
    assert resolve_system_role(litellm, name, "system") == "system"


def test_api_base_without_a_key_sends_a_placeholder(
    fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    fake_openai.queue(text_reply("```yaml\naction: run_check\n```"))
    reply = model(fake_openai).complete(MESSAGES, TOOLS)
    assert (reply.action, reply.error) == ("run_check", None)
    assert fake_openai.authorizations == ["Bearer not-needed"]


def test_api_base_with_a_key_sends_the_key(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue(text_reply("```yaml\naction: run_check\n```"))
    model(fake_openai).complete(MESSAGES, TOOLS)
    assert fake_openai.authorizations == [f"Bearer {API_KEY}"]
