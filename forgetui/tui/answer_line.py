"""The line under the header while a model's answer streams in: its tokens so far, the model's
tokens per second and the time since the call started, and the key that stops it. Shown from
the step's first answer event until the step is recorded; one line, no layout pass per update."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from textual.content import Content
from textual.widgets import Static

if TYPE_CHECKING:
    from forgetui.engine.api import StepEvent


RATE_AFTER_S = 0.5  # seconds of answer before its own rate is shown instead of the call's


def answer_figures(tokens: int, elapsed_s: float, rate: float) -> str:
    return f"{tokens:,} tok · {rate:.0f} tok/s · {elapsed_s:.1f} s"


def answer_rate(first: StepEvent, last: StepEvent) -> float:
    """Tokens per second since the first token: the model's writing speed, which a local
    server's prompt processing before it (seconds for a long context) would otherwise hide.
    Until the answer has run for RATE_AFTER_S, the rate over the whole call."""
    span = last.elapsed_s - first.elapsed_s
    if span >= RATE_AFTER_S:
        return (last.tokens - first.tokens) / span
    return last.tokens / last.elapsed_s if last.elapsed_s > 0 else 0.0


class AnswerLine(Static):
    """`stage`: "streaming" (the stop key applies), "stopping" (the operator stopped it and the
    engine is closing the stream), "stopped" (closed: the step records what came) or "done"
    (the answer ended; the step goes on)."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.event: StepEvent | None = None
        self.first: StepEvent | None = None  # the answer's first event: where its rate starts
        self.stage = "streaming"
        self.stop_key = "s"
        self._received = 0.0
        self._shown: Content | None = None

    def show(self, event: StepEvent, ticking: bool) -> None:
        """An answer event; `ticking` (the workbench clock is on) counts the elapsed time on
        between events, so a model that stalls shows the wait growing."""
        if self.first is None or self.first.step != event.step or event.tokens < self.first.tokens:
            self.first = event  # a new answer (a retry starts its text and count again)
        self.event = event
        self._received = time.monotonic() if ticking else 0.0
        self.add_class("-shown")
        self._paint()

    def set_stage(self, stage: str) -> None:
        self.stage = stage
        self._paint()

    def tick(self) -> None:
        if self.event is not None and self._received and self.stage == "streaming":
            self._paint()

    def clear(self) -> None:
        self.event, self.first, self.stage, self._shown = None, None, "streaming", None
        self.remove_class("-shown")

    def _paint(self) -> None:
        event = self.event
        if event is None:
            return
        elapsed = event.elapsed_s
        if self._received and self.stage == "streaming":
            elapsed += time.monotonic() - self._received
        rate = answer_rate(self.first or event, event)
        left = Content.assemble(
            (f" step {event.step} answer ", "bold"), answer_figures(event.tokens, elapsed, rate)
        )
        right = {
            "streaming": Content.assemble((self.stop_key, "bold $accent"), " stop the answer "),
            "stopping": Content.styled("stopping the answer … ", "$warning"),
            "stopped": Content.styled("stopped: recording the partial answer ", "$warning"),
        }.get(self.stage, Content(""))
        gap = self.size.width - left.cell_length - right.cell_length
        if self.size.width and gap < 2:
            right = Content("")  # the figures first; the footer still shows the key
            gap = 0
        line = Content.assemble(left, " " * max(2, gap), right)
        if line != self._shown:
            self._shown = line
            self.update(line, layout=False)

    def on_resize(self) -> None:
        self._paint()
