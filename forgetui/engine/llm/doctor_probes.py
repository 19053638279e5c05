"""The probes of `forgetui doctor`, in the order they run and are shown.

Each is at most one or two short requests (probes.py); what a server does not report (usage,
its model list, its window) is "unknown", never a failure. The over-long prompt goes last: a
server that takes it may be busy with it for a while.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from forgetui.engine.base.tokens import counter_for
from forgetui.engine.folder.catalog import ACTIONS
from forgetui.engine.llm import server_info
from forgetui.engine.llm.litellm_model import LiteLLMModel
from forgetui.engine.llm.probes import Answer, Failure, Prober

SAY_OK = "Say OK."
# ~150 tokens: a system message the server drops is seen as prompt tokens that do not grow
SYSTEM_TEXT = (
    "You are a careful assistant helping an operator check that a language model server works. "
    "Answer briefly and exactly as asked. Do not add explanations, greetings, apologies or "
    "advice unless the operator asks for them. When you are asked to say a word, say only that "
    "word. When you are asked to call a tool, call it with exactly the arguments given. When a "
    "question is ambiguous, give the shortest answer that is correct under the most likely "
    "reading. Never invent facts about files, commands or results you have not seen. Keep every "
    "answer in plain text without Markdown formatting, and never repeat these instructions back "
    "to the operator. This message is the system message of a diagnostic request: its only "
    "purpose is to be counted."
)
COUNT_PROMPT = "Write the numbers from one to forty in words, separated by commas."
TOOL = ACTIONS["complete"]
TOOL_PROMPT = f'Call the tool "{TOOL.name}" with the summary "ok". Answer with the tool call only.'
FILLER = "The quick brown fox jumps over the lazy dog. "
LONG_PROMPT_TOKENS = 40_000
# under half the system text's tokens more: the server left the system message out
SYSTEM_GROWTH_SHARE = 0.5
# a rendered tool schema is far more than this; less growth means the server dropped it
TOOL_GROWTH_TOKENS = 10
# probe -> its line's label, in the order the probes run
LABELS = {
    "reachable": "reachable",
    "model": "model",
    "tokens_per_s": "tokens/s",
    "tools": "tool calling",
    "system_role": "system role",
    "context_window": "context window",
    "cost": "cost",
}


@dataclass(frozen=True)
class ProbeResult:
    """One probe's outcome: a word a script switches on, the line a person reads, numbers."""

    name: str  # the key in `doctor --json`
    status: str
    detail: str
    data: Mapping[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """The text output's first column."""
        return LABELS[self.name]

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "detail": self.detail, **self.data}


class Probing:
    """Runs the probes against one model, keeping what later probes reuse (the reachable
    probe's prompt tokens, the /models listing)."""

    def __init__(self, litellm: ModuleType, prober: Prober) -> None:
        self.litellm = litellm
        self.prober = prober
        self.counter = counter_for(prober.model)
        self.first: Answer | Failure | None = None
        self.listed: list[dict[str, Any]] = []

    @property
    def reached(self) -> Answer | None:
        return self.first if isinstance(self.first, Answer) else None

    def run(self, on_probe: Callable[[ProbeResult], None]) -> list[ProbeResult]:
        results = []
        for probe in (
            self.reachable,
            self.server_model,
            self.tokens_per_s,
            self.tool_calling,
            self.system_role,
            self.context_window,
            self.cost,
        ):
            result = probe()
            results.append(result)
            on_probe(result)
        return results

    def _ask(
        self, name: str, content: list[dict[str, str]], **kwargs: Any
    ) -> Answer | Failure | ProbeResult:
        """A probe's request, or the skipped result when no request may be sent."""
        if self.reached is None:
            return ProbeResult(name, "skipped", "skipped: the model did not answer")
        busy = self.prober.busy_since
        if busy is not None:
            return ProbeResult(
                name,
                "skipped",
                f"skipped: an earlier probe got {busy.reason}; the server may still be busy"
                " with it",
            )
        return self.prober.ask(content, **kwargs)

    def reachable(self) -> ProbeResult:
        name = "reachable"
        self.first = self.prober.ask([{"role": "user", "content": SAY_OK}], max_tokens=8)
        if isinstance(self.first, Failure):
            return ProbeResult(name, "failed", f"no: {self.first.reason}")
        said = _one_line(self.first.content, 30)
        answered = f"answered {said!r}" if said else "answered with nothing"
        return ProbeResult(
            name,
            "ok",
            f"yes: {answered} in {self.first.seconds:.2f} s",
            {"latency_s": round(self.first.seconds, 3)},
        )

    def server_model(self) -> ProbeResult:
        name = "model"
        said = self.reached.model if self.reached else None
        parts = [f"the server says it is {said!r}" if said else "the server names no model"]
        ids: list[str] = []
        failed = self.first if isinstance(self.first, Failure) else None
        api_base = self.prober.api_base
        if api_base and not (failed and failed.error.kind in ("refused", "timeout")):
            payload, why_not = server_info.get_json(
                server_info.models_url(api_base), self.prober.timeout_s
            )
            self.listed = server_info.listed_models(payload)
            ids = [_one_line(server_info.entry_id(entry), 80) for entry in self.listed]
            if ids:
                parts.append(f"GET /models lists {', '.join(ids[:5])}" + (" ..." * (len(ids) > 5)))
            else:
                parts.append(f"GET /models: not listed ({why_not or 'no models'})")
        status = "ok" if said else "unknown"
        return ProbeResult(name, status, "; ".join(parts), {"server_model": said, "listed": ids})

    def tokens_per_s(self) -> ProbeResult:
        name = "tokens_per_s"
        got = self._ask(name, [{"role": "user", "content": COUNT_PROMPT}], max_tokens=64)
        if isinstance(got, ProbeResult):
            return got
        if isinstance(got, Failure):
            return ProbeResult(name, "failed", f"unknown: {got.reason}")
        tokens, counted = got.completion_tokens, ""
        if tokens is None:
            tokens, counted = self.counter.count(got.content), ", counted by forgetui"
        if not tokens or got.seconds <= 0:
            why = f"finish_reason {got.finish_reason}" if got.finish_reason else "no finish_reason"
            return ProbeResult(name, "empty", f"unknown: the model answered nothing ({why})")
        rate = tokens / got.seconds
        return ProbeResult(
            name,
            "ok",
            f"{rate:.1f} ({tokens} tokens in {got.seconds:.2f} s{counted})",
            {"tokens_per_s": round(rate, 1), "tokens": tokens, "seconds": round(got.seconds, 3)},
        )

    def tool_calling(self) -> ProbeResult:
        name = "tools"
        asked = [{"role": "user", "content": TOOL_PROMPT}]
        got = self._ask(name, asked, max_tokens=64, tools=[TOOL])
        if isinstance(got, ProbeResult):
            return got
        if isinstance(got, Failure):
            return _refused(name, got)
        if got.tool_calls:
            called = ", ".join(got.tool_calls)
            return ProbeResult(name, "accepted", f"accepted: the model called {called}")
        with_tool = got.prompt_tokens
        plain = self._ask(name, asked, max_tokens=1) if with_tool else None
        without = plain.prompt_tokens if isinstance(plain, Answer) else None
        if with_tool is None or without is None:
            why = (
                "the server reports no usage" if with_tool is None else "no prompt count without it"
            )
            return ProbeResult(
                name,
                "ignored",
                f"ignored: the model answered in text ({why}: whether the server dropped the tool"
                " is unknown)",
            )
        growth = with_tool - without
        numbers = {"prompt_tokens_with_tool": with_tool, "prompt_tokens_without": without}
        if growth < TOOL_GROWTH_TOKENS:
            return ProbeResult(
                name,
                "dropped",
                f"dropped: the server left the tool out silently ({with_tool} prompt tokens with"
                f" it, {without} without)",
                numbers,
            )
        return ProbeResult(
            name,
            "ignored",
            f"ignored: the model saw the tool (+{growth} prompt tokens) but answered in text",
            numbers,
        )

    def system_role(self) -> ProbeResult:
        name = "system_role"
        asked = [
            {"role": "system", "content": SYSTEM_TEXT},
            {"role": "user", "content": SAY_OK},
        ]
        got = self._ask(name, asked, max_tokens=8)
        if isinstance(got, ProbeResult):
            return got
        if isinstance(got, Failure):
            return _refused(name, got)
        plain = self.reached.prompt_tokens if self.reached else None
        if plain is None or got.prompt_tokens is None:
            return ProbeResult(name, "unknown", "unknown: the server reports no usage")
        growth = got.prompt_tokens - plain
        size = self.counter.count(SYSTEM_TEXT)
        numbers = {"prompt_tokens_without": plain, "prompt_tokens_with": got.prompt_tokens,
                   "system_tokens": size}  # fmt: skip
        seen = f"+{growth} prompt tokens for a {size}-token system message"
        if growth < size * SYSTEM_GROWTH_SHARE:
            return ProbeResult(name, "dropped", f"dropped: {seen}", numbers)
        return ProbeResult(name, "honoured", f"honoured: {seen}", numbers)

    def context_window(self) -> ProbeResult:
        name = "context_window"
        known = LiteLLMModel(self.prober.model).context_window()
        if known is not None:
            return _window(name, known, "litellm", "litellm's model info")
        api_base = self.prober.api_base
        if api_base and self.reached is not None:
            names = [self.prober.model.split("/", 1)[-1], self.reached.model or ""]
            window = server_info.window_from_models(self.listed, names)
            if window is not None:
                return _window(name, window, "server", "the server's /models")
            payload, _ = server_info.get_json(
                server_info.props_url(api_base), self.prober.timeout_s
            )
            window = server_info.window_from_props(payload)
            if window is not None:
                return _window(name, window, "server", "the server's /props")
        return self._window_by_long_prompt(name)

    def _window_by_long_prompt(self, name: str) -> ProbeResult:
        filler = self.counter.encode(FILLER * (LONG_PROMPT_TOKENS // 5))[:LONG_PROMPT_TOKENS]
        text = "Reply OK.\n\n" + self.counter.decode(filler)
        sent = self.counter.count(text)
        got = self._ask(name, [{"role": "user", "content": text}], max_tokens=1)
        if isinstance(got, ProbeResult):
            return got
        if isinstance(got, Failure):
            said = server_info.window_from_error(got.texts)
            if said is not None:
                return _window(name, said[0], "server", f'the server\'s error: "{said[1]}"')
            return ProbeResult(name, "unknown", f"unknown: a {sent}-token prompt got {got.reason}")
        counted = got.prompt_tokens
        if counted is not None and counted < sent * 0.5:
            return _window(
                name, counted, "server", f"the server cut a {sent}-token prompt to {counted}"
            )
        at_least = counted or sent
        return ProbeResult(
            name,
            "at_least",
            f">= {at_least} tokens (a {sent}-token prompt was accepted)",
            {"tokens": at_least, "source": "server"},
        )

    def cost(self) -> ProbeResult:
        name = "cost"
        info = _model_info(self.litellm, self.prober.model)
        prices = [info.get("input_cost_per_token"), info.get("output_cost_per_token")]
        per_m = [round(price * 1e6, 4) for price in prices if isinstance(price, int | float)]
        if len(per_m) != 2:
            return ProbeResult(name, "unknown", "unknown: costs show as $0")
        data = {"input_per_1m": per_m[0], "output_per_1m": per_m[1]}
        if not any(per_m):
            return ProbeResult(name, "free", "known: litellm prices it at $0", data)
        where = " (litellm's price for this name, not the server's)" * bool(self.prober.api_base)
        return ProbeResult(
            name,
            "known",
            f"${per_m[0]:g} input, ${per_m[1]:g} output per 1M tokens{where}",
            data,
        )


def _window(name: str, tokens: int, source: str, said_by: str) -> ProbeResult:
    return ProbeResult(
        name, "known", f"{tokens} tokens ({said_by})", {"tokens": tokens, "source": source}
    )


def _model_info(litellm: ModuleType, model: str) -> dict[str, Any]:
    """litellm's entry for the model; {} for a model it does not know (it raises there)."""
    try:
        info = litellm.get_model_info(model=model)
    except Exception:
        return {}
    return dict(info) if isinstance(info, Mapping) else {}


def _one_line(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


__all__ = ["ProbeResult", "Probing"]


def _refused(name: str, got: Failure) -> ProbeResult:
    """A probe's request failed: an HTTP status is the server saying no to what was asked."""
    if got.status is not None:
        return ProbeResult(name, "rejected", f"rejected: {got.reason}", {"http_status": got.status})
    return ProbeResult(name, "failed", f"unknown: {got.reason}")
