"""The words of project memory: what an entry's text may hold, and how a value read from a
hand-edited file is quoted in a problem line. A file can hold anything of any length, and a
problem line is shown in every step's context and on the operator's terminal."""

from __future__ import annotations

import unicodedata

QUOTED_CHARS = 60  # a value from a file quoted in a problem line, at most
PROBLEM_CHARS = 300  # a problem line, at most
PLAIN = "\n\t"  # the control characters an entry's text may hold: a short paragraph's


def cut(line: str, limit: int) -> str:
    """`line` cut to `limit` characters, an ellipsis saying it was."""
    return line if len(line) <= limit else line[: limit - 1] + "\u2026"


def quoted(value: str, limit: int = QUOTED_CHARS) -> str:
    """`value` repr'd (a control character escaped) and cut, as a problem line quotes it."""
    return cut(repr(value), limit)


def text_problem(text: str) -> str | None:
    """Why `text` cannot be an entry's text (None: it can): a stray byte that is not UTF-8
    (a surrogate from the command line), or a control character a terminal would obey."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"is not UTF-8 text (character {exc.start + 1} is a stray byte)"
    for index, char in enumerate(text):
        if char not in PLAIN and unicodedata.category(char) == "Cc":
            return f"has a control character {char!r} at character {index + 1}: plain text only"
    return None
