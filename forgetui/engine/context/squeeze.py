"""How hard current_state is compressed: one step of the compression table at a time, each
step as little as the budget needs (older tool results go to one line oldest first, memory
items are left out oldest first, one at a time)."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from forgetui.engine.base import compress as cz
from forgetui.engine.context.memory_items import items_phrase

COLLAPSE_ALL = sys.maxsize  # every older tool result on one line (a usage tier's floor)


@dataclass(frozen=True)
class Squeeze:
    """One step of current_state's compression table."""

    files: bool = False  # file content: first/last lines
    # older tool results on one line, the oldest `collapse` of those that span lines: the
    # fitter takes the fewest that fit, so the newer ones keep their lines while there is room
    collapse: int = 0
    cut: bool = False  # errors and long texts cut to 500 characters
    list_cap: int | None = None  # lists keep the first N
    no_tree: bool = False  # the workspace tree goes before any memory item does
    dropped: int = 0  # unpinned memory items omitted, oldest first
    # the newest tool result is compressed too: until then it stays whole, since what the
    # agent just read or ran is what its next step works from
    newest: bool = False
    pinned: bool = False  # the same strategies now apply to pinned items
    starve: bool = False  # file excerpts may shrink to nothing
    omit_pinned: bool = False  # pinned items cannot fit: the step must not go out

    def labels(self, collapsed: int = 0, older: int = 0) -> tuple[str, ...]:
        """What this step did, in the table's order. `collapsed` of the `older` tool results
        current_state shows went to one line: counted where they are shown, since a result
        left out or with a single line to begin with was not collapsed."""
        labels = []
        if collapsed:
            labels.append(collapsed_phrase(collapsed, older))
        if self.cut:
            labels.append("errors and long texts cut to 500 characters")
        if self.list_cap is not None:
            labels.append(f"lists capped at {self.list_cap} items")
        if self.no_tree:
            labels.append("workspace tree dropped")
        if self.newest:
            labels.append("the newest tool result compressed too")
        if self.dropped:
            labels.append(f"{items_phrase(self.dropped)} omitted")
        if self.pinned:
            labels.append("pinned items compressed")
        if self.starve:
            labels.append("file excerpts shrunk to fit")
        if self.omit_pinned:
            labels.append("pinned items omitted")
        return tuple(labels)


def collapsed_phrase(collapsed: int, older: int) -> str:
    """`3 older tool results collapsed to one line`, or with newer ones still whole
    `2 of 5 older tool results collapsed to one line (the oldest)`."""
    plural = "" if older == 1 else "s"
    if collapsed >= older:
        return f"{collapsed} older tool result{plural} collapsed to one line"
    return f"{collapsed} of {older} older tool result{plural} collapsed to one line (the oldest)"


def spans_lines(content: Any) -> bool:
    """Whether a tool result's content would read differently on one line: a text of several
    lines or over the one-line limit, or a mapping or list of more than one part."""
    if isinstance(content, str):
        return cz.one_line(content) != content
    if isinstance(content, Mapping):
        return len(content) > 1 or any(spans_lines(value) for value in content.values())
    if isinstance(content, list | tuple):
        return len(content) > 1 or any(spans_lines(value) for value in content)
    return False
