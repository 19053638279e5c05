"""Finding, creating and mending a task: what a front end does before it works on one."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from forgetui.engine.base.errors import ForgeError
from forgetui.engine.base.yamlio import load_model
from forgetui.engine.folder.catalog import PHASES, actions_of
from forgetui.engine.folder.layout import STATE_FILE, TASK_FILE
from forgetui.engine.folder.lock import LockInfo, TaskLock
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.folder.task_spec import TaskSpec
from forgetui.engine.start.overview import TaskOverview, tasks_under

if TYPE_CHECKING:
    from forgetui.engine.context.health import ContextHealth
    from forgetui.engine.integrity.repair import Repair


def named(path: Path | str) -> Path:
    """A path the user named: an empty one (a script's unset "$TASK") is refused, never taken
    for the current directory, where it would run, rewind or repair whatever task is there."""
    if isinstance(path, str) and not path.strip():
        raise ForgeError("an empty path: name a task folder or a workspace")
    return Path(path)


def open_task(path: Path | str) -> TaskFolder:
    """A task folder, or a workspace holding exactly one task."""
    return TaskFolder.open(named(path))


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


def tasks_at(place: Path | str, nested: bool = True) -> list[Path]:
    """The task folders at a place: a task folder, a workspace's tasks, or (if `nested`) those
    of each workspace directly inside it (the run copies). TaskNotFoundError if none."""
    return tasks_under(Path(place), nested)


class TaskList:
    """The tasks at a place (a task folder, a workspace, a directory of workspaces such as the
    run copies), one overview line each: `forgetui tasks` and the workbench's task list. Kept
    between reads, it reads a task's last saved context again only once its state changed, so
    a list refreshed every second costs a stat and a lock probe per task. A task that does not
    read is listed with why, never dropped: the list is where the operator notices it."""

    def __init__(self, place: Path | str) -> None:
        self.place = named(place).expanduser()
        self._reading = threading.Lock()  # a refresh worker and an inbox's may overlap
        tasks_under(self.place)  # a place holding no task is bad input, said now
        self._folders: dict[Path, TaskFolder] = {}
        self._health: dict[Path, tuple[tuple[int, str | None], ContextHealth | None]] = {}

    def read(self) -> list[TaskOverview]:
        """Every task there now (a task created meanwhile joins, one removed leaves)."""
        with self._reading:
            return [self._read_one(path) for path in tasks_under(self.place)]

    def _read_one(self, path: Path) -> TaskOverview:
        # the readers behind the views: loaded for a list, not to find or open one task
        from forgetui.engine.api.reads import HELD_STATUSES, task_health

        try:
            folder = self._folders.get(path) or self._open(path)
            if not (path / STATE_FILE).is_file():  # hand-written: laid out when first opened
                return TaskOverview(folder.task_id, path, folder.workspace, "ready",
                                    task_type=folder.spec.task_type)  # fmt: skip
            state = folder.load_state()
            holder = folder.lock.holder()
            known = (state.step, state.updated_at)
            cached = self._health.get(path)
            if cached is not None and cached[0] == known:
                health = cached[1]
            else:
                health = task_health(folder, state, preview=False)
                self._health[path] = (known, health)
        except (ForgeError, OSError) as exc:
            self._folders.pop(path, None)
            error = exc.message if isinstance(exc, ForgeError) else f"{exc.strerror or exc}"
            return TaskOverview(path.name, path, path.parent.parent.parent, "unreadable",
                                error=error)  # fmt: skip
        running = holder is not None and state.status in HELD_STATUSES
        return TaskOverview(
            name=state.task_id,
            path=path,
            workspace=folder.workspace,
            status="running" if running else state.status,
            step=state.step,
            phase=state.phase,
            cost_usd=state.totals.cost_usd,
            holder=holder,
            health=health,
            escalation=state.pending_escalation,
            task_type=folder.spec.task_type,
        )

    def _open(self, path: Path) -> TaskFolder:
        """The folder without `TaskFolder.open`'s laying out: a list never writes."""
        folder = TaskFolder(path, load_model(path / TASK_FILE, TaskSpec))
        self._folders[path] = folder
        return folder
