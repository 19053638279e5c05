"""What went wrong with one model call, and whether asking again can help.

litellm reports a refused connection, a reset one and a body that is not JSON all as
`InternalServerError` with status 500, so the kind is read from the exception's cause chain
(httpx, openai, the OS) and litellm's own status is only the last resort.

Retried: 429 and 5xx (the server says "try again"), and a connection reset mid-request (a
restart, a proxy dropping the socket). Not retried:
- a timeout, and HTTP 408: a local server that timed out is still busy with the abandoned
  request, so the same request again only queues behind it;
- a refused connection: nothing listens there, and it will not start within our backoff;
- 501 and 505, and every other 4xx (409 and 425 included: LLM APIs do not use them to mean
  "later", and a conflicting or too-early request would be sent unchanged);
- a prompt over the model's context window (litellm's ContextWindowExceededError, or a 4xx
  whose text says so, as llama.cpp's "Requested tokens (1200) exceed context window of 1024"
  does): its own kind, since the step escalates it as such, not as a model error.
"""

from __future__ import annotations

import email.utils
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

# status: a server answered with that HTTP status; provider: litellm reports a status but no HTTP
# response shows it (a body that is not a completion, a provider that does not chain its errors)
# context_window: the prompt does not fit the model's window (the same prompt never will)
Kind = Literal["timeout", "refused", "reset", "status", "provider", "context_window", "other"]

_NEVER_HEALS = frozenset({501, 505})
# How servers say a prompt is over the window: OpenAI ("maximum context length",
# context_length_exceeded), llama.cpp ("exceed context window", "available context size",
# n_ctx), Anthropic ("prompt is too long"), vLLM ("model's context length").
_CONTEXT_WINDOW = re.compile(
    r"context[ _-]?(?:window|length|size|limit)|maximum context|\bn_ctx\b|prompt is too long",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class CallError:
    """One failed attempt: its kind, the HTTP status if a server answered, and the message."""

    kind: Kind
    status: int | None
    detail: str

    @property
    def retryable(self) -> bool:
        if self.kind == "reset":
            return True
        if self.kind not in ("status", "provider") or self.status is None:
            return False
        return self.status == 429 or (500 <= self.status < 600 and self.status not in _NEVER_HEALS)

    @property
    def why_not_retried(self) -> str:
        """The clause an escalation shows after "not retried: "."""
        if self.kind == "timeout":
            return "a server that timed out may still be busy with the request"
        if self.kind == "refused":
            return "nothing is listening there; start the server"
        if self.kind == "context_window":
            return "the prompt is over the model's context window, and the same prompt cannot fit"
        return "the same request would fail the same way"


def classify(exc: BaseException) -> CallError:
    """The kind of failure `exc` (raised by `litellm.completion`) stands for."""
    import httpx  # loaded with litellm already; never at module import
    import litellm
    import openai

    chain = _chain(exc)
    if any(isinstance(link, litellm.ContextWindowExceededError) for link in chain):
        return CallError("context_window", getattr(exc, "status_code", None), _message(exc, chain))
    for link in chain:
        if isinstance(link, httpx.HTTPStatusError):
            return _status(link.response.status_code, exc, chain)
        if isinstance(link, openai.APIStatusError) and not _from_litellm(link):
            return _status(link.status_code, exc, chain)
    for link in chain:
        if isinstance(link, TimeoutError | httpx.TimeoutException | openai.APITimeoutError):
            return CallError("timeout", None, _message(exc, chain))
    for link in chain:
        if isinstance(
            link,
            ConnectionResetError
            | ConnectionAbortedError
            | BrokenPipeError
            | httpx.RemoteProtocolError
            | httpx.ReadError
            | httpx.WriteError,
        ):
            return CallError("reset", None, _message(exc, chain))
    for link in chain:
        if isinstance(link, ConnectionRefusedError | httpx.ConnectError):
            return CallError("refused", None, _message(exc, chain))
    if isinstance(exc, litellm.Timeout):
        return CallError("timeout", None, _message(exc, chain))
    status = getattr(exc, "status_code", None)
    if isinstance(status, int) and not isinstance(exc, openai.APIConnectionError):
        # a provider whose handler does not chain the HTTP error: litellm's status is all there is
        message = _message(exc, chain)
        kind: Kind = "context_window" if _over_window(status, message) else "provider"
        return CallError(kind, status, message)
    return CallError("other", None, _message(exc, chain))


def _status(status: int, exc: BaseException, chain: list[BaseException]) -> CallError:
    message = _message(exc, chain)
    kind: Kind = "timeout" if status == 408 else "status"
    if _over_window(status, message):
        kind = "context_window"
    return CallError(kind, status, message)


def _over_window(status: int, message: str) -> bool:
    """A refusal (4xx, not 408 or 429) whose text says the prompt is over the window."""
    return (
        400 <= status < 500 and status not in (408, 429) and bool(_CONTEXT_WINDOW.search(message))
    )


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    link: BaseException | None = exc
    while link is not None and all(link is not known for known in seen):
        seen.append(link)
        link = link.__cause__ or link.__context__
    return seen


def _from_litellm(exc: BaseException) -> bool:
    return type(exc).__module__.startswith("litellm")


def _message(exc: BaseException, chain: list[BaseException]) -> str:
    """The server's own words when it sent an error body, else the deepest cause's text."""
    for link in chain:
        body = getattr(link, "body", None)
        if isinstance(body, dict) and isinstance(body.get("message"), str) and body["message"]:
            return str(body["message"])
    root = chain[-1]
    text = " ".join(str(root).split())
    if root is exc or not text:
        return f"{type(exc).__name__}: {' '.join(str(exc).split())}"
    return text


def retry_after_s(exc: Exception) -> float | None:
    """Seconds the server asked us to wait (`retry-after-ms`, `retry-after` seconds or date)."""
    headers: Mapping[str, str] | None = getattr(exc, "litellm_response_headers", None)
    if not headers:
        headers = getattr(getattr(exc, "response", None), "headers", None)
    if not headers:
        return None
    lowered = {str(key).lower(): str(value) for key, value in headers.items()}
    if "retry-after-ms" in lowered:
        seconds = _number(lowered["retry-after-ms"])
        return seconds / 1000 if seconds is not None else None
    value = lowered.get("retry-after")
    if value is None:
        return None
    seconds = _number(value)
    if seconds is not None:
        return seconds
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _number(text: str) -> float | None:
    try:
        return max(0.0, float(text))
    except ValueError:
        return None
