"""The compression strategies of the compiled context, as pure functions.

The compiler applies them in the order of the table: file content keeps its first and last lines
around a `# ... N lines omitted ...` marker; recent actions drop to 2; tool results collapse to
one line; error messages are cut to 500 characters; lists keep their first N items. A hard
truncation to a token budget is the last resort that makes the budget a guarantee.

Token budgets for file content are met from per-line counts measured once (`measure_lines`),
never by re-counting the whole text for every candidate cut.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from forgetui.engine.base.tokens import TokenCounter

T = TypeVar("T")

OMITTED_MARKER = "# ... {count} lines omitted ..."
TRUNCATED_MARKER = "[... truncated ...]"
ERROR_LIMIT = 500
ONE_LINE_LIMIT = 200
RECENT_COMPRESSED = 2

_LINE_BREAKS = re.compile("\r\n|[\r\x85\u2028\u2029]")
# Characters YAML may not carry (C0/C1 controls, DEL, surrogates, BOM, non-characters), listed
# rather than as the complement of what it may: the negated class takes 10 ms to compile, at
# the import of every process that reads a task.
_NON_PRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufeff\ufffe\uffff]")
_SPACES = re.compile(r"\s+")
_TRAILING_SPACE = re.compile(r"[^\S\n]+(?:\n|$)")


def sanitize(text: str) -> str:
    """One newline convention, no characters a YAML reader refuses, no trailing spaces."""
    text = _LINE_BREAKS.sub("\n", text)
    if _NON_PRINTABLE.search(text):
        text = _NON_PRINTABLE.sub("\ufffd", text)
    if _TRAILING_SPACE.search(text):
        text = "\n".join(line.rstrip() for line in text.split("\n"))
    return text


def clean_text(text: str) -> str:
    """`sanitize` without leading or trailing blank lines: what every rendered string goes
    through."""
    return sanitize(text).strip("\n")


def split_lines(text: str) -> list[str]:
    """Lines of `text` (any newline convention); a final newline does not add an empty line."""
    text = _LINE_BREAKS.sub("\n", text)
    if text.endswith("\n"):
        text = text[:-1]
    return text.split("\n") if text else []


def numbered_lines(lines: Sequence[str], first: int = 1) -> list[str]:
    """`  12| code`: numbers right-aligned (at least 4 wide) so an excerpt keeps them; the form
    read_file shows and edit_file's `old` is copied from."""
    width = max(4, len(str(first + len(lines) - 1)))
    return [
        f"{number:>{width}}| {line}" if line else f"{number:>{width}}|"
        for number, line in enumerate(lines, first)
    ]


def number_lines(text: str, start: int = 1) -> str:
    """`numbered_lines` of a text cleaned of what YAML cannot carry."""
    return "\n".join(numbered_lines(split_lines(sanitize(text)), start))


@dataclass(frozen=True)
class LineCosts:
    """Lines grouped in units whose token counts add up to the count of the whole text.

    A unit is one line plus any blank lines after it (and, with no indentation, lines starting
    with "/"): tiktoken's pre-tokenizer never merges across the boundary before a line that has
    text, so per-unit counts sum exactly. `prefix` is the indentation the renderer adds to
    every non-blank line."""

    units: tuple[str, ...]
    lines: tuple[int, ...]
    costs: tuple[int, ...]
    prefix: str = ""

    @property
    def total_lines(self) -> int:
        return sum(self.lines)

    @property
    def total_tokens(self) -> int:
        return sum(self.costs)


def indent_lines(text: str, prefix: str) -> str:
    """`prefix` before every non-blank line; blank lines stay empty."""
    if not prefix:
        return text
    return "\n".join(prefix + line if line else "" for line in text.split("\n"))


def measure_lines(lines: Sequence[str], counter: TokenCounter, prefix: str = "") -> LineCosts:
    units: list[list[str]] = []
    for raw in lines:
        line = raw.rstrip()
        joins_previous = units and (not line or (not prefix and line.startswith("/")))
        if joins_previous:
            units[-1].append(line)
        else:
            units.append([line])
    texts = tuple("\n".join(unit) for unit in units)
    costs = counter.count_each([indent_lines(text, prefix) + "\n" for text in texts])
    return LineCosts(texts, tuple(len(unit) for unit in units), tuple(costs), prefix)


@dataclass(frozen=True)
class Excerpt:
    text: str  # the kept lines joined by "\n", with the omitted marker where lines were cut
    tokens: int  # tokens of the text rendered with the prefix, a newline after each line
    omitted: int  # lines left out; 0 when the whole text fits


def omitted_marker(count: int) -> str:
    return OMITTED_MARKER.format(count=count)


FOCUS_CONTEXT = 3  # units kept each side of a focus line, at best


def fit_lines(
    measured: LineCosts, budget: int, counter: TokenCounter, focus: Sequence[int] = ()
) -> Excerpt:
    """Keep the first and last lines that fit `budget` tokens, the marker between them; with
    `focus` (1-based line numbers, e.g. where a violation is), the lines around each instead."""
    units, costs = measured.units, measured.costs
    total = sum(costs)
    if total <= budget:
        return Excerpt("\n".join(units), total, 0)
    if focus:
        return _fit_around(measured, budget, counter, focus)
    marker_cost = counter.count(measured.prefix + omitted_marker(measured.total_lines) + "\n")
    room = budget - marker_cost
    if room < 0:
        return Excerpt("", 0, measured.total_lines)
    head = _take(costs, room // 2)
    used = sum(costs[:head])
    tail = _take(costs[head:][::-1], room - used)
    used += sum(costs[len(costs) - tail :])
    head += _take(costs[head : len(costs) - tail], room - used)
    kept_lines = sum(measured.lines[:head]) + sum(measured.lines[len(units) - tail :])
    omitted = measured.total_lines - kept_lines
    marker = omitted_marker(omitted)
    text = "\n".join([*units[:head], marker, *units[len(units) - tail :]])
    tokens = sum(costs[:head]) + sum(costs[len(costs) - tail :])
    tokens += counter.count(measured.prefix + marker + "\n")
    return Excerpt(text, tokens, omitted)


MAX_FOCUS = 20  # focus lines beyond these are left to the head-and-tail rule


def _fit_around(
    measured: LineCosts, budget: int, counter: TokenCounter, focus: Sequence[int]
) -> Excerpt:
    """The lines around each focus line, with as much context as fits (the first focus lines
    first when not all fit), every gap a marker saying how many lines it leaves out."""
    starts = [0]
    for count in measured.lines:
        starts.append(starts[-1] + count)
    units = len(measured.units)
    unit_of = {}
    for index in range(units):
        for line in range(starts[index] + 1, starts[index + 1] + 1):
            unit_of[line] = index
    centres = sorted({unit_of[line] for line in focus if line in unit_of})[:MAX_FOCUS]
    if not centres:
        return fit_lines(measured, budget, counter)
    marker_cost = counter.count(measured.prefix + omitted_marker(measured.total_lines) + "\n")

    def around(shown: int, reach: int) -> set[int]:
        return {
            index
            for centre in centres[:shown]
            for index in range(max(0, centre - reach), min(units, centre + reach + 1))
        }

    for reach in range(FOCUS_CONTEXT, -1, -1):
        for shown in range(len(centres), 0, -1):
            if _cost(measured, around(shown, reach), marker_cost) > budget:
                continue
            if shown == len(centres):  # every focus line fits: widen while the budget allows
                low, high = reach, units
                while low < high:
                    middle = (low + high + 1) // 2
                    fits = _cost(measured, around(shown, middle), marker_cost) <= budget
                    low, high = (middle, high) if fits else (low, middle - 1)
                reach = low
            return _excerpt(measured, around(shown, reach), counter)
    return Excerpt("", 0, measured.total_lines)


def _cost(measured: LineCosts, kept: set[int], marker_cost: int) -> int:
    gaps = sum(
        1
        for index in range(len(measured.units))
        if index not in kept and (index == 0 or index - 1 in kept)
    )
    return sum(measured.costs[index] for index in kept) + gaps * marker_cost


def _excerpt(measured: LineCosts, kept: set[int], counter: TokenCounter) -> Excerpt:
    parts: list[str] = []
    tokens = omitted = gap = 0
    for index, unit in enumerate(measured.units):
        if index in kept:
            if gap:
                marker = omitted_marker(gap)
                parts.append(marker)
                tokens += counter.count(measured.prefix + marker + "\n")
                omitted, gap = omitted + gap, 0
            parts.append(unit)
            tokens += measured.costs[index]
        else:
            gap += measured.lines[index]
    if gap:
        marker = omitted_marker(gap)
        parts.append(marker)
        tokens += counter.count(measured.prefix + marker + "\n")
        omitted += gap
    return Excerpt("\n".join(parts), tokens, omitted)


def _take(costs: Sequence[int], room: int) -> int:
    """How many leading costs fit in `room`."""
    taken = 0
    for cost in costs:
        if cost > room:
            break
        room -= cost
        taken += 1
    return taken


def drop_to(items: Sequence[T], keep: int = RECENT_COMPRESSED) -> list[T]:
    """The newest `keep` items (items are oldest first): recent actions drop from 3 to 2."""
    return list(items[-keep:]) if keep > 0 else []


def one_line(value: Any, limit: int = ONE_LINE_LIMIT) -> str:
    """A tool result (text or a mapping such as {action, result, summary}) on one line."""
    if isinstance(value, Mapping):
        text = "; ".join(f"{key}: {one_line(item, limit)}" for key, item in value.items())
    elif isinstance(value, list | tuple):
        text = ", ".join(one_line(item, limit) for item in value)
    else:
        text = "" if value is None else str(value)
    text = _SPACES.sub(" ", text).strip()
    if len(text) > limit:
        text = text[: max(0, limit - 3)].rstrip() + "..."
    return text


def cut_error(text: str, limit: int = ERROR_LIMIT) -> str:
    """At most `limit` characters of an error, saying how much was cut."""
    if len(text) <= limit:
        return text
    return f"{text[:limit].rstrip()} [... {len(text) - limit} more characters cut]"


def cap_list(
    items: Sequence[str],
    keep: int,
    *,
    end: Literal["first", "last"] = "first",
    total: int | None = None,
) -> list[str]:
    """`keep` items and a line saying how many more there are ("... and N more"). `total`:
    how many there are in all when `items` holds only the newest (state keeps a bounded tail
    of a list that grows with the task)."""
    total = max(total or 0, len(items))
    if total <= keep:
        return list(items)
    more = total - min(keep, len(items))
    if end == "last":
        return [f"... and {more} earlier", *items[len(items) - keep :]]
    return [*items[:keep], f"... and {more} more"]


def cap_around(items: Sequence[str], index: int, keep: int) -> list[str]:
    """`keep` items around `index` (the current one), saying how many were left out each side."""
    if len(items) <= keep:
        return list(items)
    start = min(max(0, index - keep // 2), len(items) - keep)
    kept = list(items[start : start + keep])
    after = len(items) - start - keep
    return [
        *([f"... {start} earlier"] if start else []),
        *kept,
        *([f"... and {after} more"] if after else []),
    ]


def hard_truncate(
    text: str, budget: int, counter: TokenCounter, marker: str = TRUNCATED_MARKER
) -> str:
    """At most `budget` tokens of `text`, ending with `marker` when anything was cut; the empty
    string when not even the marker fits."""
    if counter.count(text) <= budget:
        return text
    tokens = counter.encode(text)
    keep = budget - counter.count(" " + marker) - 1
    while keep > 0:
        # A cut inside a multi-byte character decodes to U+FFFD; drop it.
        candidate = f"{counter.decode(tokens[:keep]).rstrip(chr(0xFFFD)).rstrip()} {marker}"
        excess = counter.count(candidate) - budget
        if excess <= 0:
            return candidate
        keep -= excess
    return marker if counter.count(marker) <= budget else ""
