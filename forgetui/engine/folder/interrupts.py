"""Ctrl+C while a step records itself waits until the step is recorded: the working memory,
state.yaml and the log are written as one, so an interrupt never leaves them disagreeing.
An interrupt during the model call or the action itself still stops the step at once."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


@contextmanager
def interrupts_deferred() -> Iterator[None]:
    """Hold SIGINT for the duration; re-raise it as KeyboardInterrupt afterwards. Only the main
    thread receives signals, so elsewhere this does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []

    def hold(signum: int, _frame: FrameType | None) -> None:
        received.append(signum)

    previous = signal.signal(signal.SIGINT, hold)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if received:
        raise KeyboardInterrupt
