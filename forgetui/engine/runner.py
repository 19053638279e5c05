"""`forgetui run`: steps headless until complete, an escalation or --max-steps, printing a live
line per step on a terminal or JSON lines with --json (DESIGN.md section 9)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from forgetui.engine.api import verification_json
from forgetui.engine.errors import ForgeError
from forgetui.engine.executor import Executor, StepEvent, StepReport
from forgetui.engine.llm import Model, make_model
from forgetui.engine.store import TaskFolder

EXIT_OK, EXIT_ESCALATED, EXIT_FAILED = 0, 3, 4


def model_for(
    folder: TaskFolder,
    model: str | None,
    api_base: str | None,
    human_input: Callable[[str], str] | None = None,
) -> Model:
    """The model to run with: the flag, else the task's own, else the embedded replay."""
    return make_model(
        model or folder.spec.model or "replay",
        api_base=api_base,
        task_dir=folder.path,
        human_input=human_input,
    )


def run_steps(executor: Executor, max_steps: int | None = None) -> Iterator[StepReport]:
    """Step until the task is finished or escalated, or `max_steps` steps were taken."""
    taken = 0
    executor.keep_running = True
    try:
        while max_steps is None or taken < max_steps:
            state = executor.folder.load_state()
            if state.status in ("complete", "failed", "aborted") or state.pending_escalation:
                return
            report = executor.step()
            taken += 1
            yield report
    finally:
        executor.settle()


def run_headless(
    task: Path,
    *,
    model: str | None = None,
    api_base: str | None = None,
    max_steps: int | None = None,
    until: str = "complete",
    as_json: bool = False,
) -> int:
    folder = TaskFolder.open(task)
    llm = model_for(folder, model, api_base)
    out = _JsonOut() if as_json else _ConsoleOut()
    with Executor(folder, llm, observer=out.event) as executor:
        for notice in executor.notices:
            sys.stderr.write(f"forgetui: {notice}\n")
        steps = 0
        for report in run_steps(executor, max_steps):
            steps += 1
            out.step(report)
        state = folder.load_state()
    final: dict[str, Any] = {
        "final": True,
        "status": state.status,
        "steps": steps,
        "step": state.step,
        "phase": state.phase,
        "verification": verification_json(state.verification),
        "cost": state.totals.cost_usd,
        "pending_escalation": state.pending_escalation.model_dump(mode="json", exclude_none=True)
        if state.pending_escalation
        else None,
    }
    out.final(final)
    if state.status == "complete":
        return EXIT_OK
    if state.status in ("failed", "aborted"):
        return EXIT_FAILED
    if state.pending_escalation is not None:
        return EXIT_OK if until == "escalation" else EXIT_ESCALATED
    if max_steps is not None and steps >= max_steps:
        return EXIT_OK
    raise ForgeError(f"run stopped with status {state.status}")


class _JsonOut:
    def event(self, event: StepEvent) -> None:
        """JSON lines carry finished steps only."""

    def step(self, report: StepReport) -> None:
        sys.stdout.write(json.dumps(report.to_json(), ensure_ascii=False) + "\n")
        sys.stdout.flush()

    def final(self, final: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(final, ensure_ascii=False) + "\n")
        sys.stdout.flush()


class _ConsoleOut:
    """A line per step; on a terminal a live status line shows the stage in flight."""

    def __init__(self) -> None:
        from rich.console import Console

        self.console = Console(highlight=False)
        self._status: Any = None

    def event(self, event: StepEvent) -> None:
        if not self.console.is_terminal:
            return
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
            self.console.print("answer with: forgetui answer TASK TEXT", markup=False)
