"""The server's count of a prompt when its answer carried none: a streamed answer from a server
that ignores `stream_options.include_usage` (llama-cpp-python's) or a completion without usage.

The context is capped by forgetui's own count; the window is the server's, counted with its own
tokenizer. Where the server has a tokenizer endpoint the prompt is counted there, so the step
still records the server's number: llama.cpp renders its chat template (POST /apply-template)
and counts that (POST /tokenize); llama-cpp-python counts the messages' text
(POST /extras/tokenize/count), its template's few tokens left out. Each request is a short
one to the same server the completion went to; which endpoint a server has is learnt once
per process, and a server with none is not asked again.
"""

from __future__ import annotations

import json
import threading
import urllib.request
from collections.abc import Sequence
from typing import Any

TIMEOUT_S = 5.0
_MAX_BODY_BYTES = 4 << 20
LLAMA_CPP = "llama.cpp"
LLAMA_CPP_PYTHON = "llama-cpp-python"
NONE = "none"

_lock = threading.Lock()
_endpoints: dict[str, str] = {}  # server root -> LLAMA_CPP | LLAMA_CPP_PYTHON | NONE


def server_root(api_base: str) -> str:
    """Both servers serve their extras at the root, beside /v1."""
    root = api_base.rstrip("/")
    return root[: -len("/v1")] if root.endswith("/v1") else root


def server_prompt_tokens(
    api_base: str, messages: Sequence[dict[str, Any]], timeout_s: float = TIMEOUT_S
) -> int | None:
    """The prompt's tokens by the server's tokenizer, or None where the server cannot say.
    Never raises: a count that cannot be had only leaves forgetui's own."""
    root = server_root(api_base)
    with _lock:
        known = _endpoints.get(root)
    if known == NONE:
        return None
    for kind in (known,) if known else (LLAMA_CPP, LLAMA_CPP_PYTHON):
        count = _count(kind, root, messages, timeout_s)
        if count is not None:
            with _lock:
                _endpoints[root] = kind
            return count
    if known is None:
        with _lock:
            _endpoints[root] = NONE
    return None


def _count(
    kind: str | None, root: str, messages: Sequence[dict[str, Any]], timeout_s: float
) -> int | None:
    if kind == LLAMA_CPP:
        rendered = _post(f"{root}/apply-template", {"messages": list(messages)}, timeout_s)
        prompt = rendered.get("prompt") if isinstance(rendered, dict) else None
        if not isinstance(prompt, str):
            return None
        got = _post(f"{root}/tokenize", {"content": prompt, "add_special": True}, timeout_s)
        tokens = got.get("tokens") if isinstance(got, dict) else None
        return len(tokens) if isinstance(tokens, list) and tokens else None
    if kind == LLAMA_CPP_PYTHON:
        text = "\n".join(str(message.get("content") or "") for message in messages)
        got = _post(f"{root}/extras/tokenize/count", {"input": text}, timeout_s)
        count = got.get("count") if isinstance(got, dict) else None
        return count if isinstance(count, int) and count > 0 else None
    return None


def _post(url: str, payload: dict[str, Any], timeout_s: float) -> Any:
    """The JSON answer, or None for any failure (404 where the server has no such endpoint)."""
    request = urllib.request.Request(
        url,
        data=json.dumps(payload).encode("utf-8"),
        headers={"Content-Type": "application/json", "Accept": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:
            return json.loads(response.read(_MAX_BODY_BYTES))
    except Exception:  # a 404, a refused connection, a timeout, not JSON
        return None


__all__ = ["server_prompt_tokens"]
