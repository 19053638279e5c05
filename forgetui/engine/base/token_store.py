"""Token counts kept across processes, so a workbench opening a task it showed before counts its
context without loading tiktoken's tables (longer to load than the whole app).

A count is a pure function of the encoding, the tokenizer's version and the text: the store
keys it by all three (the file by the first two, the entry by a 128-bit BLAKE2b digest of the
text), so a hit is the count tiktoken would give, never an estimate. Each process reads the
file once and adds what it counted when it exits; two processes writing at once lose at most
some entries, counted again next time. FORGETUI_TOKEN_CACHE=0 turns the store off (the tests
do: a count there is tiktoken's, and nothing is written to the user's folders).

The file is only a cache, and anyone who can write it could make a large context look small:
a stored count is taken only when it is plausible for its text (`plausible`), else recounted.
A file that is not a regular one (a named pipe would hang the read) or larger than the store
ever writes is ignored."""

from __future__ import annotations

import atexit
import hashlib
import os
import re
import struct
import tempfile
import threading
from importlib import metadata
from pathlib import Path

from forgetui.engine.base.small_file import read_small
from forgetui.paths import cache_dir

STORE_VARIABLE = "FORGETUI_TOKEN_CACHE"
ENTRY = struct.Struct("<16sI")  # the text's digest, its count
MAX_ENTRIES = 100_000  # the newest kept: 2 MB, read in milliseconds
MAX_FILE_BYTES = MAX_ENTRIES * ENTRY.size
# Bounds every real count of cl100k_base and o200k_base keeps (checked on this repository's
# files, each of their lines, and litellm's): a token is at least one byte, and outside runs of
# one character (a token may cover 128 bytes of one) text averages under 10 bytes a token.
_RUN = re.compile(r"(.)\1{3,}", re.DOTALL)
_MAX_AVERAGE_BYTES = 10


def plausible(text: str, count: int) -> bool:
    """Whether `count` could be tiktoken's count of `text`: a stored count that is not was
    not written by a count (a broken or tampered file), and the text is counted again."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if count < 0 or count > size:
        return False
    rest = len(_RUN.sub("", text).encode("utf-8", "surrogatepass"))
    return count >= rest // _MAX_AVERAGE_BYTES


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
        data = read_small(path, MAX_FILE_BYTES)
    except OSError:
        return {}
    if len(data) % ENTRY.size:
        return {}
    return dict(ENTRY.iter_unpack(data))
