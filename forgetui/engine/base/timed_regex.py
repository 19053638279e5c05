"""Regexes written by someone else, run with a time budget.

`re` cannot be interrupted, so one pattern like `(a|a)+$` on a long line would hang a step for
minutes. The `regex` package (V0 mode: `re` syntax) takes a `timeout=`; a `TimedPattern` shares
one budget across every call it makes, so a search over thousands of files gives up after the
budget in total, not per line."""

from __future__ import annotations

import time
from typing import Any

from forgetui.engine.base.errors import ForgeError

DEFAULT_BUDGET_S = 2.0


class InvalidPattern(ForgeError):
    title = "invalid regex"


class PatternTooSlow(ForgeError):
    """The pattern used up its budget: backtracking, almost always."""

    title = "pattern too slow"


class TimedPattern:
    """A compiled pattern whose matching time, summed over calls, is capped at `budget_s`
    (time spent reading files does not count against it)."""

    def __init__(
        self, pattern: str, *, multiline: bool = False, budget_s: float | None = None
    ) -> None:
        import regex  # here: the modules naming checks load without it (the first view's child)

        if budget_s is None:
            budget_s = DEFAULT_BUDGET_S
        try:
            self._compiled: Any = regex.compile(pattern, regex.MULTILINE if multiline else 0)
        except regex.error as exc:
            raise InvalidPattern(str(exc)) from exc
        self.pattern = pattern
        self.budget_s = budget_s
        self._left = budget_s

    def _too_slow(self, where: str) -> PatternTooSlow:
        return PatternTooSlow(
            f"pattern too slow: /{self.pattern}/ gave up after {self.budget_s:g} s in {where}; "
            "simplify it (avoid nested quantifiers and overlapping alternatives)"
        )

    def search(self, text: str, where: str) -> Any:
        """The first match in `text` or None; `where` names the text if the budget runs out."""
        started = time.monotonic()
        try:
            return self._compiled.search(text, timeout=max(self._left, 0.0))
        except TimeoutError:
            self._left = 0.0
            raise self._too_slow(where) from None
        finally:
            self._left -= time.monotonic() - started

    def finditer(self, text: str, where: str) -> list[Any]:
        """Every match in `text`."""
        started = time.monotonic()
        try:
            return list(self._compiled.finditer(text, timeout=max(self._left, 0.0)))
        except TimeoutError:
            self._left = 0.0
            raise self._too_slow(where) from None
        finally:
            self._left -= time.monotonic() - started
