"""The workspace's files as every part of the engine sees them.

One skip rule, one walk, one glob, one binary test and one way to read a text file, so that a
search, an import scan, a regex check and a target-file excerpt agree on what the workspace
holds (and none of them reads the task folder, a VCS directory or a virtualenv)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from forgetui.engine.errors import ForgeError

# Besides hidden directories (.git, .venv, the .agentforge task folder).
SKIPPED_DIRS = frozenset(("__pycache__", "node_modules", "site-packages"))
BINARY_PROBE_BYTES = 8192
MAX_TEXT_BYTES = 2_000_000  # larger files are not read whole


class FileProblem(ForgeError):
    """A workspace file that cannot be read as text: missing, a directory, too large, binary."""

    title = "cannot read file"


def skipped_dir(name: str) -> bool:
    return name.startswith(".") or name in SKIPPED_DIRS


def walk_files(top: Path, root: Path) -> Iterator[Path]:
    """Files under `top`, sorted, skipping hidden and cache directories and symlinks that lead
    out of the workspace `root`."""
    for current, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if not skipped_dir(d))
        for name in sorted(files):
            path = Path(current, name)
            if path.is_symlink() and not path.resolve().is_relative_to(root):
                continue
            yield path


def workspace_glob(workspace: Path, pattern: str) -> list[Path]:
    """Files matching a glob, resolved and sorted; never outside the workspace, and never in a
    skipped directory unless the pattern names that directory itself (`.github/*.yml`)."""
    root = workspace.resolve()
    if "\x00" in pattern or Path(pattern).is_absolute():
        return []
    named = set(PurePosixPath(pattern).parts)
    found: set[Path] = set()
    try:
        for path in root.glob(pattern):
            real = path.resolve()
            if not real.is_relative_to(root) or not real.is_file():
                continue
            parts = real.relative_to(root).parts[:-1]
            if any(skipped_dir(part) and part not in named for part in parts):
                continue
            found.add(real)
    except (ValueError, NotImplementedError, OSError):
        return []
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


def read_text(path: Path, rel: str, max_bytes: int = MAX_TEXT_BYTES) -> str:
    """A workspace file's text (undecodable bytes replaced); FileProblem says why not."""
    if not path.exists():
        raise FileProblem(f"no such file: {rel}")
    if path.is_dir():
        raise FileProblem(f"{rel} is a directory (use list_dir)")
    size = path.stat().st_size
    if size > max_bytes:
        raise FileProblem(f"{rel} is too large to read ({size} bytes)")
    data = path.read_bytes()
    if looks_binary(data):
        raise FileProblem(f"{rel} is a binary file")
    return data.decode("utf-8", errors="replace")


def line_count(text: str) -> int:
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)
