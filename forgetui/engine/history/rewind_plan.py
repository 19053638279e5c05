"""Going back to the end of step N, as a rewind in place and a fork both do: whether N can be
gone back to, what it takes (N's checkpoint, the later steps' files: restore.py), and the report
of what was done. rewind.py goes back in place, fork.py into a new workspace."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from forgetui.engine.base.errors import ForgeError
from forgetui.engine.folder.checkpoints import Checkpoint, read_checkpoint
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.folder.task_state import Status, TaskState, superseded_steps
from forgetui.engine.history.restore import FilesPlan, plan_files, untracked

REWIND_COMMAND = "forgetui rewind"  # the lock's command while an in-place rewind writes


@dataclass(frozen=True)
class RewindReport:
    """What a rewind did (or, from plan_rewind, would do)."""

    to: int
    fork: bool
    folder: Path  # the task folder rewound, or the fork's new one
    workspace: Path  # `folder`'s workspace: for a fork, the new one
    source: Path  # the task folder rewound or forked from
    superseded: tuple[int, int] | None  # in place: the branch left behind
    restored: list[str]  # workspace files written back
    removed: list[str]  # workspace files the later steps created
    conflicts: list[str]  # changed by hand since the run wrote them
    untracked: list[str] = field(default_factory=list)  # steps whose commands ran
    status: str = "paused"  # the task's status after it
    done: bool = True  # False: a plan, nothing changed

    @property
    def untracked_note(self) -> str:
        """One line on what a rewind cannot restore ("" if nothing)."""
        if not self.untracked:
            return ""
        steps = ", ".join(entry.split(":", 1)[0] for entry in self.untracked)
        return f"{steps} ran commands: the files they changed have no snapshot and stay as they are"

    def describe(self) -> str:
        """One line, as the CLI and the workbench say it."""
        if self.fork:
            what = f"forked at step {self.to} into {self.workspace}"
        else:
            left = f" ({steps_text(self.superseded)} superseded)" if self.superseded else ""
            what = f"rewound to step {self.to}{left}"
        files = f"{len(self.restored)} files restored, {len(self.removed)} removed"
        return f"{what}: {files}; status {self.status}"

    def to_json(self) -> dict[str, Any]:
        return {
            "to": self.to,
            "fork": self.fork,
            "folder": str(self.folder),
            "workspace": str(self.workspace),
            "source": str(self.source),
            "superseded": list(self.superseded) if self.superseded else None,
            "restored": self.restored,
            "removed": self.removed,
            "conflicts": self.conflicts,
            "untracked": self.untracked,
            "untracked_note": self.untracked_note or None,
            "status": self.status,
            "done": self.done,
        }


class RewindConflict(ForgeError):
    """Files the run changed were changed by hand since: nothing is overwritten unless forced.
    `report` is the plan, its conflicts listed."""

    title = "changed by hand"

    def __init__(self, report: RewindReport) -> None:
        self.report = report
        names = ", ".join(report.conflicts)
        count = len(report.conflicts)
        super().__init__(
            f"rewind to step {report.to} stopped: {count} file{'s' if count > 1 else ''} "
            f"changed by hand since the run wrote {'them' if count > 1 else 'it'}: {names}; "
            "nothing changed; --force overwrites them"
        )


def steps_text(span: tuple[int, int]) -> str:
    first, last = span
    return f"step {first}" if first == last else f"steps {first}-{last}"


@dataclass(frozen=True)
class RewindPlan:
    """What going back to a step reads before anything is changed."""

    state: TaskState
    checkpoint: Checkpoint
    live: set[int]  # the steps after `to` on the live run
    files: FilesPlan
    untracked: list[str]


def plan_going_back(folder: TaskFolder, to: int, *, fork: bool) -> RewindPlan:
    """Check `to` can be gone back to and read what doing it takes. Reads only."""
    state = folder.load_state()
    task = folder.task_id
    if to < 0:
        raise ForgeError(f"--to {to}: a step number is 0 or more")
    if to > state.step:
        raise ForgeError(f"task {task} has no step {to}: it is at step {state.step}")
    gone = superseded_steps(state.rewinds)
    if to in gone:
        mark = next(m for m in state.rewinds if m.first <= to <= m.last)
        branch = steps_text((mark.first, mark.last))
        raise ForgeError(
            f"step {to} is on a branch a rewind left behind ({branch}, "
            f"superseded at {mark.at}): go back to a step of the live run"
        )
    live = {step for step in range(to + 1, state.step + 1) if step not in gone}
    if not fork:
        if not live:
            raise ForgeError(f"task {task} is at the end of step {to} already: nothing to rewind")
        _refuse_waiting_step(folder)
    checkpoint = read_checkpoint(folder.checkpoints_dir, to, task)
    # a fork plans its files on its copy of the workspace, once it is made
    files = FilesPlan({}, [], []) if fork else plan_files(folder, folder.workspace, live)
    return RewindPlan(state, checkpoint, live, files, untracked(folder, to, live))


def _refuse_waiting_step(folder: TaskFolder) -> None:
    """A step whose intent is logged but not its result (an approval waits, or a crash cut
    it) is settled first: its number would come again after the rewind."""
    last = folder.log.last_step_status()
    if last is None or last.complete:
        return
    raise ForgeError(
        f"step {last.step} ({last.intent.action}) has no result yet: approve, reject, re-run or "
        "skip it first (forgetui answer), then rewind"
    )


def status_after(checkpoint: TaskState, stepped: bool) -> Status:
    """Escalated if the step gone back to ended on a question, finished if it ended the task,
    else paused (ready: a fork at step 0, which never ran)."""
    if checkpoint.pending_escalation is not None:
        return "escalated"
    if checkpoint.finished:
        return checkpoint.status
    return "paused" if stepped else "ready"
