"""Token counting with tiktoken, offline.

tiktoken downloads its encoding files on first use unless they are in its cache folder. litellm
ships the cl100k_base and o200k_base files in `litellm/litellm_core_utils/tokenizers`, so we
point `TIKTOKEN_CACHE_DIR` there (without importing litellm, whose import takes seconds) before
the first encoding is loaded. A user who set the variable keeps their own folder.

Counts are also kept across processes (token_store.py): a counter whose encoding counted here
before loads it only when a text is new to it, or when asked to encode.
"""

from __future__ import annotations

import importlib.util
import os
import re
import threading
from collections.abc import Sequence
from functools import cache, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from forgetui.engine.base.errors import ForgeError
from forgetui.engine.base.token_store import CountStore, plausible, text_key

if TYPE_CHECKING:
    from tiktoken import Encoding

DEFAULT_ENCODING = "cl100k_base"
_O200K_MODELS = re.compile(r"^(?:openai/)?(?:gpt-4o|gpt-4\.1|gpt-5|o1|o3|o4)")
COUNT_CACHE_SIZE = 2048
# No token of the encodings used here spans more bytes (cl100k_base, o200k_base): a text longer
# than budget * this many characters is over the budget without counting it, which for one
# long run of a character costs tiktoken seconds (16 MB: 6.6 s).
MAX_BYTES_PER_TOKEN = 128


def bundled_tokenizer_dir() -> Path | None:
    """litellm's folder of tiktoken cache files, found without importing litellm."""
    try:
        spec = importlib.util.find_spec("litellm")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        folder = Path(location) / "litellm_core_utils" / "tokenizers"
        if folder.is_dir():
            return folder
    return None


def _point_tiktoken_at_bundled_files() -> None:
    folder = bundled_tokenizer_dir()
    if folder is not None:
        os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(folder))


def encoding_for_model(model: str | None) -> str:
    """o200k_base for the GPT-4o/4.1/5 and o-series families, cl100k_base for everything else
    (replay, human, other providers: an approximation is all a budget needs there)."""
    if model and _O200K_MODELS.match(model.strip().lower()):
        return "o200k_base"
    return DEFAULT_ENCODING


class TokenCounter:
    """Counts tokens of one encoding. `count` is memoised by string: a preview recompiled from
    the same state, or a context block that did not change since the last step, costs a lookup.
    With a `store` that holds counts already, tiktoken's tables load at the first new text."""

    def __init__(self, encoding_name: str, store: CountStore | None = None) -> None:
        self.encoding_name = encoding_name
        self._store = store
        self._loaded: Encoding | None = None
        self._loading = threading.Lock()
        if store is None or not store.exists:
            self._load()  # now: an encoding that does not load is replaced by the caller
        self.count = lru_cache(maxsize=COUNT_CACHE_SIZE)(self._count)

    def _load(self) -> Encoding:
        with self._loading:
            if self._loaded is None:
                import tiktoken

                _point_tiktoken_at_bundled_files()
                self._loaded = tiktoken.get_encoding(self.encoding_name)
            return self._loaded

    @property
    def _encoding(self) -> Encoding:
        if self._loaded is not None:
            return self._loaded
        try:
            return self._load()
        except Exception as exc:  # it loaded in an earlier process: its files went missing
            raise _unavailable(self.encoding_name, exc) from exc

    def _count(self, text: str) -> int:
        if self._store is None:
            return len(self.encode(text))
        key = text_key(b"encode", text)
        known = self._store.get(key)
        if known is None or not plausible(text, known):
            known = len(self.encode(text))
            self._store.put(key, known)
        return known

    def encode(self, text: str) -> list[int]:
        return self._encoding.encode(text, disallowed_special=())

    def decode(self, tokens: Sequence[int]) -> str:
        return self._encoding.decode(list(tokens), errors="replace")

    def count_each(self, texts: Sequence[str]) -> list[int]:
        """Counts of many small strings (the lines of a file): not memoised here (there are too
        many), but kept in the store when there is one."""
        if self._store is None:
            encode = self._encoding.encode_ordinary
            return [len(encode(text)) for text in texts]
        return [self._count_ordinary(text) for text in texts]

    def _count_ordinary(self, text: str) -> int:
        assert self._store is not None
        key = text_key(b"ordinary", text)
        known = self._store.get(key)
        if known is None or not plausible(text, known):
            known = len(self._encoding.encode_ordinary(text))
            self._store.put(key, known)
        return known

    def __repr__(self) -> str:
        return f"TokenCounter({self.encoding_name!r})"


def _unavailable(encoding_name: str, exc: Exception) -> ForgeError:
    return ForgeError(
        f"cannot load the tiktoken encoding {encoding_name} offline ({exc}); "
        "check that litellm is installed or set TIKTOKEN_CACHE_DIR",
        title="Token counting unavailable",
    )


@cache
def counter_for_encoding(encoding_name: str) -> TokenCounter:
    """One counter per encoding; an encoding that cannot be loaded falls back to cl100k_base."""
    try:
        return TokenCounter(encoding_name, CountStore.for_encoding(encoding_name))
    except Exception as exc:
        if encoding_name != DEFAULT_ENCODING:
            return counter_for_encoding(DEFAULT_ENCODING)
        raise _unavailable(encoding_name, exc) from exc


def counter_for(model: str | None) -> TokenCounter:
    try:
        name = encoding_for_model(model)
    except Exception:
        name = DEFAULT_ENCODING
    return counter_for_encoding(name)
