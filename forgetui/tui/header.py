"""The status line at the top: task, phase, status, step, context tokens, cost, and who writes."""

from __future__ import annotations

from dataclasses import dataclass

from textual.content import Content
from textual.widgets import Static

from forgetui.tui.markup import fmt
from forgetui.tui.snapshot import TaskSnapshot

STAGE_TEXT = {
    "context": "compiling context",
    "model": "waiting for the model",
    "execute": "executing",
    "verify": "verifying",
}


@dataclass(frozen=True)
class Activity:
    """What the workbench is doing now, beyond what state.yaml says."""

    running: bool = False  # run mode: steps follow one another until paused
    step_in_flight: int | None = None
    stage: str = ""
    elapsed_s: float | None = None  # None when the clock is off


class StatusHeader(Static):
    _shown: Content | None = None

    def show_state(self, snapshot: TaskSnapshot | None, activity: Activity) -> None:
        if snapshot is None:
            self.update(fmt(" [b]forgetui[/]  opening the task ..."))
            return
        status = snapshot.status
        if activity.step_in_flight is not None:
            stage = STAGE_TEXT.get(activity.stage, activity.stage or "starting")
            status = f"running step {activity.step_in_flight}: {stage}"
            if activity.elapsed_s is not None:
                status += f" {activity.elapsed_s:.1f}s"
        elif activity.running:
            status = "running"
        context = snapshot.context
        tokens = f"{context.total_tokens:,}/{context.max_tokens:,} tok" if context else "-"
        # Content.assemble, not markup: this runs at every stage of every step.
        parts = [
            Content.assemble((" forgetui", "bold"), "  ", (snapshot.task_id, "bold $accent")),
            Content.assemble("phase ", (snapshot.phase, "bold")),
            Content.assemble((status, "bold")),
            Content(f"step {snapshot.step}"),
            Content(f"context {tokens}"),
            Content(f"${snapshot.cost:.4f}"),
        ]
        if snapshot.holder is not None:
            holder = snapshot.holder
            parts.append(
                Content.assemble(
                    (" READ-ONLY ", "bold reverse"),
                    f" pid {holder.pid} is running it ({holder.command}): no stepping here",
                )
            )
        content = Content(" │ ").join(parts)
        if content != self._shown:
            self._shown = content
            self.update(content, layout=False)  # one line, always: no layout pass needed
        running = activity.running or activity.step_in_flight is not None
        self.set_class(running, "-running")
        idle = not running and not snapshot.finished and snapshot.escalation is None
        self.set_class(idle, "-paused")
        self.set_class(snapshot.escalation is not None and not running, "-escalated")
        self.set_class(snapshot.read_only, "-read-only")
        self.set_class(snapshot.finished, "-finished")
