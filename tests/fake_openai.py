"""A real OpenAI-compatible HTTP server on loopback, so tests drive litellm end to end.

Script the model, don't mock it: a test queues replies, points `api_base` at `fake_openai.url`
and reads back every request body from `fake_openai.requests`.

A request with `"stream": true` gets its completion as Server-Sent Events, the way OpenAI and
llama.cpp send them: the text a few characters per chunk, tool calls as argument deltas, a usage
chunk when `stream_options.include_usage` asks for one, then `data: [DONE]`. Each streamed
answer leaves a `ServedStream` in `fake_openai.streams`: how many chunks went out, and whether
the client closed the connection before the last one. Errors stay plain JSON.
"""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

DEFAULT_USAGE = {"prompt_tokens": 120, "completion_tokens": 30}


@dataclass(frozen=True)
class FakeReply:
    """One scripted HTTP answer: status, body, headers, and an optional delay before it.

    A completion asked for as a stream goes out in chunks `chunk_chars` characters long,
    `chunk_delay_s` apart; `streams=False` is a server that ignores `stream` and sends the JSON
    body anyway; `stream_usage=False` one that sends no usage chunk even when asked;
    `drop_after=N` one that resets the connection after N events (a restart mid-answer)."""

    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    chunk_delay_s: float = 0.0
    chunk_chars: int = 4
    streams: bool = True
    stream_usage: bool = True
    drop_after: int | None = None


@dataclass
class ServedStream:
    """One streamed answer as the server sent it."""

    chunks: int  # the SSE events it had to send ([DONE] included)
    sent: int = 0  # the events written before the end or the client's close
    closed_by_client: bool = False

    @property
    def complete(self) -> bool:
        return self.sent == self.chunks and not self.closed_by_client


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
    return replace(inner, delay_s=delay_s)


def stream_reply(
    content: str,
    *,
    chunk_delay_s: float = 0.0,
    chunk_chars: int = 4,
    usage: dict[str, int] | None = None,
    finish_reason: str = "stop",
) -> FakeReply:
    """A text answer that, streamed, arrives `chunk_chars` characters every `chunk_delay_s`:
    a test can watch it grow, stop it, or time it out."""
    return replace(
        text_reply(content, usage, finish_reason=finish_reason),
        chunk_delay_s=chunk_delay_s,
        chunk_chars=chunk_chars,
    )


def _sse_events(reply: FakeReply, include_usage: bool) -> list[bytes] | None:
    """The chat.completion.chunk events a streaming server sends for this completion, or None
    when the reply is not one (an error, garbage): that goes out as it is."""
    if reply.status != 200 or not reply.streams:
        return None
    try:
        payload = json.loads(reply.body)
        [choice] = payload["choices"]
        message = choice["message"]
    except (ValueError, KeyError, TypeError):
        return None
    head = {k: payload[k] for k in ("id", "created", "model")}
    head["object"] = "chat.completion.chunk"

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    size = max(1, reply.chunk_chars)
    chunks = [chunk({"role": "assistant", "content": ""})]
    content = message.get("content") or ""
    chunks += [chunk({"content": content[i : i + size]}) for i in range(0, len(content), size)]
    for index, call in enumerate(message.get("tool_calls") or []):
        function = call["function"]
        opening = {"id": call["id"], "type": "function"}
        opening["function"] = {"name": function["name"], "arguments": ""}
        chunks.append(chunk({"tool_calls": [{"index": index, **opening}]}))
        arguments = function["arguments"]
        for i in range(0, len(arguments), size):
            piece = {"index": index, "function": {"arguments": arguments[i : i + size]}}
            chunks.append(chunk({"tool_calls": [piece]}))
    chunks.append(chunk({}, choice.get("finish_reason") or "stop"))
    if include_usage and reply.stream_usage and payload.get("usage"):
        chunks.append({**head, "choices": [], "usage": payload["usage"]})
    events = [b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks]
    return [*events, b"data: [DONE]\n\n"]


def _echo_model(reply: FakeReply, model: object) -> FakeReply:
    """A completion names the model that was asked for, as real servers do (litellm prices it)."""
    if reply.status != 200 or not isinstance(model, str) or b'"choices"' not in reply.body:
        return reply
    try:
        payload = json.loads(reply.body)
    except ValueError:
        return reply
    payload["model"] = model
    return replace(reply, body=json.dumps(payload).encode())


class FakeOpenAI:
    """Serves POST /v1/chat/completions from a queue of scripted replies, recording each request."""

    def __init__(self, port: int = 0) -> None:  # a port: the same server, up again
        self.requests: list[dict[str, Any]] = []
        self.authorizations: list[str | None] = []  # each request's Authorization header
        self.streams: list[ServedStream] = []  # each answer sent as a stream, in order
        # llama-cpp-python's POST /extras/tokenize/count, when set: text -> its token count
        self.tokenize_count: Callable[[str], int] | None = None
        self.tokenized: list[str] = []  # each text it was asked to count
        self._replies: deque[FakeReply] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", port), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

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

            def handle(self) -> None:
                try:
                    super().handle()
                except ConnectionResetError:
                    return  # the client dropped a kept-alive connection: nothing to answer

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                if self.path == "/extras/tokenize/count" and fake.tokenize_count is not None:
                    text = str(json.loads(raw).get("input", ""))
                    fake.tokenized.append(text)
                    count = json.dumps({"count": fake.tokenize_count(text)}).encode()
                    self._send(FakeReply(body=count, headers=_JSON))
                    return
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
                options = body.get("stream_options") or {}
                events = (
                    _sse_events(reply, bool(options.get("include_usage")))
                    if body.get("stream") is True
                    else None
                )
                if events is None:
                    self._send(reply)
                else:
                    self._stream(events, reply.chunk_delay_s, reply.drop_after)

            def _stream(self, events: list[bytes], delay_s: float, drop_after: int | None) -> None:
                """Chunked transfer, one event per chunk, flushed: the client sees each as it
                is written, and a client that closes makes the next writes fail."""
                served = ServedStream(len(events))
                with fake._lock:
                    fake.streams.append(served)
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.send_header("Cache-Control", "no-cache")
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    self.wfile.flush()
                    for index, event in enumerate(events):
                        if index and delay_s and fake._stopping.wait(delay_s):
                            return
                        if index == drop_after:
                            self._reset()
                            return
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
                        self.wfile.flush()
                        served.sent += 1
                    self.wfile.write(b"0\r\n\r\n")
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    served.closed_by_client = True
                    self.close_connection = True

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

            def _reset(self) -> None:
                """Close with RST, not FIN: the client sees a reset, not a clean end."""
                self.connection.setsockopt(
                    socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)
                )
                self.close_connection = True

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
