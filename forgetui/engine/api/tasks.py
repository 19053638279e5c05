"""Finding, creating and mending a task: what a front end does before it works on one."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from forgetui.engine.folder.catalog import PHASES, actions_of
from forgetui.engine.folder.lock import LockInfo, TaskLock
from forgetui.engine.folder.task_folder import TaskFolder

if TYPE_CHECKING:
    from forgetui.engine.integrity.repair import Repair


def open_task(path: Path | str) -> TaskFolder:
    """A task folder, or a workspace holding exactly one task."""
    return TaskFolder.open(Path(path))


def create_task(
    workspace: Path | str,
    goal: str,
    task_type: str = "generic",
    criteria: Sequence[str] = (),
    check_cmds: Sequence[str] = (),
    task_id: str | None = None,
    *,
    propose_check: bool = True,
    run_checks: bool = True,
    on_notice: Callable[[str], object] | None = None,
) -> TaskFolder:
    """`forgetui new`: a task from a goal, meeting the workspace as it is (new_task.py). Each
    check command becomes a command check; given none (and `propose_check`), the project's own
    test command does; the allow-list comes from the project's files; the checks then run once
    (unless not `run_checks`), as step 0. `on_notice` hears what was chosen and why, and how the
    checks went, one line each. Bad input is a ForgeError naming the flag, nothing written."""
    from forgetui.engine.start.new_task import new_task

    return new_task(
        workspace,
        goal,
        task_type,
        criteria,
        check_cmds,
        task_id,
        propose_check=propose_check,
        run_checks=run_checks,
        on_notice=on_notice,
    )


def repair_task(task: Path | str, apply: bool = False) -> Repair:
    """`forgetui repair`: what would make the task's files agree again; with `apply`, done
    (under the lock, each changed file kept as <name>.bak-<time>, logged)."""
    from forgetui.engine.integrity import repair

    folder = TaskFolder.open(Path(task))
    return repair.apply(folder) if apply else repair.plan(folder)


def unlock_task(task: Path | str) -> str:
    """`forgetui unlock`: remove the task's lock unless a live process on this host holds it
    (LockHeldError); says whose it was."""
    folder = TaskFolder.locate(Path(task))
    gone = TaskLock(folder).unlock()
    if not gone.removed:
        return f"task {folder.name} is not locked"
    info = gone.info
    if info is None:
        return f"removed an unreadable lock file from task {folder.name}"
    who = f"pid {info.pid} ({info.command or 'forgetui'}, since {info.started_at})"
    if not info.is_local:
        return (
            f"removed the lock of {who} on {info.host}; forgetui cannot see processes on "
            f"{info.host}: if that run is still going, it now shares the task with the next writer"
        )
    if info.is_alive():  # its pid was reused: the lock's flock said nobody holds it
        return (
            f"removed the lock of {who}: no process holds it (pid {info.pid} is another "
            "program now)"
        )
    return f"removed the lock of {who}: that process is gone"


def phases_of(task_type: str) -> tuple[str, ...]:
    return PHASES[task_type]


def lock_holder(folder: TaskFolder) -> LockInfo | None:
    """The live process writing this task, if any (this one included)."""
    return folder.lock.holder()


def human_prompt(phase: str) -> str:
    """What the operator is shown when they type the next action themselves."""
    from forgetui.engine.llm import HumanModel

    return HumanModel.prompt(actions_of(phase))
