"""Values from a run (a model's action name, a path it chose) shown inside one line of ours:
an error, a log summary, a replay script's comment. A line break or control character in such a
value must not end our line and start one the reader takes for ours."""

from __future__ import annotations

_SHORT_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def printable(text: str) -> str:
    """Every printable character as it is; any other one (a line break, a control or format
    character) as its escape."""
    return "".join(char if char.isprintable() else _escape(char) for char in text)


def shown(text: str, limit: int = 80) -> str:
    """`text` cut to `limit` characters, then escaped."""
    return printable(text if len(text) <= limit else text[: limit - 3] + "...")


def _escape(char: str) -> str:
    code = ord(char)
    if char in _SHORT_ESCAPES:
        return _SHORT_ESCAPES[char]
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
