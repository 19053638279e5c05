"""One attempt at a model call, on a worker thread, streamed or not.

The thread owns the HTTP response; the caller reads what it hands over and may walk away at
any moment: when the operator stops the answer (`AnswerStream.stopped`), or when the answer
has taken longer than its window. A trickling server never trips the client's per-read
timeout, so the window is kept here, over the whole answer: from the moment the server starts
answering (the stream is open) to its last chunk. Until then the client's own timeout bounds
the wait, and litellm's one-time imports on a process's first call (seconds) are not counted
against the server. A walked-away thread closes the response at its next chunk, so the
server's next write fails and it stops generating.

A streamed answer is rebuilt into one completion (litellm's `stream_chunk_builder`), with the
usage the server reported in its chunks; litellm's own last chunk carries a tiktoken estimate
when the server sent none, so that one is never taken for the server's count: then prompt
tokens are 0 (the model asks the server's tokenizer, prompt_count.py) and completion tokens
the chunks that carried text.
"""

from __future__ import annotations

import contextlib
import json
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from forgetui.engine.llm.stream import AnswerStream

POLL_S = 0.05  # how often a wait looks at the operator's stop


@dataclass(frozen=True)
class Attempt:
    """What one attempt came to: a completion, an error, or the operator's stop."""

    response: Any = None  # the completion (rebuilt from its chunks when streamed)
    error: Exception | None = None
    stopped: bool = False
    streamed: bool = False  # the answer arrived as a stream
    text: str = ""  # what arrived of a streamed answer: the partial one of a stop or error
    tokens: int = 0  # the chunks that carried text


class AnswerTimedOut(TimeoutError):
    """The server kept answering past the window: classified as a timeout (not retried)."""

    def __init__(self, window_s: float, tokens: int) -> None:
        super().__init__(f"the answer was still arriving after {window_s:g} s ({tokens} chunks)")


def attempt(
    litellm: ModuleType, request: dict[str, Any], window_s: float, stream: AnswerStream | None
) -> Attempt:
    """`litellm.completion(**request)` once, fed to `stream` as it arrives (when `request`
    asks for a stream), within `window_s` and until the operator stops it."""
    streaming = bool(request.get("stream"))
    if stream is not None and stream.stopped:  # during the backoff: no request is sent
        return Attempt(stopped=True, streamed=streaming)
    worker = _Worker(lambda: litellm.completion(**request, timeout=window_s), streaming)
    ends: float | None = None  # the answer's window runs from the stream's opening
    chunks: list[Any] = []
    parts: list[str] = []

    def outcome(**fields: Any) -> Attempt:
        return Attempt(streamed=streaming, text="".join(parts), tokens=len(parts), **fields)

    while True:
        if stream is not None and stream.stopped:
            worker.abandon()
            if parts:
                stream.finish()
            return outcome(stopped=True)
        wait = None if ends is None else ends - time.monotonic()
        if wait is not None and wait <= 0:
            worker.abandon()
            return outcome(error=AnswerTimedOut(window_s, len(parts)))
        if stream is not None:
            wait = POLL_S if wait is None else min(wait, POLL_S)
        try:
            kind, value = worker.items.get(timeout=wait)
        except queue.Empty:
            continue
        if kind == "open":
            ends = time.monotonic() + window_s
        elif kind == "chunk":
            chunks.append(value)
            delta = _delta_text(value, bool(parts))
            if delta:
                parts.append(delta)
                if stream is not None:
                    stream.feed(delta)
        elif kind == "error":
            return outcome(error=value)
        elif kind == "end":
            if stream is not None and parts:
                stream.finish()
            try:
                return outcome(response=_rebuilt(litellm, chunks, value, len(parts)))
            except Exception as exc:  # litellm could not join its own chunks: a failed call
                return outcome(error=exc)
        elif kind == "body":
            try:
                return Attempt(response=_from_body(litellm, value))
            except Exception as exc:  # not a completion: what litellm says of such a body
                return Attempt(error=exc)
        else:  # "response": not streamed
            return Attempt(response=value)


class _Worker:
    """Runs the call and hands over ("open" | "chunk" | "end" | "body" | "response" | "error",
    value) items; closes a stream when it is done with it or walked away from."""

    def __init__(self, call: Callable[[], Any], streaming: bool) -> None:
        self.items: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
        self._streaming = streaming
        self._abandoned = threading.Event()
        thread = threading.Thread(
            target=self._run, args=(call,), name="forgetui-model-call", daemon=True
        )
        thread.start()

    def abandon(self) -> None:
        self._abandoned.set()

    def _run(self, call: Callable[[], Any]) -> None:
        response = None
        try:
            response = call()
            last = self._drain(response)
        except Exception as exc:
            last = ("error", exc)
        finally:
            if self._streaming and response is not None:
                _close(response)
        self.items.put(last)

    def _drain(self, response: Any) -> tuple[str, Any]:
        if not self._streaming:
            return ("response", response)
        self.items.put(("open", None))
        body = _plain_body(response)
        if body is not None:
            return ("body", body)
        for chunk in response:
            if self._abandoned.is_set():
                break
            self.items.put(("chunk", chunk))
        return ("end", response)


def _delta_text(chunk: Any, after_text: bool) -> str:
    """A chunk's text for the operator: content as it is; a tool call as its name, then its
    argument fragments (the JSON the model is writing)."""
    choices = getattr(chunk, "choices", None) or []
    delta = getattr(choices[0], "delta", None) if choices else None
    if delta is None:
        return ""
    content = getattr(delta, "content", None)
    parts = [content] if isinstance(content, str) else []
    for call in getattr(delta, "tool_calls", None) or []:
        function = getattr(call, "function", None)
        name = getattr(function, "name", None)
        if isinstance(name, str) and name:
            parts.append(f"\n{name} " if after_text or parts else f"{name} ")
        arguments = getattr(function, "arguments", None)
        if isinstance(arguments, str):
            parts.append(arguments)
    return "".join(parts)


def _rebuilt(litellm: ModuleType, chunks: list[Any], wrapper: Any, counted: int) -> Any:
    """The chunks as one completion, the same a non-streamed call returns (tool-call deltas
    joined into tool calls), with the server's usage or the chunks counted."""
    response = litellm.stream_chunk_builder(chunks=chunks) if chunks else None
    if response is None:
        return None
    prompt, completion = _server_usage(wrapper) or (0, counted)
    response.usage = litellm.Usage(
        prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion
    )
    return response


def _server_usage(wrapper: Any) -> tuple[int, int] | None:
    """The usage the server put in its chunks, read from the chunks litellm's stream wrapper
    kept as they came (`CustomStreamWrapper.chunks`); not from the chunk it yields last, which
    holds litellm's estimate when the server sent none. Anthropic-style streams give prompt
    and completion tokens in different chunks: the last of each counts."""
    prompt = completion = None
    for chunk in getattr(wrapper, "chunks", None) or ():
        usage = getattr(chunk, "usage", None)
        if usage is None:
            continue
        given_prompt = getattr(usage, "prompt_tokens", None)
        given_completion = getattr(usage, "completion_tokens", None)
        if isinstance(given_prompt, int) and given_prompt > 0:
            prompt = given_prompt
        if isinstance(given_completion, int) and given_completion > 0:
            completion = given_completion
    if prompt is None and completion is None:
        return None
    return prompt or 0, completion or 0


def _plain_body(wrapper: Any) -> bytes | None:
    """The body of a server that ignored `stream` and answered with JSON (or anything but
    Server-Sent Events), read whole; None for a real stream. Only an OpenAI-compatible
    response shows its headers; other providers' streams are taken as streams."""
    http = getattr(getattr(wrapper, "completion_stream", None), "response", None)
    headers = getattr(http, "headers", None)
    if http is None or headers is None or "event-stream" in headers.get("content-type", ""):
        return None
    body = http.read()
    return body if isinstance(body, bytes) else None


def _from_body(litellm: ModuleType, body: bytes) -> Any:
    """A non-streamed completion in the body of a streamed request. Anything else is what
    litellm calls a body that is not a completion when it was not streamed: an error 500."""
    try:
        payload = json.loads(body)
    except ValueError:
        payload = None
    choices = payload.get("choices") if isinstance(payload, dict) else None
    if not isinstance(payload, dict) or not isinstance(choices, list) or not choices:
        raise litellm.APIError(
            status_code=500,
            message="the server answered with a body that is neither a stream nor a completion:"
            f" {body[:200].decode('utf-8', 'replace')}",
            llm_provider="openai",
            model=str(payload.get("model", "")) if isinstance(payload, dict) else "",
        )
    return litellm.ModelResponse(**payload)


def _close(wrapper: Any) -> None:
    """Close the HTTP response under litellm's stream wrapper (which has no sync close): the
    server sees the connection go and stops generating."""
    inner = getattr(wrapper, "completion_stream", None)
    for target in (inner, getattr(inner, "response", None)):
        close = getattr(target, "close", None)
        if callable(close):
            with contextlib.suppress(Exception):
                close()
