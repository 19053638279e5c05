"""What the log view and the workbench say to each other: the cursor came to rest, the filter
needs rows found, the rows found, a step's row found (the rows themselves load by
LogWindowNeeded, tui/messages.py)."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from forgetui.engine.api import LogRow


@dataclass
class LogCursorRested(Message):
    """The operator moved the log cursor and it stayed on `row` for REST_DELAY seconds."""

    row: LogRow
    newest: bool  # the log's newest row


@dataclass
class LogFilterNeeded(Message):
    """The filtered log needs the rows from `start` on that hold `text`."""

    text: str
    start: int


@dataclass
class LogFiltered(Message):
    """The rows from `start` on that hold `text`, of the `count` rows the log had then."""

    text: str
    start: int
    count: int
    rows: tuple[LogRow, ...]


@dataclass
class LogStepFound(Message):
    """The row of step `step` (None: the log has no such step)."""

    step: int
    row: int | None
