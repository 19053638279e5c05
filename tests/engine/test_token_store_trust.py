"""The token store is a cache in the user's folder: a count in it that no text of that size
could have (a tampered file) is recounted, and a file that is a named pipe or far larger than
the store writes is ignored, with tiktoken's counts instead."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from forgetui.engine.base import tokens
from forgetui.engine.base.token_store import (
    ENTRY,
    MAX_ENTRIES,
    CountStore,
    plausible,
    text_key,
)

TEXT = "".join(f"line {n}: the context block, in words a model reads.\n" for n in range(60))


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[CountStore]:
    monkeypatch.setenv("FORGETUI_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("FORGETUI_TOKEN_CACHE", "1")
    tokens.counter_for_encoding.cache_clear()
    found = CountStore.for_encoding("cl100k_base")
    assert found is not None
    yield found
    tokens.counter_for_encoding.cache_clear()


def _true_count(text: str, ordinary: bool = False) -> int:
    counter = tokens.TokenCounter("cl100k_base")
    encoding = counter._encoding
    return len(encoding.encode_ordinary(text) if ordinary else counter.encode(text))


def test_a_tampered_count_is_recounted(store: CountStore) -> None:
    counter = tokens.counter_for_encoding("cl100k_base")
    real = counter.count(TEXT)
    lines = TEXT.splitlines()
    real_lines = counter.count_each(lines)
    assert real == _true_count(TEXT) and real > 600
    counter._store.save()  # type: ignore[union-attr]
    keys = [key for key, _ in ENTRY.iter_unpack(store.path.read_bytes())]
    store.path.write_bytes(b"".join(ENTRY.pack(key, 1) for key in keys))  # every count 1

    tokens.counter_for_encoding.cache_clear()
    again = tokens.counter_for_encoding("cl100k_base")
    assert again.count(TEXT) == real
    assert again.count_each(lines) == real_lines


def test_real_counts_are_plausible() -> None:
    samples = [TEXT, "", "x", " understanding", "=" * 4000, " " * 1000, "\n" * 300, "ü" * 40]
    samples += Path(tokens.__file__).read_text().splitlines()
    for text in samples:
        assert plausible(text, _true_count(text)), text
        assert plausible(text, _true_count(text, ordinary=True)), text
    assert not plausible(TEXT, 1)
    assert not plausible("abc", 4)


def _count_within(seconds: float) -> int:
    got: list[int] = []
    worker = threading.Thread(
        target=lambda: got.append(tokens.counter_for_encoding("cl100k_base").count(TEXT)),
        daemon=True,
    )
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), "counting hung on the store file"
    return got[0]


@pytest.mark.parametrize("kind", ["fifo", "too large"])
def test_a_store_file_that_is_not_one_is_ignored(store: CountStore, kind: str) -> None:
    store.path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(store.path)
    else:  # whole entries, the last a wrong count of TEXT that is plausible: only its size tells
        filler = ENTRY.pack(bytes(16), 0) * MAX_ENTRIES
        wrong = ENTRY.pack(text_key(b"encode", TEXT), _true_count(TEXT) + 1)
        store.path.write_bytes(filler + wrong)
    assert _count_within(60) == _true_count(TEXT)
