"""Thread workers for the workbench's plain objects (the run controller, the operator's
commands, ...), started as `@work(thread=True, exit_on_error=False)` starts them on a widget:
on the screen, so a failure reaches the screen's one worker handler, which reports it by group.
And what waits for the screen to show a change (a run's next step, a step's intent)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from textual.dom import DOMNode


def after_paint(node: DOMNode, callback: Callable[[], Any]) -> None:
    """`callback` once the screen shows what was just changed (on the UI thread).

    `call_after_refresh` alone may run it before that paint: the screen handles its own queue
    without letting the changed widgets ask to be repainted, finds nothing to paint and calls
    back at once. Asked from the event loop's next turn, after those widgets have run, the
    screen has their repaints queued before the callback."""
    asyncio.get_running_loop().call_soon(node.call_after_refresh, callback)


def in_thread(node: DOMNode, work: Callable[[], Any], group: str, exclusive: bool = False) -> None:
    name = getattr(getattr(work, "func", work), "__name__", "")
    node.run_worker(
        work, name=name, group=group, exclusive=exclusive, thread=True, exit_on_error=False
    )
