"""The element tree every section is built as before it is rendered: one shape for YAML and
XML, so a compression step changes the tree and both formats follow."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from forgetui.engine.base import compress as cz

MAX_VALUE_DEPTH = 3

Scalar = str | int | float | bool | None


@dataclass(frozen=True)
class El:
    """One node of a section: a YAML key or an XML element.

    A leaf has only `text`. Otherwise `attrs` (XML attributes; leading keys in YAML), `text`
    (element text; the key `text_key` in YAML) and `items` (children; a YAML list when `seq`).
    `slot` marks an elastic excerpt sized after the rest of its section is counted; `mark`
    tags what the over-budget accounting needs to find (pinned items, decisions)."""

    tag: str
    text: Scalar = None
    items: tuple[El, ...] = ()
    attrs: tuple[tuple[str, Scalar], ...] = ()
    seq: bool = False
    text_key: str = "text"
    slot: int = -1
    mark: str = ""


@dataclass(frozen=True)
class Block:
    """A rendered piece of a section, counted on its own (see render.section_blocks)."""

    text: str
    el: El
    col: int  # YAML column the element was rendered at
    item: bool  # rendered as a YAML list item


@dataclass(frozen=True)
class Elastic:
    """Text sized to whatever room the rest of current_state leaves (file content); the
    element holding it carries its index in `El.slot`."""

    make: Callable[[str, int], El]  # (text, slot) -> the element holding it
    text: str
    numbered: bool
    memory: bool = False  # a working-memory item, which is dropped rather than starved
    pinned: bool = False
    focus: tuple[int, ...] = ()  # lines an excerpt keeps the surroundings of (violations)
    whole: str | None = None  # sent instead of `text` when all of it fits (a wrapped line)


def seq(tag: str, values: Sequence[Scalar], item_tag: str = "item") -> El:
    return El(tag, seq=True, items=tuple(El(item_tag, text=value) for value in values))


def drop_empty(*elements: El | None) -> tuple[El, ...]:
    return tuple(
        el
        for el in elements
        if el is not None and (el.items or el.attrs or el.text not in (None, "") or el.slot >= 0)
    )


def value_el(
    tag: str, value: Any, *, cut: bool = False, cap: int | None = None, depth: int = 0
) -> El:
    """An element for any JSON-like value (memory content, task inputs)."""
    if depth >= MAX_VALUE_DEPTH and isinstance(value, Mapping | list | tuple):
        value = json.dumps(value, ensure_ascii=False, default=str)
    if isinstance(value, Mapping):
        entries = [
            value_el(str(key), item, cut=cut, cap=cap, depth=depth + 1)
            for key, item in value.items()
        ]
        return El(tag, items=tuple(entries))
    if isinstance(value, list | tuple):
        shown = list(value) if cap is None else list(value[:cap])
        items = [value_el("item", item, cut=cut, cap=cap, depth=depth + 1) for item in shown]
        if len(shown) < len(value):
            items.append(El("item", text=f"... and {len(value) - len(shown)} more"))
        return El(tag, seq=True, items=tuple(items))
    if isinstance(value, str) and cut:
        value = cz.cut_error(value)
    elif not isinstance(value, str | int | float | bool | None):
        value = str(value)
    return El(tag, text=value)
