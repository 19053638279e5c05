"""One error base for everything a user can cause; the CLI prints these on one line, exit 2."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import ValidationError

# Exit codes of every command.
EXIT_OK, EXIT_BAD_INPUT, EXIT_ESCALATED, EXIT_FAILED = 0, 2, 3, 4


class ForgeError(Exception):
    """An error with a message meant for the operator, not a traceback."""

    title = "error"
    exit_code = EXIT_BAD_INPUT

    def __init__(self, message: str, title: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if title:
            self.title = title

    def __str__(self) -> str:
        return self.message


class StateFileError(ForgeError):
    """A state file that does not parse or validate: names the file, the line and the field."""

    title = "invalid state file"

    def __init__(
        self, path: Path | str, problem: str, line: int | None = None, field: str | None = None
    ) -> None:
        self.path = Path(path)
        self.line = line
        self.field = field
        where = str(path) + (f":{line}" if line else "")
        what = f"field '{field}': " if field else ""
        super().__init__(f"{where}: {what}{problem}")


class TaskNotFoundError(ForgeError):
    title = "task not found"


class LockHeldError(ForgeError):
    """Another live process holds the task's single-writer lock."""

    title = "task locked"


class MemoryKeyError(ForgeError):
    title = "no such memory item"


def first_error(exc: ValidationError) -> tuple[str, tuple[str | int, ...], str]:
    """The first problem pydantic found: its field as a dotted path, its location (keys and
    list indexes) and its message."""
    err = exc.errors()[0]
    loc = tuple(err["loc"])
    return ".".join(str(part) for part in loc), loc, err["msg"]
