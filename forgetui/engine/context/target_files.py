"""The task's target files in current_state: globs expanded, each file a status or an elastic
excerpt. Reads are cached by path, mtime and size, and a file's per-line token costs by its
text, so a preview rebuilt every keystroke reads and measures a file once."""

from __future__ import annotations

import errno
import re
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path

from forgetui.engine.base import compress as cz
from forgetui.engine.base.tokens import counter_for_encoding
from forgetui.engine.context.render import clean
from forgetui.engine.context.tree import El, Elastic
from forgetui.engine.workspace.files import (
    Skipped,
    looks_binary,
    read_bytes,
    skipped_note,
    workspace_glob,
)

MAX_TARGET_FILES = 8
MAX_FILE_BYTES = 4_000_000


@lru_cache(maxsize=64)
def measured(text: str, numbered: bool, encoding: str, prefix: str) -> cz.LineCosts:
    """The per-line token costs of an elastic text as it is rendered (numbered or cleaned)."""
    lines = (numbered_text(text) if numbered else clean(text)).split("\n")
    return cz.measure_lines(lines, counter_for_encoding(encoding), prefix)


@lru_cache(maxsize=64)
def numbered_text(text: str) -> str:
    """The file as an excerpt shows it: read_file's numbered lines, a blank line inside bare
    (the numbers around it say where it is, and `  12|` costs four tokens where a bare line
    costs none)."""
    lines = cz.number_lines(text).split("\n")
    inner = range(1, len(lines) - 1)
    bare = [i in inner and _BLANK.fullmatch(line) is not None for i, line in enumerate(lines)]
    return "\n".join("" if blank else line for blank, line in zip(bare, lines, strict=True))


_BLANK = re.compile(r" *\d+\|")


@lru_cache(maxsize=64)
def _read_text(root: Path, path: Path, mtime_ns: int, size: int) -> tuple[str, int] | None:
    """A target file's text and line count (None: binary), cached until its mtime or size
    changes; read as every workspace read is, never through a link swapped in."""
    data = read_bytes(root, path)
    if looks_binary(data):
        return None
    text = data.decode("utf-8", errors="replace")
    return text, len(cz.split_lines(text))


def target_paths(
    workspace: Path, patterns: Sequence[str], skipped: list[Skipped] | None = None
) -> tuple[list[str], int]:
    """Target files named in task.yaml, globs expanded; (paths shown, how many more). What a
    glob left out (a symlink loop, an unreadable directory) goes to `skipped`."""
    root = workspace.resolve()
    paths: list[str] = []
    for pattern in patterns:
        if any(char in pattern for char in "*?["):
            matches = workspace_glob(workspace, pattern, skipped)
            paths += [match.relative_to(root).as_posix() for match in matches]
        else:
            paths.append(pattern)
    unique = list(dict.fromkeys(paths))
    return unique[:MAX_TARGET_FILES], max(0, len(unique) - MAX_TARGET_FILES)


Focus = Callable[[str, str], tuple[int, ...]]  # (path, text) -> lines to keep around
# path -> (memory ref, the text that item shows, numbered): files working memory shows whole
Whole = Mapping[str, tuple[str, str, bool]]
SHOWN_IN_MEMORY = "shown whole in memory {ref}"


def target_files(
    workspace: Path,
    patterns: Sequence[str],
    add_elastic: Callable[[Elastic], int],
    focus: Focus = lambda rel, text: (),
    whole: Whole | None = None,
    referenced: dict[int, tuple[str, El]] | None = None,
) -> El | None:
    """The target_files element; each readable file's text is registered with `add_elastic`,
    which returns the slot its element carries, with the lines `focus` names for it. A file
    that a memory item of `whole` shows as it is now gets, in `referenced` (slot -> (the
    item's ref, an element naming it)), the line that stands in for its excerpt while that
    item is shown."""
    if not patterns:
        return None
    skipped: list[Skipped] = []
    shown, more = target_paths(workspace, patterns, skipped)
    root = workspace.resolve()
    items: list[El] = []
    for rel in shown:
        items.append(_target_file(root, rel, add_elastic, focus, whole or {}, referenced))
    if more:
        items.append(El("file", text=f"... and {more} more"))
    if skipped:
        items.append(El("file", text=skipped_note(skipped)))
    return El("target_files", seq=True, items=tuple(items))


def _target_file(
    root: Path,
    rel: str,
    add_elastic: Callable[[Elastic], int],
    focus: Focus,
    whole: Whole,
    referenced: dict[int, tuple[str, El]] | None,
) -> El:
    def status(text: str) -> El:
        return El("file", attrs=(("path", rel), ("status", text)))

    try:
        path = (root / rel).resolve()
    except RuntimeError:  # Python 3.11 raises this for a symlink loop
        return status("symlink loop")
    if not path.is_relative_to(root):
        return status("outside the workspace")
    try:
        info = path.stat()
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return status("symlink loop")
        return status("missing" if exc.errno in (errno.ENOENT, errno.ENOTDIR) else "unreadable")
    if not path.is_file():
        return status("not a file")
    if info.st_size > MAX_FILE_BYTES:
        return status(f"too large to excerpt ({info.st_size} bytes)")
    try:
        read = _read_text(root, path, info.st_mtime_ns, info.st_size)
    except OSError as exc:
        return status(f"unreadable ({exc.strerror or exc})")
    if read is None:
        return status(f"binary ({info.st_size} bytes)")
    text, lines = read
    if not lines:
        return El("file", attrs=(("path", rel), ("lines", 0)))
    attrs = (("path", rel), ("lines", lines))

    def make(excerpt: str, slot: int) -> El:
        return El("file", text=excerpt, attrs=attrs, text_key="excerpt", slot=slot)

    slot = add_elastic(Elastic(make, text, numbered=True, focus=focus(rel, text)))
    shown = whole.get(rel)
    if shown is not None and referenced is not None:
        ref, shown_text, numbered = shown
        if clean(shown_text) == (cz.number_lines(text) if numbered else clean(text)):
            line = SHOWN_IN_MEMORY.format(ref=ref)
            referenced[slot] = (ref, El("file", attrs=(*attrs, ("excerpt", line))))
    return make("", slot)


@lru_cache(maxsize=64)
def lines_matching(text: str, pattern: str) -> tuple[int, ...]:
    """1-based lines where `pattern` (a multi-line regex) matches; () if it does not compile."""
    try:
        compiled = re.compile(pattern, re.MULTILINE)
    except re.error:
        return ()
    return tuple(sorted({text.count("\n", 0, m.start()) + 1 for m in compiled.finditer(text)}))
