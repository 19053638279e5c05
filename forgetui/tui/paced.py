"""A repaint that comes at most every so often: the header while steps run, whose stages (and,
while a run goes on, each step's start and end) flash by faster than frames should follow.
A frame for each would leave keys waiting; the last state shows in time all the same."""

from __future__ import annotations

import time
from collections.abc import Callable

from textual.message_pump import MessagePump
from textual.timer import Timer


class PacedRepaint:
    """Calls `show` on `node`'s loop, at most every `spacing` seconds."""

    def __init__(self, node: MessagePump, show: Callable[[], None], spacing: float) -> None:
        self._node = node
        self._show = show
        self._spacing = spacing
        self._shown = 0.0
        self._timer: Timer | None = None

    def soon(self) -> None:
        """Now if the last repaint is `spacing` old, else once it is (a slow stage shows in
        time); a repaint already due shows the state as it is then."""
        if self._timer is not None:
            return
        wait = self._shown + self._spacing - time.monotonic()
        if wait <= 0:
            self.now()
        else:
            self._timer = self._node.set_timer(wait, self.now)

    def now(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self._shown = time.monotonic()
        self._show()
