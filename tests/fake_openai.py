"""A real OpenAI-compatible HTTP server on loopback, so tests drive litellm end to end.

Script the model, don't mock it: a test queues replies, points `api_base` at `fake_openai.url`
and reads back every request body from `fake_openai.requests`.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

DEFAULT_USAGE = {"prompt_tokens": 120, "completion_tokens": 30}


@dataclass(frozen=True)
class FakeReply:
    """One scripted HTTP answer: status, body, headers, and an optional delay before it."""

    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0


def _completion(message: dict[str, Any], finish_reason: str, usage: dict[str, int]) -> FakeReply:
    payload = {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": "gpt-4o-mini",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {**usage, "total_tokens": sum(usage.values())},
    }
    return FakeReply(body=json.dumps(payload).encode(), headers=_JSON)


_JSON = {"Content-Type": "application/json"}


def text_reply(
    content: str, usage: dict[str, int] | None = None, *, finish_reason: str = "stop"
) -> FakeReply:
    """A plain assistant message (e.g. prose around a fenced action block); `finish_reason`
    "length" is an answer the server cut off at the output cap."""
    message = {"role": "assistant", "content": content}
    return _completion(message, finish_reason, usage or DEFAULT_USAGE)


def tool_call_reply(
    *calls: tuple[str, dict[str, Any] | str],
    content: str | None = None,
    usage: dict[str, int] | None = None,
) -> FakeReply:
    """One assistant message carrying tool calls; a str argument is sent verbatim (bad JSON)."""
    tool_calls = [
        {
            "id": f"call_{index}",
            "type": "function",
            "function": {
                "name": name,
                "arguments": args if isinstance(args, str) else json.dumps(args),
            },
        }
        for index, (name, args) in enumerate(calls)
    ]
    message = {"role": "assistant", "content": content, "tool_calls": tool_calls}
    return _completion(message, "tool_calls", usage or DEFAULT_USAGE)


def error_reply(status: int, retry_after: str | None = None) -> FakeReply:
    """An API error such as a 429 (with Retry-After) or a 500."""
    headers = dict(_JSON)
    if retry_after is not None:
        headers["Retry-After"] = retry_after
    body = {"error": {"message": f"fake error {status}", "type": "server_error", "code": None}}
    return FakeReply(status=status, body=json.dumps(body).encode(), headers=headers)


def garbage_reply(
    body: bytes = b"<html>not json</html>", content_type: str = "text/html"
) -> FakeReply:
    """A 200 whose body is not a chat completion (non-JSON, or JSON without choices)."""
    return FakeReply(body=body, headers={"Content-Type": content_type})


def slow_reply(delay_s: float, then: FakeReply | None = None) -> FakeReply:
    """A reply that arrives only after `delay_s` (released early when the server stops)."""
    inner = then or text_reply("too late")
    return FakeReply(inner.status, inner.body, inner.headers, delay_s)


def _echo_model(reply: FakeReply, model: object) -> FakeReply:
    """A completion names the model that was asked for, as real servers do (litellm prices it)."""
    if reply.status != 200 or not isinstance(model, str) or b'"choices"' not in reply.body:
        return reply
    try:
        payload = json.loads(reply.body)
    except ValueError:
        return reply
    payload["model"] = model
    return FakeReply(reply.status, json.dumps(payload).encode(), reply.headers, reply.delay_s)


class FakeOpenAI:
    """Serves POST /v1/chat/completions from a queue of scripted replies, recording each request."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.authorizations: list[str | None] = []  # each request's Authorization header
        self._replies: deque[FakeReply] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def queue(self, *replies: FakeReply) -> None:
        with self._lock:
            self._replies.extend(replies)

    @property
    def pending(self) -> int:
        """Scripted replies not yet served: a test can check the model asked exactly as often."""
        with self._lock:
            return len(self._replies)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def _next_reply(self, body: dict[str, Any]) -> FakeReply:
        with self._lock:
            self.requests.append(body)
            if self._replies:
                return self._replies.popleft()
        # Status 418 is neither retried nor mistaken for a model answer: the test fails loudly.
        return error_reply(418)

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(error_reply(404))
                    return
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = {"_unparsed": raw.decode("utf-8", "replace")}
                fake.authorizations.append(self.headers.get("Authorization"))
                reply = _echo_model(fake._next_reply(body), body.get("model"))
                if reply.delay_s and fake._stopping.wait(reply.delay_s):
                    return
                self._send(reply)

            def _send(self, reply: FakeReply) -> None:
                try:
                    self.send_response(reply.status)
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(reply.body)))
                    self.end_headers()
                    self.wfile.write(reply.body)
                except (BrokenPipeError, ConnectionResetError):
                    return  # the client gave up (a timeout test): nothing to answer

            def log_message(self, format: str, *args: Any) -> None:
                return  # keep test output clean

        return Handler


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI()
    server.start()
    try:
        yield server
    finally:
        server.stop()
