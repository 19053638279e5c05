"""Token counts kept across processes: a count from the store is tiktoken's own, and a counter
whose texts were all counted before never loads tiktoken's tables."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from forgetui.engine.base import tokens
from forgetui.engine.base.token_store import ENTRY, CountStore, text_key

TEXTS = ["def hello():\n    print('hello')\n", "<|endoftext|> is just text here", "", "ü" * 40]


@pytest.fixture
def store_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("FORGETUI_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("FORGETUI_TOKEN_CACHE", "1")
    tokens.counter_for_encoding.cache_clear()
    yield tmp_path / "home"
    tokens.counter_for_encoding.cache_clear()


# A fresh process: counts TEXTS (each way), prints them and whether tiktoken was imported.
COUNT = """
import json, sys
from forgetui.engine.base.tokens import counter_for_encoding
texts = {texts!r}
counter = counter_for_encoding("cl100k_base")
counts = [counter.count(t) for t in texts] + counter.count_each(texts)
print(json.dumps([counts, "tiktoken" in sys.modules]))
"""


def _count_in_a_process(texts: list[str]) -> tuple[list[int], bool]:
    out = subprocess.run(
        [sys.executable, "-c", COUNT.format(texts=texts)], capture_output=True, text=True,
        check=True,
    ).stdout  # fmt: skip
    counts, imported = json.loads(out)
    return counts, imported


def test_a_second_process_counts_known_texts_without_tiktoken(store_on: Path) -> None:
    first, loaded = _count_in_a_process(TEXTS)
    assert loaded  # nothing stored yet: tiktoken counted, and the counts were kept at exit
    assert list(store_on.glob("cache/tokens-cl100k_base-*.bin"))
    second, loaded_again = _count_in_a_process(TEXTS)
    assert second == first and not loaded_again
    real = tokens.TokenCounter("cl100k_base")  # no store: tiktoken itself
    assert first == [real.count(t) for t in TEXTS] + real.count_each(TEXTS)


def test_a_new_text_is_counted_by_tiktoken_and_kept(store_on: Path) -> None:
    _count_in_a_process(TEXTS[:1])
    counts, loaded = _count_in_a_process(TEXTS)
    assert loaded  # three texts were new
    real = tokens.TokenCounter("cl100k_base")
    assert counts[: len(TEXTS)] == [real.count(t) for t in TEXTS]
    assert _count_in_a_process(TEXTS) == (counts, False)


def test_a_damaged_store_is_ignored_and_rewritten(store_on: Path) -> None:
    _count_in_a_process(TEXTS)
    (stored,) = store_on.glob("cache/tokens-cl100k_base-*.bin")
    stored.write_bytes(stored.read_bytes()[:-3])  # cut mid-entry
    counts, loaded = _count_in_a_process(TEXTS)
    assert loaded
    real = tokens.TokenCounter("cl100k_base")
    assert counts[: len(TEXTS)] == [real.count(t) for t in TEXTS]
    assert len(stored.read_bytes()) % ENTRY.size == 0


def test_the_store_is_off_when_turned_off(store_on: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORGETUI_TOKEN_CACHE", "0")
    assert CountStore.for_encoding("cl100k_base") is None
    assert text_key(b"encode", "a") != text_key(b"ordinary", "a")
