"""Any provider through litellm, with one retry loop of our own.

litellm is imported on the first call, never at module import: it costs seconds and 160 MB, and
the TUI must paint before that. The client's own retries are off (`max_retries=0`) so that the
attempts, the backoff and the per-step deadline are all decided here, and a model that keeps
failing becomes a reply with `transport_failed` (the step escalates), never an exception.
Every call is bounded: an output cap, a temperature and a timeout are always sent,
and only errors that say "try again" are retried (call_errors.py says which and why).
A model without a system role gets the system prompt merged into the user message
(system_role.py); a server given by `api_base` gets a placeholder key when none is set
(credentials.py). Answers are streamed by default, each attempt on a worker thread that keeps
the whole answer within the timeout and lets the operator stop it (attempt.py).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from types import ModuleType
from typing import Any

from forgetui.engine.folder.catalog import ActionSpec
from forgetui.engine.folder.model_options import (
    DEFAULT_MAX_OUTPUT_TOKENS,
    DEFAULT_TEMPERATURE,
    DEFAULT_TIMEOUT_S,
    SystemRole,
)
from forgetui.engine.llm.attempt import Attempt, attempt
from forgetui.engine.llm.base import ModelReply
from forgetui.engine.llm.call_errors import CallError, classify, retry_after_s
from forgetui.engine.llm.credentials import PLACEHOLDER_API_KEY, missing_key_variables
from forgetui.engine.llm.parse import ParsedAction, parse_text, parse_tool_call, tool_schemas
from forgetui.engine.llm.prompt_count import TIMEOUT_S as TOKENIZE_TIMEOUT_S
from forgetui.engine.llm.prompt_count import server_prompt_tokens
from forgetui.engine.llm.server_url import scrub_url, shown_url
from forgetui.engine.llm.stream import STOPPED, AnswerStream
from forgetui.engine.llm.system_role import merge_system, resolve_system_role
from forgetui.engine.sandbox import secrets_of

_MAX_ERROR_CHARS = 400


def import_litellm() -> ModuleType:
    """The one place litellm is imported: cost map from the package, not the network."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    # not "DEV": litellm would load a .env found from the current directory or above its install,
    # which may be one the agent wrote (an OPENAI_BASE_URL would send it the operator's key)
    os.environ.setdefault("LITELLM_MODE", "PRODUCTION")
    import litellm

    litellm.suppress_debug_info = True  # no "Give Feedback / Get Help" banner on stdout
    return litellm


class LiteLLMModel:
    """A litellm model string such as `openai/gpt-4o-mini` or `ollama/qwen2.5-coder`.

    `use_tools=None` decides per model: tools when litellm says the model supports function
    calling, or whenever an `api_base` is given (OpenAI-compatible servers); the fenced-block
    answer otherwise. `system_role=None` likewise decides per model (system_role.py).
    `stream=False` asks for whole answers, for a server that breaks on streaming. Keys are
    read by litellm from the environment and never pass through here; only a placeholder does,
    for an `api_base` server when the provider's key variable is not set.
    """

    def __init__(
        self,
        model: str,
        *,
        api_base: str | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        max_output_tokens: int = DEFAULT_MAX_OUTPUT_TOKENS,
        temperature: float = DEFAULT_TEMPERATURE,
        use_tools: bool | None = None,
        system_role: SystemRole | None = None,
        max_attempts: int = 3,
        backoff_base_s: float = 1.0,
        backoff_cap_s: float = 20.0,
        deadline_s: float | None = None,
        stream: bool = True,
        context_window: int | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.name = model
        self.api_base = api_base
        self.timeout_s = timeout_s
        self.max_output_tokens = max_output_tokens
        self.temperature = temperature
        self.use_tools = use_tools
        self.system_role = system_role
        self.max_attempts = max(1, max_attempts)
        self.backoff_base_s = backoff_base_s
        self.backoff_cap_s = backoff_cap_s
        self.deadline_s = deadline_s if deadline_s is not None else timeout_s * self.max_attempts
        self.stream = stream
        # the task's model_options.context_window: a local server's window, which litellm's
        # model info cannot know
        self.window_option = context_window
        self._sleep = sleep

    def complete(
        self,
        messages: Sequence[dict[str, str]],
        tools: Sequence[ActionSpec],
        stream: AnswerStream | None = None,
    ) -> ModelReply:
        """One answer, retried where that can help. Streamed (unless `stream=False`), it is fed
        to `stream` as it arrives, and the operator's stop ends it with what had arrived."""
        started = time.monotonic()
        try:
            litellm = import_litellm()
            request = self._request(litellm, messages, tools)
            sent: dict[str, Any] = {
                "system_role": "merge" if self._merges(litellm) else None,
                "tools_sent": "tools" in request,
            }
        except Exception as exc:  # a broken install must not take the run down
            return ModelReply.failure(_describe(exc), model=self.name)
        deadline = time.monotonic() + self.deadline_s  # the one-time import is not the model's
        attempts = 0
        error: CallError | None = None
        tried: Attempt | None = None
        waited_s = 0.0
        while attempts < self.max_attempts:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            if attempts and stream is not None:
                stream.restart()  # what arrived belongs to the failed attempt
            attempts += 1
            waited_s = min(self.timeout_s, remaining)
            tried = attempt(litellm, request, waited_s, stream)
            latency_ms = (time.monotonic() - started) * 1000
            if tried.stopped:
                return self._stopped(tried, latency_ms, sent)
            if tried.error is None:
                reply = self._reply(litellm, tried.response, tools, latency_ms)
                reply = self._prompt_counted(reply, request["messages"])
                return replace(reply, streamed=tried.streamed, **sent)
            error = classify(tried.error)
            if not error.retryable:
                break
            delay = self._backoff(attempts, retry_after_s(tried.error))
            if attempts >= self.max_attempts or time.monotonic() + delay >= deadline:
                break
            self._sleep(delay)
        text = (
            self._failure_text(error, attempts, waited_s)
            if error is not None
            else f"no attempt: the per-step deadline of {_seconds(self.deadline_s)} s had passed"
        )
        return ModelReply.failure(
            redact_secrets(text),
            model=self.name,
            raw=tried.text if tried is not None else "",  # a partial answer, kept for the log
            latency_ms=(time.monotonic() - started) * 1000,
            streamed=tried is not None and tried.streamed,
            failure_kind=error.kind if error is not None else None,
            **sent,
        )

    def _prompt_counted(self, reply: ModelReply, messages: Sequence[dict[str, str]]) -> ModelReply:
        """The prompt's count labelled by who made it; an answer without the server's usage
        (a llama-cpp-python stream) gets it from the server's tokenizer where it has one."""
        if reply.prompt_tokens > 0:
            return replace(reply, prompt_tokens_by="server")
        counted = (
            server_prompt_tokens(self.api_base, messages, min(TOKENIZE_TIMEOUT_S, self.timeout_s))
            if self.api_base
            else None
        )
        if counted is None:
            return replace(reply, prompt_tokens_by="forgetui")
        return replace(reply, prompt_tokens=counted, prompt_tokens_by="tokenize")

    def _stopped(self, tried: Attempt, latency_ms: float, sent: dict[str, Any]) -> ModelReply:
        """The operator stopped the answer: what had arrived, recorded as such. The server sent
        no usage (it was cut off), so the chunks counted stand for the completion tokens."""
        return ModelReply(
            None,
            {},
            tried.text,
            f"the operator stopped the answer after {tried.tokens} tokens",
            completion_tokens=tried.tokens,
            latency_ms=latency_ms,
            model=self.name,
            finish_reason=STOPPED,
            streamed=tried.streamed,
            stopped=True,
            **sent,
        )

    def _failure_text(self, error: CallError, attempts: int, waited_s: float) -> str:
        """One line that says what failed, where, and whether it was retried.

        The executor puts "model call failed: " before it, so it does not say that itself."""
        where = shown_url(self.api_base) if self.api_base else self.name
        detail = _clip(error.detail)
        if error.kind == "timeout" and error.status is None:
            what, detail = f"timed out after {_seconds(waited_s)} s waiting for {where}", ""
        elif error.kind == "refused":
            what, detail = f"connection to {where} refused", ""
        elif error.kind == "reset":
            what = f"connection to {where} reset"
        elif error.kind == "context_window":
            what = f"{where} refused the prompt as too long for the model's window"
            what += f" (HTTP {error.status})" if error.status else ""
        elif error.kind == "status" or error.kind == "timeout":
            what = f"HTTP {error.status} from {where}"
        elif error.kind == "provider":
            what = f"{where} failed (litellm status {error.status})"
        else:
            what = f"{where} failed"
        if not error.retryable:
            how = f" (not retried: {error.why_not_retried})"
        elif attempts >= self.max_attempts:
            how = f" after {attempts} attempts"
        else:
            how = (
                f" after {attempts} attempt(s): the per-step deadline of"
                f" {_seconds(self.deadline_s)} s left no time for another"
            )
        return scrub_url(f"{what}{how}: {detail}" if detail else f"{what}{how}", self.api_base)

    def _request(
        self, litellm: ModuleType, messages: Sequence[dict[str, str]], tools: Sequence[ActionSpec]
    ) -> dict[str, Any]:
        request: dict[str, Any] = {
            "model": self.name,
            "messages": (
                merge_system(messages) if self._merges(litellm) else [dict(m) for m in messages]
            ),
            "max_retries": 0,
            "max_tokens": self.max_output_tokens,
            "temperature": self.temperature,
            # a parameter the provider does not take (o1's temperature) is dropped, not a 400
            "drop_params": True,
        }
        if self.api_base:
            request["api_base"] = self.api_base
            if missing_key_variables(litellm, self.name):
                # a local server needs no key; without one litellm fails before sending
                request["api_key"] = PLACEHOLDER_API_KEY
        if tools and self._tools_wanted(litellm):
            request["tools"] = tool_schemas(tools)
        if self.stream:
            # the usage chunk: the server's own count, which the log records per step
            request["stream"] = True
            request["stream_options"] = {"include_usage": True}
        return request

    def _merges(self, litellm: ModuleType) -> bool:
        return resolve_system_role(litellm, self.name, self.system_role) == "merge"

    def _tools_wanted(self, litellm: ModuleType) -> bool:
        if self.use_tools is not None:
            return self.use_tools
        if self.api_base:
            return True
        try:
            return bool(litellm.supports_function_calling(model=self.name))
        except Exception:  # an unknown model: answer in text
            return False

    def _backoff(self, attempt: int, retry_after_s: float | None) -> float:
        wanted = (
            retry_after_s if retry_after_s is not None else self.backoff_base_s * 2 ** (attempt - 1)
        )
        return max(0.0, min(self.backoff_cap_s, wanted))

    def _reply(
        self,
        litellm: ModuleType,
        response: Any,
        tools: Sequence[ActionSpec],
        latency_ms: float,
    ) -> ModelReply:
        reply = self._parsed_reply(litellm, response, tools, latency_ms)
        if reply.finish_reason == "length" and reply.action is None:
            # a cut-off answer rarely parses; say why, or the agent is told its form was wrong
            cut = (
                f"the answer was cut off at the {self.max_output_tokens}-token cap"
                " (max_output_tokens)"
            )
            return replace(reply, error=f"{cut}: {reply.error}" if reply.error else cut)
        return reply

    def _parsed_reply(
        self,
        litellm: ModuleType,
        response: Any,
        tools: Sequence[ActionSpec],
        latency_ms: float,
    ) -> ModelReply:
        usage = getattr(response, "usage", None)
        choices = getattr(response, "choices", None) or []
        finish = getattr(choices[0], "finish_reason", None) if choices else None
        meta: dict[str, Any] = {
            "prompt_tokens": int(getattr(usage, "prompt_tokens", 0) or 0),
            "completion_tokens": int(getattr(usage, "completion_tokens", 0) or 0),
            "cost": _cost(litellm, response),
            "latency_ms": latency_ms,
            "model": self.name,
            "finish_reason": finish if isinstance(finish, str) else None,
        }
        if not choices:
            return ModelReply(None, {}, "", "the response has no choices", **meta)
        message = choices[0].message
        content = getattr(message, "content", None) or ""
        calls = getattr(message, "tool_calls", None) or []
        if not calls:
            if not content.strip():
                return ModelReply(None, {}, "", "the response is empty", **meta)
            parsed = parse_text(content, tools, meta["finish_reason"])
            return ModelReply.from_parsed(parsed, content, **meta)
        dumped = [
            {"name": call.function.name, "arguments": call.function.arguments} for call in calls
        ]
        raw = json.dumps(
            {"content": content, "tool_calls": dumped} if content else {"tool_calls": dumped},
            ensure_ascii=False,
        )
        if len(calls) > 1:
            parsed = ParsedAction.failed(
                f"{len(calls)} tool calls in one response; call exactly one tool per step"
            )
        else:
            parsed = parse_tool_call(dumped[0]["name"] or "", dumped[0]["arguments"], tools)
        return ModelReply.from_parsed(parsed, raw, **meta)

    def sends_tools(self) -> bool:
        """Whether tool schemas go with this model's requests (`use_tools`, from the `tools`
        option: on/off decide, auto asks litellm), so the context counts what is sent."""
        try:
            litellm = import_litellm()
        except Exception:  # the call fails on the same import and says why
            return False
        return self._tools_wanted(litellm)

    def context_window(self) -> int | None:
        """The model's context window in tokens: the option, else litellm's model info
        (`max_input_tokens`), else None (not known: the context is not capped by it)."""
        if self.window_option is not None:
            return self.window_option
        try:
            info = import_litellm().get_model_info(model=self.name)
        except Exception:  # a model litellm does not know (a local server's)
            return None
        tokens = info.get("max_input_tokens")  # not max_tokens: for many it is the output cap
        return tokens if isinstance(tokens, int) and tokens > 0 else None


def _cost(litellm: ModuleType, response: Any) -> float:
    """litellm's price for this call, or 0.0 for a model its cost map does not know."""
    try:
        return float(litellm.completion_cost(completion_response=response) or 0.0)
    except Exception:
        return 0.0


def _seconds(value: float) -> str:
    return f"{value:g}"


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MAX_ERROR_CHARS else text[: _MAX_ERROR_CHARS - 3] + "..."


def _describe(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    if len(text) > _MAX_ERROR_CHARS:
        text = text[: _MAX_ERROR_CHARS - 3] + "..."
    return redact_secrets(f"{type(exc).__name__}: {text}")


def redact_secrets(text: str) -> str:
    """Provider errors can echo a key back; a key must never reach a log file. The variables
    are the ones the sandbox cuts from agent output (one rule for what is secret); here the
    value becomes `***`, since an error line has no room to name it."""
    for value in sorted(secrets_of(os.environ).values(), key=len, reverse=True):
        text = text.replace(value, "***")
    return text
