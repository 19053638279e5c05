"""Several tasks at a glance: where the tasks under a place are, and one line of each.

A place is a task folder, a workspace (its tasks), or a directory of workspaces such as the
run copies (each one's tasks): an operator supervising several runs points at any of them. The
line is what the operator needs to decide where to look next: status, step, cost, how full the
context runs and the question waiting, if any. Reading it is bounded per task (state.yaml, the
lock, one saved context): the log is never scanned, so a list of long runs stays quick."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from forgetui.engine.base.errors import TaskNotFoundError
from forgetui.engine.context.health import ContextHealth, SectionHealth
from forgetui.engine.folder.layout import TASK_FILE
from forgetui.engine.folder.lock_file import LockInfo
from forgetui.engine.folder.task_folder import find_tasks, tasks_dir
from forgetui.engine.folder.task_state import Escalation
from forgetui.engine.step.reports import escalation_json


@dataclass(frozen=True)
class TaskOverview:
    """One task's line. `status` is `status --json`'s word ("running" while a process holds
    it); `error` says why a task that does not read shows no more than its name."""

    name: str
    path: Path
    workspace: Path
    status: str
    step: int = 0
    phase: str = ""
    cost_usd: float = 0.0
    holder: LockInfo | None = None
    health: ContextHealth | None = None
    escalation: Escalation | None = None  # the question waiting for the operator
    task_type: str = ""
    error: str | None = None

    @property
    def worst(self) -> SectionHealth | None:
        """The section fullest against its budget: the header's warning, whatever its level."""
        if self.health is None:
            return None
        return max(self.health.sections, key=lambda section: section.share, default=None)

    @property
    def status_text(self) -> str:
        """The status as `status` says it, with who runs it."""
        holder = self.holder
        return f"{self.status} (pid {holder.pid})" if holder is not None else self.status

    @property
    def context_text(self) -> str:
        """The fullest section against its budget ("" before any context was sent)."""
        worst = self.worst
        return "" if worst is None else f"{worst.name} {int(worst.percent)}%"

    def question_line(self, width: int) -> str:
        """Why the task does not read, else the question waiting: its first words, one line."""
        if self.error is not None:
            text = self.error
        else:
            text = self.escalation.question if self.escalation is not None else ""
        words = " ".join(text.split())
        return words if len(words) <= width else words[: width - 1] + "…"

    def workspace_from(self, place: Path) -> str:
        """The workspace, relative to where the list was asked for when it is inside it."""
        try:
            inside = self.workspace.relative_to(place.resolve())
        except ValueError:
            return str(self.workspace)
        return "." if inside == Path() else str(inside)

    def to_json(self) -> dict[str, Any]:
        """One task of `tasks --json`."""
        holder, health, worst = self.holder, self.health, self.worst
        return {
            "name": self.name,
            "path": str(self.path),
            "workspace": str(self.workspace),
            "status": self.status,
            "in_use_by": None if holder is None else holder.who(),
            "phase": self.phase,
            "step": self.step,
            "cost_usd": round(self.cost_usd, 6),
            "health": None
            if health is None
            else {
                "step": health.step,
                "percent": health.percent,
                "level": health.level,
                "worst_section": None
                if worst is None
                else {"name": worst.name, "percent": worst.percent, "level": worst.level},
            },
            "pending_escalation": escalation_json(self.escalation),
            "error": self.error,
        }


def tasks_under(place: Path, nested: bool = True) -> list[Path]:
    """The task folders at `place`: itself, a workspace's tasks, or (if `nested`) the tasks of
    each workspace directly inside it, by workspace then task: an order that stays while tasks
    run. Nothing is read but directory entries; TaskNotFoundError if there is no task."""
    place = Path(place).expanduser()
    if not place.is_dir():
        if place.is_file() and place.name == TASK_FILE:
            return [place.parent.resolve()]
        raise TaskNotFoundError(f"{place}: no such task folder or workspace")
    if (place / TASK_FILE).is_file():
        return [place.resolve()]
    found = find_tasks(place)
    if not found and nested:
        found = [task for child in sorted(_children(place)) for task in find_tasks(child)]
    if not found:
        raise TaskNotFoundError(
            f"{place}: no tasks here (no {TASK_FILE}, nothing in {tasks_dir(place)}, "
            "no workspace holding tasks inside it)"
        )
    return [task.resolve() for task in found]


def _children(place: Path) -> list[Path]:
    try:
        entries = list(place.iterdir())
    except OSError:
        return []
    return [entry for entry in entries if not entry.name.startswith(".") and entry.is_dir()]
