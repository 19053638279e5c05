"""What every command prints with: one rich console for the process (made on first use, so
JSON output never imports rich), tables, JSON lines, sizes."""

from __future__ import annotations

import json
import re
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

_CONSOLE: list[Console] = []


def console() -> Console:
    """One console for the process, made on first use: JSON output never imports rich."""
    if not _CONSOLE:
        from rich.console import Console

        class _Console(Console):
            def on_broken_pipe(self) -> None:
                """rich would exit 1 here: a closed pipe is cli.main's to end, as for print."""
                self.quiet = True
                raise BrokenPipeError

        _CONSOLE.append(_Console(highlight=False))
    return _CONSOLE[0]


def table(**options: Any) -> Table:
    from rich.table import Table

    return Table(**options)


def human_size(size: int) -> str:
    """Bytes as people read them: 512 B, 48.2 KiB, 1.3 MiB."""
    value = float(size)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024:
            return f"{size} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} TiB"


_SURROGATE = re.compile("[\ud800-\udfff]")


def print_json(obj: Any) -> None:
    text = json.dumps(obj, ensure_ascii=False)
    if _SURROGATE.search(text):  # a lone surrogate from a model's JSON: no encoding writes it
        text = json.dumps(obj)
    sys.stdout.write(text + "\n")
    sys.stdout.flush()
