"""What an OpenAI-compatible server says about itself (`forgetui doctor`): the models it lists,
and its context window where it tells (llama.cpp's /props, vLLM's /models entries, the text of
an error about a prompt too long for it).

Each GET is one request with the probe timeout, read with urllib (no client to import), and
is optional: a 404 or 501 only means the server does not say.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from collections.abc import Iterable, Mapping
from typing import Any

_MAX_BODY_BYTES = 1 << 20
_MIN_WINDOW, _MAX_WINDOW = 128, 100_000_000
# keys a /models entry (or its `meta`) names the serving window by: llama.cpp, vLLM, others
_ENTRY_WINDOW_KEYS = ("n_ctx", "max_model_len", "context_length", "context_window")
# how servers word "your prompt is longer than my window"; the number is the window
_WINDOW_IN_ERROR = [
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        r"context window of (\d+)",  # llama-cpp-python
        r"maximum context length is (\d+)",  # OpenAI, vLLM
        r"context (?:length|size|window) (?:is|of) (\d+)",
        r"\bn_ctx\b[\"']?\s*[:=]\s*(\d+)",  # llama.cpp's error body; not n_ctx_train
        r"must be <= (\d+)",  # text-generation-inference
    )
]


def get_json(url: str, timeout_s: float) -> tuple[Any, str | None]:
    """(the JSON body, None), or (None, why not) for any failure: a probe never raises."""
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:
            raw = response.read(_MAX_BODY_BYTES)
    except urllib.error.HTTPError as exc:
        return None, f"HTTP {exc.code}"
    except urllib.error.URLError as exc:
        return None, str(exc.reason)
    except Exception as exc:  # a timeout, a reset, a bad URL
        return None, f"{type(exc).__name__}: {exc}"
    try:
        return json.loads(raw), None
    except ValueError:
        return None, "not JSON"


def models_url(api_base: str) -> str:
    return api_base.rstrip("/") + "/models"


def props_url(api_base: str) -> str:
    """llama.cpp serves /props at its root, beside /v1."""
    root = api_base.rstrip("/")
    root = root[: -len("/v1")] if root.endswith("/v1") else root
    return root + "/props"


def listed_models(payload: Any) -> list[dict[str, Any]]:
    """The entries of a /models answer (`{"data": [{"id": ...}, ...]}`; Ollama's `models`)."""
    if not isinstance(payload, Mapping):
        return []
    entries = payload.get("data")
    if not isinstance(entries, list):
        entries = payload.get("models")
    if not isinstance(entries, list):
        return []
    return [entry for entry in entries if isinstance(entry, dict)]


def entry_id(entry: Mapping[str, Any]) -> str:
    return str(entry.get("id") or entry.get("name") or entry.get("model") or "?")


def window_from_models(entries: list[dict[str, Any]], names: Iterable[str]) -> int | None:
    """The window a /models entry states: the entry named like the model, or the only one.
    `n_ctx_train` (the window the model was trained with) is not the server's and is skipped."""
    wanted = {name for name in names if name}
    named = [entry for entry in entries if entry_id(entry) in wanted]
    chosen = named or (entries if len(entries) == 1 else [])
    for entry in chosen:
        meta = entry.get("meta")
        for source in (entry, meta if isinstance(meta, dict) else {}):
            for key in _ENTRY_WINDOW_KEYS:
                window = _window(source.get(key))
                if window is not None:
                    return window
    return None


def window_from_props(payload: Any) -> int | None:
    """llama.cpp's /props: `n_ctx` under default_generation_settings (or at the top)."""
    if not isinstance(payload, Mapping):
        return None
    settings = payload.get("default_generation_settings")
    for source in (settings if isinstance(settings, Mapping) else {}, payload):
        window = _window(source.get("n_ctx"))
        if window is not None:
            return window
    return None


def window_from_error(texts: Iterable[str]) -> tuple[int, str] | None:
    """(window, the words that said it) from an error about an over-long prompt."""
    for text in texts:
        for pattern in _WINDOW_IN_ERROR:
            match = pattern.search(text)
            window = _window(match.group(1)) if match else None
            if match and window is not None:
                return window, match.group(0)
    return None


def _window(value: Any) -> int | None:
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    return number if _MIN_WINDOW <= number <= _MAX_WINDOW else None


__all__ = [
    "entry_id",
    "get_json",
    "listed_models",
    "models_url",
    "props_url",
    "window_from_error",
    "window_from_models",
    "window_from_props",
]
