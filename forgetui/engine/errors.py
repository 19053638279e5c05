"""One error base for everything a user can cause; the CLI prints these on one line, exit 2."""

from __future__ import annotations

from pathlib import Path


class ForgeError(Exception):
    """An error with a message meant for the operator, not a traceback."""

    title = "error"
    exit_code = 2

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
    exit_code = 2


class MemoryKeyError(ForgeError):
    title = "no such memory item"
