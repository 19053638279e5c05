"""One probe request of `forgetui doctor`: built as a run builds it, sent once, never raised.

A probe is asked once: no retry (a second request only tells the same story, later), no
stream (doctor reads usage and tool calls from the whole response), a small `max_tokens`
and the timeout. Whatever goes wrong comes back as a `Failure` with a one-line reason,
classified like a run's errors (call_errors.py), with any secret cut out.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from forgetui.engine.folder.catalog import ActionSpec
from forgetui.engine.llm.call_errors import CallError, classify
from forgetui.engine.llm.litellm_model import LiteLLMModel, redact_secrets
from forgetui.engine.llm.parse import tool_schemas
from forgetui.engine.llm.server_url import scrub_url, shown_url

_MAX_REASON_CHARS = 200


@dataclass(frozen=True)
class Answer:
    """What one probe request got back; token counts are None where the server gave none."""

    seconds: float
    model: str | None
    prompt_tokens: int | None
    completion_tokens: int | None
    content: str
    tool_calls: tuple[str, ...]
    finish_reason: str | None


@dataclass(frozen=True)
class Failure:
    """A probe request that got no answer: its classified error and the line that says so."""

    seconds: float
    error: CallError
    reason: str
    texts: tuple[str, ...]  # every message in the error's chain, for a window size in them

    @property
    def timed_out(self) -> bool:
        return self.error.kind == "timeout" and self.error.status is None

    @property
    def status(self) -> int | None:
        return self.error.status


class Prober:
    """Sends probe requests to one model, counting them; after a timeout it sends no more,
    since a local server that timed out is still busy with the abandoned request."""

    def __init__(
        self, litellm: ModuleType, model: str, api_base: str | None, timeout_s: float
    ) -> None:
        self.litellm = litellm
        self.model = model
        self.api_base = api_base
        self.timeout_s = timeout_s
        self.sent = 0
        self.busy_since: Failure | None = None

    def ask(
        self,
        messages: Sequence[dict[str, str]],
        *,
        max_tokens: int,
        tools: Sequence[ActionSpec] = (),
    ) -> Answer | Failure:
        started = time.monotonic()
        try:
            request = self._request(messages, max_tokens, tools)
        except Exception as exc:  # a model string litellm cannot build a request for
            return _failure(exc, started, self.api_base)
        self.sent += 1
        try:
            response = self.litellm.completion(**request, timeout=self.timeout_s)
        except Exception as exc:
            failure = _failure(exc, started, self.api_base, self.timeout_s)
            if failure.timed_out:
                self.busy_since = failure
            return failure
        return _answer(response, time.monotonic() - started)

    def _request(
        self, messages: Sequence[dict[str, str]], max_tokens: int, tools: Sequence[ActionSpec]
    ) -> dict[str, Any]:
        """A run's request (key placeholder, drop_params, no client retries), with the system
        message sent as it is: whether the server honours it is what a probe finds out."""
        run_model = LiteLLMModel(
            self.model,
            api_base=self.api_base,
            timeout_s=self.timeout_s,
            max_output_tokens=max_tokens,
            temperature=0.0,
            system_role="system",
        )
        request = run_model._request(self.litellm, messages, ())
        request.pop("tools", None)
        request.pop("stream_options", None)
        request["stream"] = False
        if tools:
            request["tools"] = tool_schemas(tools)
        return request


def _answer(response: Any, seconds: float) -> Answer:
    usage = getattr(response, "usage", None)
    choices = getattr(response, "choices", None) or []
    message = getattr(choices[0], "message", None) if choices else None
    calls = getattr(message, "tool_calls", None) or []
    finish = getattr(choices[0], "finish_reason", None) if choices else None
    model = getattr(response, "model", None)
    return Answer(
        seconds=seconds,
        model=model if isinstance(model, str) and model.strip() else None,
        prompt_tokens=_count(getattr(usage, "prompt_tokens", None)),
        completion_tokens=_count(getattr(usage, "completion_tokens", None)),
        content=str(getattr(message, "content", None) or ""),
        tool_calls=tuple(str(getattr(call.function, "name", "") or "?") for call in calls),
        finish_reason=finish if isinstance(finish, str) else None,
    )


def _count(value: Any) -> int | None:
    """litellm fills a missing usage with zeros: 0 prompt tokens means "not reported"."""
    try:
        number = int(value or 0)
    except (TypeError, ValueError):
        return None
    return number if number > 0 else None


def _failure(
    exc: BaseException, started: float, where: str | None = None, timeout_s: float | None = None
) -> Failure:
    try:
        error = classify(exc)
    except Exception:  # never let the diagnosis of an error become one
        error = CallError("other", None, f"{type(exc).__name__}: {exc}")
    return Failure(
        time.monotonic() - started,
        error,
        redact_secrets(scrub_url(_reason(error, where, timeout_s), where)),
        tuple(redact_secrets(scrub_url(text, where)) for text in _texts(exc)),
    )


def _reason(error: CallError, where: str | None, timeout_s: float | None) -> str:
    detail = _clip(error.detail)
    if error.kind == "timeout" and error.status is None:
        return f"no answer within {timeout_s:g} s" if timeout_s else "timed out"
    if error.kind == "refused":
        return f"connection refused: nothing listens at {shown_url(where)}" if where else detail
    if error.kind == "reset":
        return f"connection reset: {detail}"
    if error.status is not None:
        return f"HTTP {error.status}: {detail}"
    return detail


def _texts(exc: BaseException) -> list[str]:
    """The text of every exception in the chain and of every error body it carries: a server's
    window size may be in a field of the body (llama.cpp's n_ctx) that no message repeats."""
    texts: list[str] = []
    link: BaseException | None = exc
    seen: list[BaseException] = []
    while link is not None and all(link is not known for known in seen):
        seen.append(link)
        texts.append(str(link))
        body = getattr(link, "body", None)
        if isinstance(body, dict):
            texts.append(json.dumps(body, default=str))
        link = link.__cause__ or link.__context__
    return texts


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MAX_REASON_CHARS else text[: _MAX_REASON_CHARS - 3] + "..."


__all__ = ["Answer", "Failure", "Prober"]
