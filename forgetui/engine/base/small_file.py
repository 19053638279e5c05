"""Reading a cache file that anything may have put in its place: a named pipe (whose open
would wait for a writer), a device, or a file far larger than forgetui ever writes there."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path


def read_small(path: Path, max_bytes: int) -> bytes:
    """The bytes of the regular file at `path`; OSError (FileNotFoundError when missing) when
    it is not one or holds more than `max_bytes`. Opened without blocking, never read past
    the cap."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        if info.st_size > max_bytes:
            raise OSError(errno.EFBIG, f"larger than {max_bytes} bytes", str(path))
        chunks: list[bytes] = []
        left = max_bytes + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        if len(data) > max_bytes:  # it grew after the check
            raise OSError(errno.EFBIG, f"larger than {max_bytes} bytes", str(path))
        return data
    finally:
        os.close(fd)


__all__ = ["read_small"]
