"""Token counts kept across processes, so a workbench opening a task it showed before counts its
context without loading tiktoken's tables (longer to load than the whole app).

A count is a pure function of the encoding, the tokenizer's version and the text: the store
keys it by all three (the file by the first two, the entry by a 128-bit BLAKE2b digest of the
text), so a hit is the count tiktoken would give, never an estimate. Each process reads the
file once and adds what it counted when it exits; two processes writing at once lose at most
some entries, counted again next time. FORGETUI_TOKEN_CACHE=0 turns the store off (the tests
do: a count there is tiktoken's, and nothing is written to the user's folders)."""

from __future__ import annotations

import atexit
import hashlib
import os
import struct
import tempfile
import threading
from importlib import metadata
from pathlib import Path

from forgetui.paths import cache_dir

STORE_VARIABLE = "FORGETUI_TOKEN_CACHE"
ENTRY = struct.Struct("<16sI")  # the text's digest, its count
MAX_ENTRIES = 100_000  # the newest kept: 2 MB, read in milliseconds


def text_key(kind: bytes, text: str) -> bytes:
    """`kind` keeps counts of different methods apart, should they ever differ."""
    data = text.encode("utf-8", "surrogatepass")
    return hashlib.blake2b(data, digest_size=16, person=kind).digest()


class CountStore:
    """The counts of one encoding, loaded on first use, new ones written at exit."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._known: dict[bytes, int] | None = None
        self._new: dict[bytes, int] = {}
        self._lock = threading.Lock()

    @classmethod
    def for_encoding(cls, encoding_name: str) -> CountStore | None:
        """The user's store for this encoding and tokenizer version; None when turned off or
        the version is unknown (then nothing is kept)."""
        if os.environ.get(STORE_VARIABLE, "1").strip().lower() in ("0", "off", "no", "false"):
            return None
        try:
            version = metadata.version("tiktoken")
        except metadata.PackageNotFoundError:
            return None
        return cls(cache_dir() / f"tokens-{encoding_name}-tiktoken{version}.bin")

    @property
    def exists(self) -> bool:
        """Counts of this encoding were stored: it loaded here before."""
        return self.path.is_file()

    def get(self, key: bytes) -> int | None:
        with self._lock:
            if self._known is None:
                self._known = _read(self.path)
            found = self._new.get(key)
            return found if found is not None else self._known.get(key)

    def put(self, key: bytes, count: int) -> None:
        with self._lock:
            if not self._new:
                atexit.register(self.save)
            self._new[key] = count

    def save(self) -> None:
        """Add this process's new counts to the file (the newest MAX_ENTRIES kept)."""
        with self._lock:
            new, self._new = self._new, {}
        if not new:
            return
        merged = _read(self.path)
        for key in new:
            merged.pop(key, None)
        merged.update(new)
        entries = list(merged.items())[-MAX_ENTRIES:]
        data = b"".join(ENTRY.pack(key, count) for key, count in entries)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".tokens-")
            try:
                with os.fdopen(fd, "wb") as out:
                    out.write(data)
                os.replace(tmp, self.path)
            finally:
                if os.path.exists(tmp):
                    os.unlink(tmp)
        except OSError:
            return  # only a cache: the counts are made again next time


def _read(path: Path) -> dict[bytes, int]:
    """The stored counts; none if the file is missing or not whole."""
    try:
        data = path.read_bytes()
    except OSError:
        return {}
    if len(data) % ENTRY.size:
        return {}
    return dict(ENTRY.iter_unpack(data))
