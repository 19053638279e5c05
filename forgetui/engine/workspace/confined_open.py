"""Opening a path inside the workspace without following a link swapped in after its check.

Checking a path and then opening it by name leaves a gap: a directory swapped for a symlink in
between sends the open outside the workspace. So every read (files.py), like every write
(safe_write.py), opens its path from a descriptor of the workspace root, one component at a time
with O_NOFOLLOW (`open_dirs`): a link met there was swapped in after the check, and is refused."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Sequence
from pathlib import Path

from forgetui.engine.sandbox.errors import SandboxError

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# O_NONBLOCK: a named pipe put where a file was cannot hang the engine
FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


class PathBlocked(Exception):
    """A directory on a path that cannot be entered without following a link: `kind` is
    "missing", "symlink" (`link`: what it points to), "swapped" (a directory again by the time
    it was looked at: a symlink for a moment) or "file" (not a directory)."""

    def __init__(self, where: tuple[str, ...], kind: str, link: str | None = None) -> None:
        super().__init__(f"{'/'.join(where)}: {kind}")
        self.where = where
        self.kind = kind
        self.link = link


def _blocked(where: tuple[str, ...], parent_fd: int) -> PathBlocked:
    """Why `where[-1]` in `parent_fd` did not open as a directory without following a link
    (Linux says ENOTDIR, not ELOOP, for a symlink opened with O_DIRECTORY | O_NOFOLLOW)."""
    try:
        info = os.stat(where[-1], dir_fd=parent_fd, follow_symlinks=False)
    except FileNotFoundError:
        return PathBlocked(where, "missing")
    if stat.S_ISLNK(info.st_mode):
        try:
            link: str | None = os.readlink(where[-1], dir_fd=parent_fd)
        except OSError:
            link = None
        return PathBlocked(where, "symlink", link)
    return PathBlocked(where, "swapped" if stat.S_ISDIR(info.st_mode) else "file")


def _open_dir(name: str, parent_fd: int, *, create: bool) -> int:
    try:
        return os.open(name, DIR_FLAGS, dir_fd=parent_fd)
    except FileNotFoundError:
        if not create:
            raise
    with contextlib.suppress(FileExistsError):  # made meanwhile: opened (and checked) below
        os.mkdir(name, 0o777, dir_fd=parent_fd)
    return os.open(name, DIR_FLAGS, dir_fd=parent_fd)


def open_dirs(start_fd: int, names: Sequence[str], *, create: bool = False) -> int:
    """A new descriptor of the directory `names` lead to from `start_fd`, each entered with
    O_NOFOLLOW (made first with `create`): a symlink anywhere on the way is PathBlocked, never
    followed. The one walk reads and writes share."""
    fd = os.dup(start_fd)
    try:
        for depth, name in enumerate(names, 1):
            try:
                next_fd = _open_dir(name, fd, create=create)
            except FileNotFoundError:
                raise PathBlocked(tuple(names[:depth]), "missing") from None
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                    raise
                raise _blocked(tuple(names[:depth]), fd) from exc
            os.close(fd)
            fd = next_fd
    except BaseException:
        os.close(fd)
        raise
    return fd


def resolved(root: Path, path: Path) -> Path:
    """The real path of `path`, which must be inside `root` (resolved): the check every read
    makes just before it opens (links inside the workspace are followed here, by name)."""
    try:
        real = Path(os.path.realpath(path, strict=True))
    except (FileNotFoundError, NotADirectoryError):
        raise  # what opening it would say
    except OSError as exc:  # a symlink loop
        raise SandboxError(f"path {_shown(path, root)!r} cannot be resolved: {exc}") from exc
    if not real.is_relative_to(root):
        raise SandboxError(f"path {_shown(path, root)!r} leads outside the workspace")
    return real


def _shown(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)


def open_read(root: Path, path: Path, *, directory: bool = False) -> int:
    """A descriptor to read `path` (a file, or with `directory` a directory) inside the
    workspace `root` (resolved): resolved, then opened from the root's descriptor one component
    at a time without following a link, so a directory swapped for a symlink after the check
    is refused (SandboxError), never followed out of the workspace. FileNotFoundError and
    NotADirectoryError as open() raises them."""
    real = resolved(root, path)
    parts = real.relative_to(root).parts
    root_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        if not parts:
            if directory:
                return os.dup(root_fd)
            raise IsADirectoryError(errno.EISDIR, "the workspace itself", str(root))
        try:
            if directory:
                return open_dirs(root_fd, parts)
            parent = open_dirs(root_fd, parts[:-1])
        except PathBlocked as exc:
            raise _read_blocked(exc, real, root) from None
        try:
            return os.open(parts[-1], FILE_FLAGS, dir_fd=parent)
        except OSError as exc:
            if exc.errno != errno.ELOOP:
                raise
            raise _read_blocked(_blocked(parts, parent), real, root) from exc
        finally:
            os.close(parent)
    finally:
        os.close(root_fd)


def _read_blocked(exc: PathBlocked, real: Path, root: Path) -> OSError | SandboxError:
    where = "/".join(exc.where)
    if exc.kind == "missing":
        return FileNotFoundError(errno.ENOENT, "no such file", str(real))
    if exc.kind == "file":
        return NotADirectoryError(errno.ENOTDIR, f"{where} is not a directory", str(real))
    what = f"is now a symlink (-> {exc.link})" if exc.kind == "symlink" else "was swapped"
    return SandboxError(
        f"path {_shown(real, root)!r} changed while it was opened: {where} {what}; reads do "
        "not follow a link swapped in after the path was checked"
    )
