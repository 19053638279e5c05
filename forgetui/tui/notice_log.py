"""The messages the app showed, kept newest last: what the message history lists.

A message naming a command the operator has to copy (open a fork's workspace, repair a task) is
kept on screen until closed; `must_stay` says which."""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass

from textual.notifications import SeverityLevel

HISTORY_LIMIT = 200  # messages kept; the oldest go first
# A command the operator has to copy: forgetui's, naming a path (`forgetui open <new
# workspace>`, `forgetui repair <task>`). A path in any other message is context, not a
# thing to act on: a caller that wants one kept passes notices.KEPT_S as the timeout.
_COMMAND = re.compile(r"\bforgetui [a-z][a-z-]* [^\s]*[/~]")


@dataclass(frozen=True)
class Notice:
    text: str
    title: str
    severity: SeverityLevel
    at: float  # seconds since the epoch
    step: int | None  # the step in flight, else the steps recorded; None: no task open
    task: str  # the task's id, "" when none is open
    kept: bool  # stayed on screen until closed

    @property
    def heading(self) -> str:
        """The title, or the severity when there is none ("information" says nothing)."""
        return self.title or ("" if self.severity == "information" else self.severity)


def must_stay(text: str) -> bool:
    """Whether a message names a command the operator has to copy (then it stays until closed)."""
    return _COMMAND.search(text) is not None


class NoticeLog:
    """The last HISTORY_LIMIT messages. Appends come from the UI thread and, through
    `notify`, from workers: a deque's append is atomic."""

    def __init__(self, limit: int = HISTORY_LIMIT) -> None:
        self._notices: deque[Notice] = deque(maxlen=limit)

    def add(self, notice: Notice) -> None:
        self._notices.append(notice)

    def newest_first(self) -> list[Notice]:
        return list(reversed(self._notices))

    def __len__(self) -> int:
        return len(self._notices)

    def __iter__(self) -> Iterator[Notice]:
        return iter(list(self._notices))
