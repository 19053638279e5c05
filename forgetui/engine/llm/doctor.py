"""`forgetui doctor --model M [--api-base URL]`: what a model and its server really
do, found out with a few short requests before a run depends on it, and the model options that
make the run work (doctor_probes.py holds the probes).

A local server is the case it is for: a chat template without a system role, tools dropped
without a word, a window no model table knows. Each finding that changes how forgetui must
call the model becomes a `model_options` field, given as `forgetui run` flags and as a
task.yaml snippet; the verdict says whether the model can drive a run at all.
"""

from __future__ import annotations

import math
import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from types import ModuleType
from typing import Any

from forgetui.engine.base.errors import EXIT_OK, ForgeError
from forgetui.engine.base.yamlio import dump_yaml
from forgetui.engine.folder.model_options import (
    DEFAULT_MAX_OUTPUT_TOKENS,
    DEFAULT_TIMEOUT_S,
    ModelOptions,
)
from forgetui.engine.llm.credentials import require_keys
from forgetui.engine.llm.doctor_probes import ProbeResult, Probing
from forgetui.engine.llm.litellm_model import LiteLLMModel, import_litellm
from forgetui.engine.llm.probes import Prober
from forgetui.engine.llm.server_url import checked_api_base, scrub_url, shown_url
from forgetui.engine.llm.system_role import resolve_system_role

EXIT_NOT_USABLE = 1
# below this, forgetui's first context (about 1,000 tokens) and an answer do not both fit
MIN_WINDOW = 2048
# below this, the default answer cap takes too much of the window: a smaller cap is advised
SMALL_WINDOW = 4096
# the context a run's answer follows, in the timeout's estimate: the server reads it within the
# answer's window (the stream is open by then), and a CPU server reads about as slowly as it
# writes, so it counts at the measured answer rate
PROMPT_ALLOWANCE = 2048
# `forgetui run` flags of the options doctor may advise; context_window is task.yaml only
RUN_FLAGS = {
    "max_output_tokens": "--max-output-tokens",
    "temperature": "--temperature",
    "timeout_s": "--timeout",
    "system_role": "--system-role",
    "tools": "--tools",
}


@dataclass(frozen=True)
class DoctorReport:
    """The probes' results, the verdict and the options to run the model with."""

    model: str
    api_base: str | None
    probes: tuple[ProbeResult, ...]
    why_not_usable: str | None
    options: dict[str, Any]
    reasons: dict[str, str]  # option -> the finding it answers
    requests: int  # completions sent (the GETs are not counted)
    seconds: float
    timed_out: bool = False  # a probe got no answer in time: the later ones were not sent

    @property
    def verdict(self) -> str:
        if self.why_not_usable:
            return "not usable"
        return "usable with options" if self.options else "usable"

    @property
    def verdict_line(self) -> str:
        return f"not usable: {self.why_not_usable}" if self.why_not_usable else self.verdict

    @property
    def exit_code(self) -> int:
        return EXIT_NOT_USABLE if self.why_not_usable else EXIT_OK

    def flags(self) -> list[str]:
        """The options as `forgetui run` flags (those that have one)."""
        flags: list[str] = []
        for option, value in self.options.items():
            if option in RUN_FLAGS:
                flags += [
                    RUN_FLAGS[option],
                    f"{value:g}" if isinstance(value, float) else str(value),
                ]
        return flags

    def run_command(self) -> str:
        words = ["forgetui", "run", "TASK", "--model", self.model]
        if self.api_base:
            words += ["--api-base", shown_url(self.api_base)]  # no user:password, no query
        return " ".join(shlex.quote(word) for word in [*words, *self.flags()])

    def task_yaml(self) -> str:
        """task.yaml's `model_options:` with the options ("" when there are none)."""
        return dump_yaml({"model_options": self.options}) if self.options else ""

    def to_json(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "api_base": shown_url(self.api_base) if self.api_base else None,
            "probes": {result.name: result.to_json() for result in self.probes},
            "verdict": self.verdict,
            "why_not_usable": self.why_not_usable,
            "options": self.options,
            "reasons": self.reasons,
            "flags": self.flags(),
            "task_yaml": self.task_yaml(),
            "requests": self.requests,
            "seconds": round(self.seconds, 2),
        }


def doctor(
    model: str,
    *,
    api_base: str | None = None,
    timeout_s: float | None = None,
    on_probe: Callable[[ProbeResult], None] | None = None,
) -> DoctorReport:
    """Probe `model` (at `api_base`) and judge it; `on_probe` sees each result as it comes.

    Bad input (a model that is not a litellm model string, a URL that is not one, a provider
    key that is not set) is a ForgeError before any request; nothing the server does raises."""
    model = _checked_model(model)
    api_base = checked_api_base(api_base)
    timeout = DEFAULT_TIMEOUT_S if timeout_s is None else timeout_s
    if timeout <= 0:
        raise ForgeError(f"--timeout must be above 0, not {timeout:g}")
    litellm = import_litellm()
    _check_provider(litellm, model, api_base)
    if not api_base:
        require_keys(litellm, model)
    started = time.monotonic()  # the probes' time: litellm's import is not the server's
    prober = Prober(litellm, model, api_base, timeout)
    probing = Probing(litellm, prober)
    shown = on_probe or (lambda result: None)
    results = [_scrubbed(r, api_base) for r in probing.run(lambda r: shown(_scrubbed(r, api_base)))]
    by_name = {result.name: result for result in results}
    options, reasons, why_not = _advice(litellm, model, api_base, by_name)
    reasons = {option: scrub_url(reason, api_base) for option, reason in reasons.items()}
    why_not = scrub_url(why_not, api_base) if why_not else why_not
    ModelOptions().with_overrides(**options)  # every piece of advice is an option that exists
    return DoctorReport(
        model,
        api_base,
        tuple(results),
        why_not,
        options,
        reasons,
        prober.sent,
        time.monotonic() - started,
        prober.busy_since is not None,
    )


def _advice(
    litellm: ModuleType, model: str, api_base: str | None, probes: dict[str, ProbeResult]
) -> tuple[dict[str, Any], dict[str, str], str | None]:
    """(options, why each, why the model is not usable or None) from the probes' results."""
    reachable = probes["reachable"]
    if reachable.status != "ok":
        return {}, {}, f"the model did not answer ({reachable.detail.removeprefix('no: ')})"
    if probes["tokens_per_s"].status == "empty":
        return {}, {}, (
            "the model answered nothing when asked for a few dozen tokens: check the server's"
            " chat template (a template that ends the turn at once makes every answer empty)"
        )  # fmt: skip
    window = probes["context_window"]
    tokens = window.data.get("tokens") if window.status == "known" else None
    if isinstance(tokens, int) and tokens < MIN_WINDOW:
        return {}, {}, (
            f"its context window of {tokens} tokens is too small: forgetui's first context"
            " alone is about 1,000 tokens"
        )  # fmt: skip
    options: dict[str, Any] = {}
    reasons: dict[str, str] = {}
    system = probes["system_role"]
    if system.status in ("dropped", "rejected") and (
        resolve_system_role(litellm, model, None) != "merge"
    ):
        options["system_role"] = "merge"
        reasons["system_role"] = (
            "the server dropped the system message"
            if system.status == "dropped"
            else f"a request with a system message was {system.detail}"
        )
    tools = probes["tools"]
    sends_tools = LiteLLMModel(model, api_base=api_base).sends_tools()  # as `tools: auto` does
    if tools.status in ("ignored", "dropped", "rejected") and sends_tools:
        options["tools"] = "off"
        reasons["tools"] = {
            "dropped": "the server dropped the tool without a word",
            "ignored": "the model answered in text when asked to call a tool",
        }.get(tools.status, f"a request with a tool was {tools.detail}")
    elif tools.status == "accepted" and not sends_tools:
        options["tools"] = "on"
        reasons["tools"] = "the model calls tools, and litellm does not list it as one that does"
    if isinstance(tokens, int):
        if window.data.get("source") != "litellm":
            options["context_window"] = tokens
            reasons["context_window"] = "litellm does not know this model's window"
        if tokens < SMALL_WINDOW:
            options["max_output_tokens"] = max(256, tokens // 4)
            reasons["max_output_tokens"] = (
                f"a {tokens}-token window leaves the context room only with a smaller answer cap"
            )
    _advise_timeout(probes, options, reasons)
    return options, reasons, None


def _advise_timeout(
    probes: dict[str, ProbeResult], options: dict[str, Any], reasons: dict[str, str]
) -> None:
    """A longer timeout when a context and a full answer at this speed would not fit in the
    default one."""
    rate = probes["tokens_per_s"].data.get("tokens_per_s")
    latency = probes["reachable"].data.get("latency_s", 0.0)
    if not isinstance(rate, int | float) or rate <= 0:
        return
    cap = options.get("max_output_tokens", DEFAULT_MAX_OUTPUT_TOKENS)
    needed = latency + (PROMPT_ALLOWANCE + cap) / rate
    if needed <= DEFAULT_TIMEOUT_S * 0.8:
        return
    options["timeout_s"] = float(math.ceil(needed * 1.5 / 10) * 10)
    reasons["timeout_s"] = (
        f"a {cap}-token answer to a {PROMPT_ALLOWANCE}-token context at {rate:.1f} tokens/s"
        f" takes about {needed:.0f} s, near or over the default timeout of"
        f" {DEFAULT_TIMEOUT_S:g} s"
    )


def _checked_model(model: str | None) -> str:
    spec = (model or "").strip()
    if not spec:
        raise ForgeError("doctor: --model is required (a litellm model string)")
    if spec in ("replay", "human") or spec.startswith("replay:"):
        raise ForgeError(
            f"doctor checks a real model; {spec!r} needs no check"
            " (give a litellm model string such as openai/NAME with --api-base)"
        )
    if any(char.isspace() for char in spec):
        raise ForgeError(f"not a model name: {spec!r}")
    return spec


def _scrubbed(result: ProbeResult, api_base: str | None) -> ProbeResult:
    """A probe's line names the server without the credentials its URL may carry."""
    detail = scrub_url(result.detail, api_base)
    return result if detail == result.detail else replace(result, detail=detail)


def _check_provider(litellm: ModuleType, model: str, api_base: str | None) -> None:
    """A model string litellm cannot route (no provider prefix) is bad input, not a probe."""
    try:
        litellm.get_llm_provider(model, api_base=api_base)
    except Exception:
        raise ForgeError(
            f"{model!r} names no provider litellm knows: use PROVIDER/NAME, e.g. openai/{model}"
            " with --api-base for an OpenAI-compatible server"
        ) from None


__all__ = ["EXIT_NOT_USABLE", "DoctorReport", "ProbeResult", "doctor"]
