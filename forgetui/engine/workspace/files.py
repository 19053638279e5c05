"""The workspace's files as every part of the engine sees them.

One skip rule, one walk, one glob, one binary test and one way to read a text file, so that a
search, an import scan, a regex check and a target-file excerpt agree on what the workspace
holds (and none of them reads the task folder, a VCS directory or a virtualenv).

Walks never follow a link to a directory (no loops, no file seen twice) and never raise for an
entry they cannot use: a symlink loop, a broken link, a link out of the workspace or an
unreadable directory is left out and, when the caller passes a `skipped` list, named there, so
the model is told what it did not see rather than handed a traceback.

Every read opens its path as confined_open.py does: never through a link swapped in after the
path was checked."""

from __future__ import annotations

import errno
import fnmatch
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from forgetui.engine.base.errors import ForgeError
from forgetui.engine.sandbox.errors import SandboxError
from forgetui.engine.workspace.confined_open import open_read

# Besides hidden directories (.git, .venv, the .agentforge task folder).
SKIPPED_DIRS = frozenset(("__pycache__", "node_modules", "site-packages"))
BINARY_PROBE_BYTES = 8192
MAX_TEXT_BYTES = 2_000_000  # larger files are not read whole
NOTE_ENTRIES = 3  # skipped entries named in a one-line note; the rest are counted


class FileProblem(ForgeError):
    """A workspace file that cannot be read as text: missing, a directory, too large, binary."""

    title = "cannot read file"


@dataclass(frozen=True)
class Skipped:
    """An entry a walk left out, and why."""

    rel: str  # posix, relative to the workspace
    reason: str
    link: str | None = None  # what a symlink points to, as written

    def __str__(self) -> str:
        arrow = f" -> {self.link}" if self.link is not None else ""
        return f"{self.rel}{arrow} ({self.reason})"


def skipped_note(skipped: list[Skipped]) -> str:
    """ "skipped 1 entry: loop -> loop (symlink loop)", or "" when nothing was skipped."""
    if not skipped:
        return ""
    ordered = sorted(skipped, key=lambda entry: entry.rel)
    shown = "; ".join(str(entry) for entry in ordered[:NOTE_ENTRIES])
    more = f"; and {len(skipped) - NOTE_ENTRIES} more" if len(skipped) > NOTE_ENTRIES else ""
    return f"skipped {len(skipped)} entr{'y' if len(skipped) == 1 else 'ies'}: {shown}{more}"


def skipped_dir(name: str) -> bool:
    return name.startswith(".") or name in SKIPPED_DIRS


def _relative(path: str, root: Path) -> str:
    return Path(path).relative_to(root).as_posix() or "."


def skip_reason(exc: OSError) -> str:
    """What an OSError met on a walk means for the entry, in a few words."""
    if exc.errno == errno.ELOOP:
        return "symlink loop"
    if exc.errno in (errno.ENOENT, errno.ENOTDIR):
        return "broken symlink"
    return f"unreadable: {exc.strerror or exc}"


def _link_problem(path: str, root: Path) -> tuple[str, os.stat_result | None]:
    """Why a symlink is left out ("" if it is not) and what it points to."""
    try:
        target = os.stat(path)
        real = Path(os.path.realpath(path))
        parent = Path(os.path.realpath(os.path.dirname(path)))
    except OSError as exc:  # realpath raises only if the link changes under it
        return skip_reason(exc), None
    if not real.is_relative_to(root):
        return "points outside the workspace", target
    if stat.S_ISDIR(target.st_mode):
        if parent.is_relative_to(real):
            return "symlink loop", target
        return "link to a directory; walks do not follow directory links", target
    if not stat.S_ISREG(target.st_mode):
        return "not a regular file", target
    return "", target


def link_text(path: str) -> str | None:
    """What a symlink points to, as written (None if it cannot be read)."""
    try:
        return os.readlink(path)
    except OSError:
        return None


# (path parts relative to the workspace, is a directory) -> worth entering / yielding / naming
Wanted = Callable[[tuple[str, ...], bool], bool]


def _walk(top: Path, root: Path, skipped: list[Skipped] | None, wanted: Wanted) -> Iterator[Path]:
    """Regular files under `top` (itself inside `root`), sorted, each directory's files before
    its subdirectories; links to files inside the workspace are yielded as the link's path."""

    def skip(path: str, reason: str, link: str | None = None) -> None:
        if skipped is not None:
            skipped.append(Skipped(_relative(path, root), reason, link))

    stack = [top]
    while stack:
        current = stack.pop()
        try:
            fd = open_read(root, current, directory=True)
        except OSError as exc:
            skip(str(current), f"unreadable directory: {exc.strerror or exc}")
            continue
        except SandboxError:
            skip(str(current), "swapped for a symlink while it was read")
            continue
        try:
            with os.scandir(fd) as listing:  # entries are looked at through `fd`, not by name
                entries = sorted(listing, key=lambda entry: entry.name)
        except OSError as exc:
            skip(str(current), f"unreadable directory: {exc.strerror or exc}")
            continue
        finally:
            os.close(fd)
        subdirs: list[Path] = []
        for entry in entries:
            entry_path = os.path.join(current, entry.name)
            parts = Path(entry_path).relative_to(root).parts
            try:
                is_link = entry.is_symlink()
                is_dir = not is_link and entry.is_dir(follow_symlinks=False)
                is_file = not is_link and entry.is_file(follow_symlinks=False)
            except OSError as exc:
                skip(entry_path, skip_reason(exc))
                continue
            if is_dir:
                if wanted(parts, True):
                    subdirs.append(Path(entry_path))
            elif is_file:
                if wanted(parts, False):
                    yield Path(entry_path)
            elif is_link:
                problem, target = _link_problem(entry_path, root)
                if target is not None and stat.S_ISDIR(target.st_mode):
                    relevant = wanted(parts, True)  # a hidden or cache directory is not news
                else:
                    relevant = wanted(parts, False) or (target is None and wanted(parts, True))
                if not relevant:
                    continue
                if problem:
                    skip(entry_path, problem, link_text(entry_path))
                else:
                    yield Path(entry_path)
            elif wanted(parts, False):
                skip(entry_path, "not a regular file")
        stack.extend(reversed(subdirs))


def walk_files(top: Path, root: Path, skipped: list[Skipped] | None = None) -> Iterator[Path]:
    """Files under `top`, sorted, skipping hidden and cache directories; symlink loops, broken
    links, links out of the workspace `root` and unreadable directories go to `skipped`."""
    root = root.resolve()

    def wanted(parts: tuple[str, ...], is_dir: bool) -> bool:
        return not (is_dir and skipped_dir(parts[-1]))

    return _walk(top, root, skipped, wanted)


class _Glob:
    """A pathlib-style glob, matched one path component at a time (`**`: any number of
    directories), so a walk can tell early whether a directory can hold a match."""

    def __init__(self, pattern: str) -> None:
        self.segments = tuple(part for part in PurePosixPath(pattern).parts if part != ".")
        self.named = set(self.segments)  # a hidden directory the pattern names is entered

    def _closure(self, states: set[int]) -> set[int]:
        out = set(states)
        for index in sorted(states):
            while index < len(self.segments) and self.segments[index] == "**":
                index += 1
                out.add(index)
        return out

    def _states(self, parts: tuple[str, ...]) -> set[int]:
        states = self._closure({0})
        for part in parts:
            step: set[int] = set()
            for index in states:
                if index == len(self.segments):
                    continue
                segment = self.segments[index]
                if segment == "**":
                    step.add(index)
                elif fnmatch.fnmatchcase(part, segment):
                    step.add(index + 1)
            states = self._closure(step)
            if not states:
                break
        return states

    def wanted(self, parts: tuple[str, ...], is_dir: bool) -> bool:
        if not self.segments:
            return False
        if is_dir:
            if skipped_dir(parts[-1]) and parts[-1] not in self.named:
                return False
            return any(index < len(self.segments) for index in self._states(parts))
        # A file matches when the last segment named it (`a/**` matches directories only).
        return len(self.segments) in self._states(parts) and self.segments[-1] != "**"


def workspace_glob(
    workspace: Path, pattern: str, skipped: list[Skipped] | None = None
) -> list[Path]:
    """Files matching a glob, resolved and sorted; never outside the workspace, never through a
    link to a directory, and never in a skipped directory unless the pattern names that
    directory itself (`.github/*.yml`). Entries left out that could have matched go to
    `skipped`."""
    root = workspace.resolve()
    if "\x00" in pattern or PurePosixPath(pattern).is_absolute() or Path(pattern).is_absolute():
        return []
    glob = _Glob(pattern)
    found: set[Path] = set()
    for path in _walk(root, root, skipped, glob.wanted):
        try:
            real = Path(os.path.realpath(path))
        except OSError as exc:  # a link changed since the walk looked at it
            if skipped is not None:
                skipped.append(Skipped(_relative(str(path), root), skip_reason(exc)))
            continue
        if not real.is_relative_to(root):
            continue
        parts = real.relative_to(root).parts[:-1]
        if any(skipped_dir(part) and part not in glob.named for part in parts):
            continue
        found.add(real)
    return sorted(found)


def looks_binary(data: bytes) -> bool:
    """A NUL byte near the start: how git and grep tell a binary file."""
    return b"\x00" in data[:BINARY_PROBE_BYTES]


def is_text_file(path: Path, max_bytes: int = MAX_TEXT_BYTES) -> bool:
    try:
        if path.stat().st_size > max_bytes:
            return False
        with path.open("rb") as handle:
            return not looks_binary(handle.read(BINARY_PROBE_BYTES))
    except OSError:
        return False


def _read_regular(root: Path, path: Path, rel: str, max_bytes: int) -> bytes | None:
    """Up to `max_bytes` + 1 bytes of a regular file in the workspace `root`; None if it is
    larger. Opened as every read is (`open_read`): never through a link swapped in."""
    fd = open_read(root, path)
    try:
        info = os.fstat(fd)
    except OSError:
        os.close(fd)
        raise
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        if stat.S_ISDIR(info.st_mode):
            raise FileProblem(f"{rel} is a directory (use list_dir)")
        raise FileProblem(f"{rel} is not a regular file (a pipe, socket or device)")
    with os.fdopen(fd, "rb") as handle:
        if info.st_size > max_bytes:
            return None
        data = handle.read(max_bytes + 1)
    return None if len(data) > max_bytes else data


class LinkSwapped(OSError):
    """A path swapped for a symlink between its check and its open, as an OSError for readers
    that skip what they cannot read (a check, the context's excerpts)."""


def read_bytes(root: Path, path: Path) -> bytes:
    """All of a workspace file, opened as every read is (`open_read`); OSError (LinkSwapped
    for a link swapped in) if it cannot be read."""
    try:
        fd = open_read(root, path)
    except SandboxError as exc:
        raise LinkSwapped(errno.EPERM, "swapped for a symlink while it was read") from exc
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(errno.EINVAL, "not a regular file", str(path))
    with os.fdopen(fd, "rb") as handle:
        return handle.read()


def scanned_text(
    root: Path, path: Path, rel: str, max_bytes: int, skipped: list[Skipped] | None = None
) -> str | None:
    """A walked file's text for a scan, or None: a binary or too large file silently (a scan
    is not about those), an unreadable one named in `skipped`."""
    try:
        data = _read_regular(root, path, rel, max_bytes)
    except (OSError, FileProblem, SandboxError) as exc:
        if skipped is not None:
            if isinstance(exc, OSError):
                reason = skip_reason(exc)
            elif isinstance(exc, SandboxError):
                reason = "swapped for a symlink while it was read"
            else:
                reason = "not a regular file"
            skipped.append(Skipped(rel, reason))
        return None
    if data is None or looks_binary(data):
        return None
    return data.decode("utf-8", errors="replace")


def read_text(root: Path, path: Path, rel: str, max_bytes: int = MAX_TEXT_BYTES) -> str:
    """A workspace file's text (undecodable bytes replaced); FileProblem says why not,
    SandboxError if the path changed into a link out of the workspace since it was checked."""
    try:
        data = _read_regular(root, path, rel, max_bytes)
    except FileNotFoundError as exc:
        raise FileProblem(f"no such file: {rel}") from exc
    except IsADirectoryError as exc:
        raise FileProblem(f"{rel} is a directory (use list_dir)") from exc
    if data is None:
        raise FileProblem(f"{rel} is too large to read (over {max_bytes:,} bytes)")
    if looks_binary(data):
        raise FileProblem(f"{rel} is a binary file")
    return data.decode("utf-8", errors="replace")


def line_count(text: str) -> int:
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)
