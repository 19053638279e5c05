"""A streamed answer on its way out of a model call, and the operator's stop on its way in.

The model feeds each text delta to `AnswerStream.feed`; the front end's callback sees the whole
answer so far, at most every `interval_s` (a workbench repaint per token would cost more than
the token). `request_stop` may be called from any thread (the workbench's `s`, a signal in the
engine process): the model checks `stopped` between chunks, closes the stream and returns
what had arrived as a partial answer (finish_reason "stopped")."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

STOPPED = "stopped"  # the finish_reason of an answer the operator stopped


@dataclass(frozen=True)
class StreamProgress:
    """The answer so far: its text, its tokens (chunks, or the server's count) and time."""

    text: str
    tokens: int
    elapsed_s: float

    @property
    def tokens_per_s(self) -> float:
        return self.tokens / self.elapsed_s if self.elapsed_s > 0 else 0.0


class AnswerStream:
    """One step's stream: fed by the model, shown by `on_progress`, stopped by the operator."""

    def __init__(
        self,
        on_progress: Callable[[StreamProgress], None] | None = None,
        *,
        interval_s: float = 0.1,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._on_progress = on_progress
        self._interval_s = interval_s
        self._clock = clock
        self._stop = threading.Event()
        self._parts: list[str] = []
        self._tokens = 0
        self._started = clock()
        self._shown_at: float | None = None

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    def request_stop(self) -> None:
        self._stop.set()

    def restart(self) -> None:
        """A new attempt (a retry): the text so far belongs to the failed one."""
        self._parts.clear()
        self._tokens = 0
        self._started = self._clock()

    @property
    def text(self) -> str:
        return "".join(self._parts)

    @property
    def tokens(self) -> int:
        return self._tokens

    def feed(self, delta: str, tokens: int = 1) -> None:
        """One chunk arrived: `delta` text and the tokens it stands for."""
        if delta:
            self._parts.append(delta)
        self._tokens += tokens
        now = self._clock()
        if self._shown_at is None or now - self._shown_at >= self._interval_s:
            self._show(now)

    def finish(self) -> StreamProgress:
        """The last progress, always shown (the throttle may have held the final chunks)."""
        return self._show(self._clock())

    def _show(self, now: float) -> StreamProgress:
        self._shown_at = now
        progress = StreamProgress(self.text, self._tokens, max(0.0, now - self._started))
        if self._on_progress is not None:
            self._on_progress(progress)
        return progress


__all__ = ["STOPPED", "AnswerStream", "StreamProgress"]
