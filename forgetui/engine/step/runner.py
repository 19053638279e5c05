"""Stepping a task back to back: `forgetui run` headless and the workbench's run both use
`run_steps`. Nothing here prints; the front ends render the reports it hands them."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from forgetui.engine.base.errors import EXIT_ESCALATED, EXIT_FAILED, EXIT_OK, ForgeError
from forgetui.engine.folder.model_options import SystemRole, ToolsMode
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.llm import Model, make_model
from forgetui.engine.operator.verbs import answer
from forgetui.engine.step.executor import Executor
from forgetui.engine.step.reports import StepEvent, StepReport, escalation_json, verification_json


def model_for(
    folder: TaskFolder,
    model: str | None,
    api_base: str | None,
    human_input: Callable[[str], str] | None = None,
    *,
    max_output_tokens: int | None = None,
    temperature: float | None = None,
    timeout_s: float | None = None,
    system_role: SystemRole | None = None,
    tools: ToolsMode | None = None,
    stream: bool | None = None,
) -> Model:
    """The model to run with: the flag, else the task's own, else the embedded replay. Each
    bound given here (a CLI flag; in the workbench also the user config's) wins over the task's
    `model_options`, which win over the defaults. A litellm model whose provider key is not set
    (and no `api_base`) is refused here, before any step."""
    options = folder.spec.model_options.with_overrides(
        max_output_tokens=max_output_tokens,
        temperature=temperature,
        timeout_s=timeout_s,
        system_role=system_role,
        tools=tools,
        stream=stream,
    )
    return make_model(
        model or folder.spec.model or "replay",
        api_base=api_base,
        task_dir=folder.path,
        options=options,
        human_input=human_input,
    )


def run_steps(executor: Executor, max_steps: int | None = None) -> Iterator[StepReport]:
    """Step until the task is finished or escalated, or `max_steps` steps were taken."""
    taken = 0
    executor.keep_running = True
    try:
        while max_steps is None or taken < max_steps:
            state = executor.folder.load_state()
            if state.finished or state.pending_escalation:
                return
            report = executor.step()
            taken += 1
            yield report
    finally:
        executor.settle()


@dataclass(frozen=True)
class RunOutcome:
    """How a run ended: the final JSON line of `run --json` and the command's exit code."""

    final: dict[str, Any]
    exit_code: int


def run(
    task: Path,
    *,
    model: str | None = None,
    api_base: str | None = None,
    bounds: Mapping[str, Any] | None = None,
    max_steps: int | None = None,
    until: str = "complete",
    on_interrupt: str = "ask",
    on_step: Callable[[StepReport], None] = lambda report: None,
    on_event: Callable[[StepEvent], None] | None = None,
    on_notice: Callable[[str], object] = lambda notice: None,
) -> RunOutcome:
    """Run headless until complete, an escalation (`until`) or `max_steps`. A step a crash or
    Ctrl+C interrupted is re-run or skipped unattended with `on_interrupt`, else it is asked.
    `bounds` are the model-bound flags given (`model_for`'s keywords)."""
    folder = TaskFolder.open(task)
    llm = model_for(folder, model, api_base, **(bounds or {}))
    with Executor(folder, llm, observer=on_event) as executor:
        for notice in executor.notices:
            on_notice(notice)
        pending = folder.load_state().pending_escalation
        if pending is not None and pending.reason == "interrupted" and on_interrupt != "ask":
            verdict = {"rerun": "re-run", "skip": "skip"}[on_interrupt]
            answer(folder, verdict)
            on_notice(f"step {pending.step} was interrupted: {verdict} (--on-interrupt)")
        steps = 0
        for report in run_steps(executor, max_steps):
            steps += 1
            on_step(report)
        state = folder.load_state()
    final: dict[str, Any] = {
        "final": True,
        "task": str(folder.path),
        "status": state.status,
        "steps": steps,
        "step": state.step,
        "phase": state.phase,
        "verification": verification_json(state.verification),
        "cost": state.totals.cost_usd,
        "pending_escalation": escalation_json(state.pending_escalation),
    }
    return RunOutcome(final, _exit_code(state.status, final, until, max_steps, steps))


def _exit_code(
    status: str, final: dict[str, Any], until: str, max_steps: int | None, steps: int
) -> int:
    if status == "complete":
        return EXIT_OK
    if status in ("failed", "aborted"):
        return EXIT_FAILED
    if final["pending_escalation"] is not None:
        return EXIT_OK if until == "escalation" else EXIT_ESCALATED
    if max_steps is not None and steps >= max_steps:
        return EXIT_OK
    raise ForgeError(f"run stopped with status {status}")
