"""`forgetui run`'s live output: JSON lines, or a line per step with a live status line on a
terminal; with --stream, each answer's text on stderr as it arrives."""

from __future__ import annotations

import shlex
import sys
from typing import TYPE_CHECKING, Any, Protocol

from forgetui.cli.render import console, print_json

if TYPE_CHECKING:
    from forgetui.engine.api import StepEvent, StepReport


class RunOutput(Protocol):
    def event(self, event: StepEvent) -> None: ...
    def step(self, report: StepReport) -> None: ...
    def final(self, final: dict[str, Any]) -> None: ...
    def close(self) -> None:
        """Whatever is live on the terminal taken down: the run ended, or was interrupted."""
        ...


def run_output(as_json: bool, stream: bool = False) -> RunOutput:
    """JSON lines or console lines on stdout; with `stream`, the answers on stderr too."""
    out: RunOutput = JsonRunOutput() if as_json else ConsoleRunOutput()
    return AnswerEcho(out) if stream else out


def alert_line(event: StepEvent) -> bool:
    """A usage alert (the context crossed 90% of its cap) as one stderr line, in every output
    mode (stdout may be JSON lines); True when `event` was one."""
    if event.stage != "alert":
        return False
    sys.stderr.write(f"forgetui: step {event.step}: {event.detail}\n")
    sys.stderr.flush()
    return True


def print_server_line(line: str) -> None:
    """What a probe of the server found and this run applies (or why there was no probe): one
    line on stderr before the first step, in every output mode (stdout may be JSON lines)."""
    sys.stderr.write(f"forgetui: {line}\n")
    sys.stderr.flush()


class AnswerEcho:
    """`run --stream`: each answer's text on stderr as it arrives (what each 'answer' event
    adds to the last), a newline after each step's answer. stdout stays the wrapped output's,
    which gets no live events: a status line redrawn there would tear the text on a terminal."""

    def __init__(self, out: RunOutput) -> None:
        self.out = out
        self._step: int | None = None
        self._shown = ""

    def event(self, event: StepEvent) -> None:
        if alert_line(event) or event.stage != "answer":
            return
        if event.step != self._step:
            self._end_answer()
            self._step = event.step
        if event.detail.startswith(self._shown):
            added = event.detail[len(self._shown) :]
        else:  # a retried call: its answer starts over
            added = "\n" + event.detail
        self._shown = event.detail
        sys.stderr.write(added)
        sys.stderr.flush()

    def _end_answer(self) -> None:
        if self._shown:
            sys.stderr.write("\n")
            sys.stderr.flush()
        self._step, self._shown = None, ""

    def step(self, report: StepReport) -> None:
        self._end_answer()
        self.out.step(report)

    def final(self, final: dict[str, Any]) -> None:
        self._end_answer()
        self.out.final(final)

    def close(self) -> None:
        self._end_answer()
        self.out.close()


class JsonRunOutput:
    """`run --json`: a line per finished step, then the final line."""

    def event(self, event: StepEvent) -> None:
        """JSON lines carry finished steps only; an alert goes to stderr."""
        alert_line(event)

    def step(self, report: StepReport) -> None:
        print_json(report.to_json())

    def final(self, final: dict[str, Any]) -> None:
        print_json(final)

    def close(self) -> None:
        """Nothing is live in JSON lines."""


class ConsoleRunOutput:
    """A line per step; on a terminal a live status line shows the stage in flight."""

    def __init__(self) -> None:
        self.console = console()
        self._status: Any = None

    def event(self, event: StepEvent) -> None:
        if event.stage == "alert":
            self._stop_status()
            alert_line(event)
            return
        if not self.console.is_terminal:
            return
        if event.stage == "answer":  # the text streams in --stream; here, how fast it comes
            rate = event.tokens / event.elapsed_s if event.elapsed_s > 0 else 0.0
            text = (
                f"step {event.step}: answer {event.tokens:,} tok, {rate:.0f} tok/s,"
                f" {event.elapsed_s:.1f} s"
            )
        else:
            text = f"step {event.step}: {event.stage} {event.detail}".rstrip()
        if self._status is None:
            self._status = self.console.status(text)
            self._status.start()
        else:
            self._status.update(text)

    def _stop_status(self) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None

    def close(self) -> None:
        """The status line erased, so "forgetui: interrupted" is not left under a spinner."""
        self._stop_status()

    def step(self, report: StepReport) -> None:
        self._stop_status()
        colour = {"success": "green", "escalated": "yellow", "blocked": "magenta"}.get(
            report.result, "red"
        )
        checks = report.verification["checks"]
        passing = sum(1 for c in checks.values() if c["passing"])
        verdict = f"checks {passing}/{len(checks)}" if checks else "checks not run"
        self.console.print(
            f"[bold]{report.step:>4}[/] {report.action or '-':<22} "
            f"[{colour}]{report.result:<9}[/] {report.summary}  "
            f"[dim]{report.context_tokens} tok, {verdict}[/]",
            markup=True,
            soft_wrap=True,
        )

    def final(self, final: dict[str, Any]) -> None:
        self._stop_status()
        self.console.print(
            f"[bold]{final['status']}[/] after {final['steps']} steps "
            f"(step {final['step']}, phase {final['phase']}, ${final['cost']:.4f})"
        )
        escalation = final.get("pending_escalation")
        if escalation:
            self.console.print(
                f"[yellow]escalated ({escalation['reason']}):[/] {escalation['question']}",
                markup=True,
            )
            for option in escalation.get("options", []):
                self.console.print(f"  - {option}", markup=False)
            task = shlex.quote(str(final["task"]))
            self.console.print(  # one line, whatever the width: it is there to be copied
                f"answer with: forgetui answer {task} TEXT", markup=False, soft_wrap=True
            )
