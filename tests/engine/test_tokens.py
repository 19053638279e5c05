"""Token counting: offline, the right encoding per model, a fallback when an encoding fails."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

from forgetui.engine.base import tokens
from forgetui.engine.base.tokens import counter_for, counter_for_encoding, encoding_for_model

# Runs in a fresh interpreter where every socket refuses to connect and no tiktoken cache
# folder is configured: counting must still work, from litellm's bundled files, without
# importing litellm.
_OFFLINE_SCRIPT = """
import json, socket, sys

def refuse(*args, **kwargs):
    raise OSError("network disabled for this test")

socket.socket.connect = refuse
socket.create_connection = refuse
socket.getaddrinfo = refuse

from forgetui.engine.base.tokens import counter_for
import os
print(json.dumps({
    "cl100k": counter_for("replay").count("hello world, hello tokens"),
    "o200k": counter_for("openai/gpt-4o-mini").count("hello world, hello tokens"),
    "encodings": [counter_for(None).encoding_name, counter_for("gpt-5").encoding_name],
    "cache_dir": os.environ.get("TIKTOKEN_CACHE_DIR"),
    "litellm_imported": "litellm" in sys.modules,
}))
"""


def test_counts_offline_in_a_fresh_process_without_importing_litellm() -> None:
    env = {
        k: v for k, v in os.environ.items() if k not in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR")
    }
    done = subprocess.run(
        [sys.executable, "-c", _OFFLINE_SCRIPT],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["cl100k"] > 0 and report["o200k"] > 0
    assert report["encodings"] == ["cl100k_base", "o200k_base"]
    assert report["cache_dir"].endswith(os.path.join("litellm_core_utils", "tokenizers"))
    assert report["litellm_imported"] is False


@pytest.mark.parametrize(
    ("model", "encoding"),
    [
        ("gpt-4o", "o200k_base"),
        ("gpt-4o-mini", "o200k_base"),
        ("openai/gpt-4.1-nano", "o200k_base"),
        ("gpt-5", "o200k_base"),
        ("o1-mini", "o200k_base"),
        ("openai/o3", "o200k_base"),
        ("o4-mini", "o200k_base"),
        ("gpt-4", "cl100k_base"),
        ("gpt-3.5-turbo", "cl100k_base"),
        ("anthropic/claude-3-5-sonnet", "cl100k_base"),
        ("ollama/qwen2.5-coder", "cl100k_base"),
        ("replay", "cl100k_base"),
        ("replay:script.yaml", "cl100k_base"),
        ("human", "cl100k_base"),
        ("", "cl100k_base"),
        (None, "cl100k_base"),
    ],
)
def test_encoding_follows_the_model(model: str | None, encoding: str) -> None:
    assert encoding_for_model(model) == encoding
    assert counter_for(model).encoding_name == encoding


def test_one_counter_per_encoding() -> None:
    assert counter_for("gpt-4o") is counter_for("openai/o3")
    assert counter_for("replay") is counter_for("human")
    assert counter_for("replay") is not counter_for("gpt-4o")


def test_repeated_counts_come_from_the_cache() -> None:
    counter = counter_for(None)
    text = "a preview of the same state, counted twice " * 20
    first = counter.count(text)
    hits = counter.count.cache_info().hits
    assert counter.count(text) == first
    assert counter.count.cache_info().hits == hits + 1


def test_counts_match_tiktoken_and_treat_special_tokens_as_text() -> None:
    counter = counter_for(None)
    assert counter.count("hello world") == 2
    assert counter.count("") == 0
    special = "<|endoftext|> is just text here"
    assert counter.count(special) == len(counter.encode(special)) > 5
    assert counter.decode(counter.encode(special)) == special


@pytest.fixture
def fresh_counters() -> Iterator[None]:
    counter_for_encoding.cache_clear()
    yield
    counter_for_encoding.cache_clear()


def test_an_encoding_that_fails_to_load_falls_back_to_cl100k(
    monkeypatch: pytest.MonkeyPatch, fresh_counters: None
) -> None:
    import tiktoken

    real = tiktoken.get_encoding

    def broken_o200k(name: str) -> tiktoken.Encoding:
        if name == "o200k_base":
            raise ValueError("o200k_base unavailable")
        return real(name)

    monkeypatch.setattr(tiktoken, "get_encoding", broken_o200k)
    counter = counter_for("gpt-4o")
    assert counter.encoding_name == "cl100k_base"
    assert counter.count("hello world") == 2


def test_a_model_name_that_breaks_the_lookup_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(model: str | None) -> str:
        raise RuntimeError("bad model table")

    monkeypatch.setattr(tokens, "encoding_for_model", broken)
    assert counter_for("gpt-4o").encoding_name == "cl100k_base"


def test_a_users_own_cache_folder_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "/somewhere/of/my/own")
    tokens._point_tiktoken_at_bundled_files()
    assert os.environ["TIKTOKEN_CACHE_DIR"] == "/somewhere/of/my/own"


def test_bundled_folder_holds_both_encodings() -> None:
    folder = tokens.bundled_tokenizer_dir()
    assert folder is not None
    # tiktoken names cache files by the sha1 of the download URL.
    import hashlib

    for url in (
        "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
        "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
    ):
        assert (folder / hashlib.sha1(url.encode()).hexdigest()).is_file()
