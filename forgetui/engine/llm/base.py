"""What every model adapter returns, and the one method the executor calls."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from forgetui.engine.folder.catalog import ActionSpec
from forgetui.engine.llm.parse import ParsedAction
from forgetui.engine.llm.stream import AnswerStream


@dataclass(frozen=True)
class ModelReply:
    """One model response: the parsed action (or why there is none) plus what it cost.

    A reply that does not parse is still a reply: the executor records it as a failed step and
    the next context shows `error`. Only `transport_failed` (retries exhausted, script run out,
    operator input closed) means the step should escalate instead.
    """

    action: str | None
    args: dict[str, Any]
    raw: str
    error: str | None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    latency_ms: float = 0.0
    model: str = ""
    transport_failed: bool = False
    retry_helps: bool = True  # False: the same call would fail again (a replay script ran out)
    finish_reason: str | None = None  # the provider's: "stop", "length" (cut at the cap), ...
    attempted: str | None = None  # the action named by an answer whose arguments did not pass
    system_role: str | None = None  # "merge": the system prompt went inside the user message
    tools_sent: bool = False  # tool schemas went with the request
    streamed: bool = False  # the answer arrived as a stream
    stopped: bool = False  # the operator stopped the stream: `raw` is the partial answer
    failure_kind: str | None = None  # a transport failure's kind (call_errors.Kind)
    # who counted prompt_tokens: "server" (its usage), "tokenize" (its tokenizer endpoint, the
    # answer had no usage: a stream from llama-cpp-python), "forgetui" (nobody else could:
    # prompt_tokens is 0 and the context's own count is the only one)
    prompt_tokens_by: str | None = None

    @classmethod
    def from_parsed(cls, parsed: ParsedAction, raw: str, **usage: Any) -> ModelReply:
        return cls(
            parsed.action, dict(parsed.args), raw, parsed.error, attempted=parsed.attempted,
            **usage,
        )  # fmt: skip

    @classmethod
    def failure(
        cls, error: str, *, model: str, raw: str = "", retry: bool = True, **usage: Any
    ) -> ModelReply:
        """No usable answer at all: the step escalates with `error` as the reason."""
        return cls(
            None, {}, raw, error, model=model, transport_failed=True, retry_helps=retry, **usage
        )


class Model(Protocol):
    """A source of actions: a real LLM, a replay script, or the operator."""

    name: str

    def complete(
        self,
        messages: Sequence[dict[str, str]],
        tools: Sequence[ActionSpec],
        stream: AnswerStream | None = None,
    ) -> ModelReply:
        """One answer. With `stream`, a model that streams feeds it as the answer arrives and
        stops early when the operator asks (`stream.stopped`); others may ignore it."""
        ...


__all__ = ["Model", "ModelReply"]
