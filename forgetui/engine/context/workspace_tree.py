"""The workspace's shape, two levels deep, for current_state: one line per top-level entry, a
directory with what it holds (`src/ (app/, main.py, ... 12 more)`), so the agent of a checkout
it has never seen knows where things are without spending steps on listing them.

Every step carries it, not only the first: a context is rebuilt from the task's state each
step and the agent keeps nothing else between steps, the tree follows the files the agent adds,
and a tree in step 1 only would make step 1 cost more than the steps after it. It is held to a
share of current_state's budget, then capped like any list when current_state is squeezed.

Reading it is bounded and stays in the workspace: a symbolic link is listed (`name@`) and never
followed, at most MAX_READ entries of a directory, MAX_TOTAL in all and MAX_DIRS directories
are read, and version control, virtual environments, dependency folders, caches, build output
and the task folders are left out."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from forgetui.engine.base import compress as cz
from forgetui.engine.base.tokens import TokenCounter

SKIPPED = frozenset(
    {
        ".git", ".hg", ".svn", ".venv", "venv", "node_modules", "__pycache__", ".mypy_cache",
        ".pytest_cache", ".ruff_cache", ".hypothesis", ".tox", ".nox", "dist", "build",
        ".agentforge",
    }
)  # fmt: skip
SKIPPED_SUFFIXES = (".egg-info",)
VENV_MARKER = "pyvenv.cfg"  # any directory holding one is a virtual environment
MAX_READ = 1000  # entries read from one directory
MAX_TOTAL = 2000  # entries read in all: a workspace of 100,000 files costs what one of 2,000 does
MAX_DIRS = 100  # top-level directories looked into
CHILDREN_SHOWN = 10  # entries named on a directory's line
NAME_CHARS = 80
TREE_SHARE = 9  # the tree takes at most this fraction of current_state's budget
LINE_OVERHEAD = 3  # tokens a list item costs beyond its text ("- ", the newline)


@dataclass(frozen=True)
class Entry:
    name: str
    is_dir: bool
    is_link: bool

    @property
    def shown(self) -> str:
        name = cz.one_line(self.name, NAME_CHARS)  # a newline in a name stays on its line
        return name + ("@" if self.is_link else "/" if self.is_dir else "")


def _skipped(entry: Entry) -> bool:
    return entry.is_dir and (entry.name in SKIPPED or entry.name.endswith(SKIPPED_SUFFIXES))


def _read(directory: Path, limit: int) -> tuple[list[Entry], bool]:
    """The entries of `directory` (dirs first, then files; dot-names last in each), at most
    `limit` of them, and whether it held more. No link is followed, no entry is stat'ed."""
    found: list[Entry] = []
    more = False
    try:
        with os.scandir(directory) as entries:
            for entry in entries:
                if len(found) >= limit:
                    more = True
                    break
                try:
                    link = entry.is_symlink()
                    is_dir = not link and entry.is_dir(follow_symlinks=False)
                except OSError:
                    link = is_dir = False
                found.append(Entry(entry.name, is_dir, link))
    except OSError:
        return [], False
    found.sort(key=lambda e: (not e.is_dir, e.name.startswith("."), e.name.lower(), e.name))
    return found, more


def _is_venv(directory: Path) -> bool:
    return os.path.isfile(directory / VENV_MARKER)


def tree_lines(workspace: Path) -> list[str]:
    """One line per top-level entry the tree shows, in the order it shows them."""
    top, more = _read(workspace, MAX_READ)
    left = MAX_TOTAL - len(top)
    lines: list[str] = []
    looked = 0
    for entry in top:
        if _skipped(entry):
            continue
        if not entry.is_dir:
            lines.append(entry.shown)
            continue
        path = workspace / entry.name
        if looked >= MAX_DIRS or left <= 0:
            lines.append(f"{entry.shown} (not read)")
            continue
        looked += 1
        if _is_venv(path):
            continue
        children, cut = _read(path, min(MAX_READ, left))
        left -= len(children)
        shown = [child.shown for child in children if not _skipped(child)]
        if not children:
            lines.append(f"{entry.shown} (empty)")
            continue
        listed = cz.cap_list(shown, CHILDREN_SHOWN)
        if cut:
            listed.append("... more not read")
        lines.append(f"{entry.shown} ({', '.join(listed) if listed else 'nothing listed'})")
    if more:
        lines.append(f"... more entries not read (only the first {MAX_READ} were)")
    return lines


@dataclass(frozen=True)
class WorkspaceTree:
    """The tree's lines and how many of them fit its share of current_state's budget."""

    lines: tuple[str, ...]
    fit: int

    def shown(self, cap: int | None = None) -> list[str]:
        """The lines within the tree's budget, and within `cap` when lists are capped. Its
        own budget is its normal form, not a squeeze: its "... and N more" says it, and no
        compression is recorded for it."""
        keep = self.fit if cap is None else min(self.fit, cap)
        return cz.cap_list(self.lines, keep)


def workspace_tree(workspace: Path, budget: int, counter: TokenCounter) -> WorkspaceTree | None:
    """The tree of `workspace` held to `budget` tokens (the first lines that fit, then how
    many more); None for a workspace with nothing to show."""
    lines = tree_lines(workspace)
    if not lines:
        return None
    return WorkspaceTree(tuple(lines), _fit(lines, budget, counter))


def _fit(lines: Sequence[str], budget: int, counter: TokenCounter) -> int:
    """How many first lines fit `budget` with the "... and N more" line after them."""
    costs = [counter.count(line) + LINE_OVERHEAD for line in lines]
    if sum(costs) <= budget:
        return len(lines)
    room = budget - LINE_OVERHEAD - counter.count(f"... and {len(lines)} more")
    used = 0
    for index, cost in enumerate(costs):
        if used + cost > room:
            return index
        used += cost
    return len(lines)


def tree_budget(current_state_budget: int) -> int:
    return current_state_budget // TREE_SHARE
