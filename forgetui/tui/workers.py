"""Thread workers for the workbench's plain objects (the run controller, the operator's
commands, ...), started as `@work(thread=True, exit_on_error=False)` starts them on a widget:
on the screen, so a failure reaches the screen's one worker handler, which reports it by group."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.dom import DOMNode


def in_thread(node: DOMNode, work: Callable[[], Any], group: str, exclusive: bool = False) -> None:
    name = getattr(getattr(work, "func", work), "__name__", "")
    node.run_worker(
        work, name=name, group=group, exclusive=exclusive, thread=True, exit_on_error=False
    )
