"""Writing a workspace file without following a link or losing a race.

Checking a path and then writing to it by name leaves a gap: a directory swapped for a symlink
in between sends the write outside the workspace, and a hard link planted in the workspace makes
an in-place write change a file elsewhere. So the path is walked from a descriptor of the
workspace root, one component at a time with O_NOFOLLOW (a symlink anywhere is refused, never
followed), the old content is read through that same directory descriptor, and the new content
goes to a temporary file that is renamed over the old one (a rename replaces the name; it never
writes through a link)."""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from forgetui.engine.sandbox import TASK_DIR_NAME, SandboxError, refuse_environment_write
from forgetui.engine.workspace.confined_open import FILE_FLAGS, PathBlocked, open_dirs
from forgetui.engine.workspace.files import MAX_TEXT_BYTES, FileProblem, looks_binary

_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
NEW_FILE_MODE = 0o666  # before the umask, as open() would


def _relative_parts(workspace: Path, path: str) -> tuple[str, ...]:
    """The components of `path` under the workspace, or SandboxError saying why it is not one."""
    if "\x00" in path:
        raise SandboxError(f"path {path!r} contains a NUL byte")
    pure = PurePosixPath(path)
    if pure.is_absolute():
        for base in (workspace.resolve(), workspace.absolute()):
            if pure.is_relative_to(base.as_posix()):
                pure = pure.relative_to(base.as_posix())
                break
        else:
            raise SandboxError(f"path {path!r} is an absolute path outside the workspace")
    parts = tuple(part for part in pure.parts if part != ".")
    if ".." in parts:
        if os.path.normpath(pure).split(os.sep)[0] == "..":
            raise SandboxError(f"path {path!r} escapes the workspace (..)")
        raise SandboxError(f"path {path!r} contains '..'; name the file without it")
    if parts[:1] == (TASK_DIR_NAME,):
        raise SandboxError(
            f"path {path!r} is inside {TASK_DIR_NAME}/, the task's own state; it cannot be changed"
        )
    if not parts:
        raise FileProblem(f"{path} is a directory (the workspace itself)")
    refuse_environment_write(workspace.resolve(), parts, path)
    return parts


def _link_refusal(workspace: Path, rel: str, link_parts: tuple[str, ...], link: str | None) -> str:
    """Why writing `rel` is refused when `link_parts` (a prefix of it) is a symlink to `link`;
    points at the real path when the link stays inside the workspace."""
    link_rel = "/".join(link_parts)
    link = "?" if link is None else link
    if link_rel == rel:
        what = f"is a symlink (-> {link})"
    else:
        what = f"goes through a symlink ({link_rel} -> {link})"
    message = f"path {rel!r} {what}: writes do not follow links"
    root = workspace.resolve()
    try:
        real = Path(os.path.realpath(root.joinpath(*link_parts)))
    except OSError:  # the link changed meanwhile; the message goes without the hint
        return message
    inside = real.relative_to(root).parts if real.is_relative_to(root) else ()
    if inside and inside[0] != TASK_DIR_NAME:
        rest = PurePosixPath(rel).parts[len(link_parts) :]
        message += f"; write {PurePosixPath(*inside, *rest)} instead"
    return message


@dataclass
class WriteTarget:
    """A file to replace: its directory held open, its name in it, what is there now."""

    workspace: Path
    rel: str  # normalised, posix, relative to the workspace
    dir_fd: int
    name: str
    existing: os.stat_result | None  # lstat of the name when opened; None: no such file

    def read_text(self, max_bytes: int = MAX_TEXT_BYTES) -> str | None:
        """The current text (None: no file yet), read through the held directory without
        following links, so what is snapshotted is what gets replaced; a file over
        `max_bytes` is a FileProblem."""
        if self.existing is None:
            return None
        try:
            fd = os.open(self.name, FILE_FLAGS, dir_fd=self.dir_fd)
        except FileNotFoundError:
            return None
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise SandboxError(self._symlink_message()) from exc
            raise
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(fd)
            self._check_replaceable(info)
            if info.st_size > max_bytes:
                raise FileProblem(f"{self.rel} is too large to read ({info.st_size} bytes)")
            data = handle.read(max_bytes + 1)
        if len(data) > max_bytes:
            raise FileProblem(f"{self.rel} is too large to read (over {max_bytes} bytes)")
        if looks_binary(data):
            raise FileProblem(f"{self.rel} is a binary file")
        self.existing = info
        return data.decode("utf-8", errors="replace")

    def _symlink_message(self) -> str:
        try:
            link: str | None = os.readlink(self.name, dir_fd=self.dir_fd)
        except OSError:
            link = None
        return _link_refusal(self.workspace, self.rel, tuple(self.rel.split("/")), link)

    def _check_replaceable(self, info: os.stat_result) -> None:
        if stat.S_ISLNK(info.st_mode):
            raise SandboxError(self._symlink_message())
        if stat.S_ISDIR(info.st_mode):
            raise FileProblem(f"{self.rel} is a directory")
        if not stat.S_ISREG(info.st_mode):
            raise SandboxError(
                f"path {self.rel!r} is not a regular file; forgetui writes only regular files"
            )
        if info.st_nlink > 1:
            raise SandboxError(
                f"path {self.rel!r} has {info.st_nlink} hard links; "
                "forgetui will not write a file shared with another path"
            )

    def replace(self, text: str) -> None:
        """Put `text` in place: a new file in the same directory, synced, then renamed over
        the name (keeping the old file's permission bits)."""
        if self.existing is not None:
            self._check_replaceable(self.existing)
        try:
            encoded = text.encode("utf-8")
        except UnicodeEncodeError as exc:  # a lone surrogate, from a JSON "\ud800" escape
            raise FileProblem(
                f"the new content of {self.rel} is not valid text (an unpaired surrogate at "
                f"character {exc.start}); nothing was written"
            ) from exc
        self.replace_bytes(encoded)

    def replace_bytes(self, encoded: bytes, mode: int | None = None) -> None:
        """Put `encoded` in place (any bytes: a rewind's put-back of a hand edit need not be
        text), with the permission bits `mode`, else the old file's; unchecked: `replace`
        checks what it replaces."""
        temp = f".forgetui-{secrets.token_hex(8)}.tmp"
        exact = mode is not None or self.existing is not None  # else a new file: the umask's
        if mode is None:
            mode = stat.S_IMODE(self.existing.st_mode) if self.existing else NEW_FILE_MODE
        fd = os.open(temp, _TEMP_FLAGS, mode, dir_fd=self.dir_fd)
        owner = (self.existing.st_uid, self.existing.st_gid) if self.existing else None
        try:
            try:
                if owner is not None and owner != (os.getuid(), os.getgid()):
                    with contextlib.suppress(OSError):
                        os.fchown(fd, *owner)
                if exact:
                    os.fchmod(fd, mode)
                data = memoryview(encoded)
                while data:
                    data = data[os.write(fd, data) :]
                os.fsync(fd)
            finally:
                os.close(fd)
            os.rename(temp, self.name, src_dir_fd=self.dir_fd, dst_dir_fd=self.dir_fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp, dir_fd=self.dir_fd)
            raise
        with contextlib.suppress(OSError):  # the rename itself survives a crash
            os.fsync(self.dir_fd)


@contextlib.contextmanager
def open_write_target(workspace: Path, path: str, *, create_dirs: bool) -> Iterator[WriteTarget]:
    """The file `path` names in the workspace, its directory open; missing directories are
    made with `create_dirs`. Refuses (SandboxError) a path that leaves the workspace, enters
    the task folder or goes through a symlink; FileProblem for a missing file or directory."""
    parts = _relative_parts(workspace, path)
    rel = "/".join(parts)
    root_fd = os.open(workspace.resolve(), os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        dir_fd = open_dirs(root_fd, parts[:-1], create=create_dirs)
    except PathBlocked as exc:
        where = "/".join(exc.where)
        if exc.kind == "missing":
            raise FileProblem(f"no such file: {rel}") from None
        if exc.kind == "symlink":
            raise SandboxError(_link_refusal(workspace, rel, exc.where, exc.link)) from None
        if exc.kind == "swapped":
            raise SandboxError(
                f"path {rel!r}: {where} was swapped while it was opened "
                "(a symlink for a moment?); writes do not follow links"
            ) from None
        raise FileProblem(f"{where} is a file, not a directory (in {rel})") from None
    finally:
        os.close(root_fd)
    try:
        try:
            existing: os.stat_result | None = os.stat(
                parts[-1], dir_fd=dir_fd, follow_symlinks=False
            )
        except FileNotFoundError:
            existing = None
        target = WriteTarget(workspace, rel, dir_fd, parts[-1], existing)
        if existing is not None:
            target._check_replaceable(existing)
        yield target
    finally:
        os.close(dir_fd)
