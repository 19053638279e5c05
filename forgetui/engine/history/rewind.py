"""Going back to the end of step N: state.yaml and working memory from N's checkpoint
(checkpoints.py), every workspace file the later steps wrote from their snapshots (restore.py).

In place, the task keeps its whole log: the later steps stay as a superseded branch (a
`RewindMark` in state.yaml, an operator record in the log), shown dimmed and never again in a
context, and numbering goes on after them, so no step number, context or snapshot is reused.
As a fork, a new workspace gets a copy of the files and a task folder of its own at step N; the
original is not touched. A fork only reads the original, so it takes no lock (a live run may go
on): it copies between steps and checks the log did not move meanwhile, else starts again."""

from __future__ import annotations

import os
import shutil
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from forgetui.engine.base.clock import now_iso
from forgetui.engine.base.errors import ForgeError
from forgetui.engine.base.yamlio import (
    atomic_write_bytes,
    atomic_write_text,
    dump_model,
    fsync_dir,
    load_model,
)
from forgetui.engine.folder import consistency
from forgetui.engine.folder.action_log import AnyRecord, encode_record
from forgetui.engine.folder.checkpoints import Checkpoint, checkpoint_path, read_checkpoint
from forgetui.engine.folder.interrupts import interrupts_deferred
from forgetui.engine.folder.memory import WorkingMemory
from forgetui.engine.folder.records import OperatorRecord
from forgetui.engine.folder.seal import ACCEPTED_COPY
from forgetui.engine.folder.task_folder import (
    CHECK_OUTPUTS_FILE,
    FORGE_DIR,
    LOG_FILE,
    MEMORY_FILE,
    STATE_FILE,
    TASK_FILE,
    CheckOutputs,
    TaskFolder,
    step_name,
    tasks_dir,
)
from forgetui.engine.folder.task_state import RewindMark, Status, TaskState, superseded_steps
from forgetui.engine.history.restore import (
    FilesPlan,
    WriteBackFailed,
    plan_files,
    refuse_blocked,
    untracked,
    write_back,
)
from forgetui.engine.integrity.recovery import recover

# state.yaml fields an in-place rewind keeps as they are: numbering, what was spent, the seal,
# the log's last result, and the operator's limits
KEPT_FIELDS = (
    "step", "totals", "task_sha256", "last_result", "extra_steps", "extra_cost_usd",
    "max_steps", "max_cost_usd", "last_context_tokens", "last_prompt_tokens",
)  # fmt: skip
# task-folder files a fork copies besides task.yaml: those it writes itself, the lock, the
# replay position (re-synced with the fork's log) and repair's leftovers stay behind
_NOT_COPIED = (STATE_FILE, MEMORY_FILE, "lock", "replay.pos")
_NOT_COPIED_PREFIXES = (LOG_FILE, ".")
_COPIED_ARTIFACTS = ("inputs", ACCEPTED_COPY.removeprefix("artifacts/"), "decisions.yaml", "args")
REWIND_COMMAND = "forgetui rewind"  # the lock's command while an in-place rewind writes
# a fork copying while a run steps tries again; each try waits at most _FORK_WAIT_S for a
# step to end, looking every _FORK_POLL_S
FORK_ATTEMPTS = 10
_FORK_WAIT_S, _FORK_POLL_S = 2.0, 0.01
_Mark = tuple[object, ...]  # where a task stands: see _settled


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
            left = f" ({_steps(self.superseded)} superseded)" if self.superseded else ""
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


def _steps(span: tuple[int, int]) -> str:
    first, last = span
    return f"step {first}" if first == last else f"steps {first}-{last}"


@dataclass(frozen=True)
class _Plan:
    state: TaskState
    checkpoint: Checkpoint
    live: set[int]  # the steps after `to` on the live run
    files: FilesPlan
    untracked: list[str]


def _plan(folder: TaskFolder, to: int, *, fork: bool) -> _Plan:
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
        raise ForgeError(
            f"step {to} is on a branch a rewind left behind ({_steps((mark.first, mark.last))}, "
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
    return _Plan(state, checkpoint, live, files, untracked(folder, to, live))


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


def _status_after(checkpoint: TaskState, stepped: bool) -> Status:
    """Escalated if the step gone back to ended on a question, finished if it ended the task,
    else paused (ready: a fork at step 0, which never ran)."""
    if checkpoint.pending_escalation is not None:
        return "escalated"
    if checkpoint.finished:
        return checkpoint.status
    return "paused" if stepped else "ready"


def _report(folder: TaskFolder, to: int, plan: _Plan, *, done: bool = True) -> RewindReport:
    """An in-place rewind's report (`done`: False for a plan)."""
    return RewindReport(
        to=to,
        fork=False,
        folder=folder.path,
        workspace=folder.workspace,
        source=folder.path,
        superseded=(to + 1, plan.state.step),
        restored=plan.files.restored,
        removed=plan.files.removed,
        conflicts=list(plan.files.conflicts),
        untracked=plan.untracked,
        status=_status_after(plan.checkpoint.state, stepped=True),
        done=done,
    )


def plan_rewind(folder: TaskFolder, to: int) -> RewindReport:
    """What `rewind_task(folder, to)` would do, conflicts included; nothing is changed and no
    lock is taken (a refusal is the same ForgeError the rewind would raise)."""
    return _report(folder, to, _plan(folder, to, fork=False), done=False)


def rewind_task(folder: TaskFolder, to: int, *, force: bool = False) -> RewindReport:
    """Back to the end of step `to`, in place, under the task lock (refused while another
    process holds it, naming it). Files changed by hand since the run wrote them stop it
    (RewindConflict, nothing changed) unless `force`."""
    folder.acquire(REWIND_COMMAND)
    try:
        consistency.check(folder)
        recover(folder)  # as every writer: a crash's missing result comes back from state.yaml
        plan = _plan(folder, to, fork=False)
        refuse_blocked(plan.files, folder.workspace)  # every file, before any is written
        if plan.files.conflicts and not force:
            raise RewindConflict(_report(folder, to, plan, done=False))
        state, last = plan.state, plan.state.step
        mark = RewindMark(to=to, first=to + 1, last=last, at=now_iso())
        kept = {name: getattr(state, name) for name in KEPT_FIELDS}
        rewound = plan.checkpoint.state.model_copy(
            update={
                **kept,
                "status": _status_after(plan.checkpoint.state, stepped=True),
                "resolution": None,
                "rewinds": [*state.rewinds, mark],
            }
        )
        report = _report(folder, to, plan)
        record = OperatorRecord(
            step=last,
            at=mark.at,
            op="rewind",
            text=f"rewind → step {to} ({_steps((mark.first, mark.last))} superseded)",
            detail={
                "to": to,
                "superseded": [mark.first, mark.last],
                "restored": report.restored,
                "removed": report.removed,
                "forced": report.conflicts,
            },
        )
        with interrupts_deferred():  # the files, then the three that describe the same rewind
            try:
                write_back(folder.workspace, plan.files.targets)
            except WriteBackFailed as failed:
                folder.log.append(_failed_record(last, to, failed))
                stays = f"the task stays at step {last}"
                if failed.left:
                    stays += " and those files do not match it: rewind again once it can write"
                raise ForgeError(
                    f"rewind to step {to} stopped: {failed.message}; {stays}"
                ) from None
            folder.save_memory(_shifted(plan.checkpoint.memory, last - to))
            folder.save_state(rewound)
            folder.log.append(record)
        return report
    finally:
        folder.release()


def _failed_record(last: int, to: int, failed: WriteBackFailed) -> OperatorRecord:
    """What a rewind that could not write its files did, for the log: state.yaml did not
    move, and the files it could not put back (if any) are named."""
    return OperatorRecord(
        step=last,
        at=now_iso(),
        op="rewind_failed",
        text=f"rewind → step {to} failed: {failed.message}",
        detail={
            "to": to,
            "failed": failed.rel,
            "reason": failed.reason,
            "written": failed.written,
            "not_put_back": failed.left,
        },
    )


def _shifted(memory: WorkingMemory, by: int) -> WorkingMemory:
    """Memory at step N, dated as if added `by` steps later: the next step is `by` steps on,
    and each item's term goes on from where it stood at N."""
    items = [
        item if item.step is None else item.model_copy(update={"step": item.step + by})
        for item in memory.items
    ]
    return memory.model_copy(update={"items": items})


# --- a fork ----------------------------------------------------------------------------------


def fork_task(folder: TaskFolder, to: int, dest: Path | str) -> RewindReport:
    """A new workspace `dest` (new, or an empty directory) holding a copy of the workspace's
    files as they were at the end of step `to`, and the task there at step `to`: its steps
    then go on from `to + 1`. The original task and workspace are not changed.

    No lock is taken: a run may step meanwhile. The workspace is copied between two steps,
    and the copy kept only if the task did not move while it was made; else it is undone and
    made again, at most FORK_ATTEMPTS times. A failure leaves nothing behind."""
    dest = _free_destination(fork_path(dest), folder.workspace)
    made = outermost_missing(dest)
    try:
        plan = _copy_between_steps(folder, to, dest, made)
        files = plan_files(folder, dest, plan.live)  # the copy: the original's hand edits too
        refuse_blocked(files, dest)
        write_back(dest, files.targets)
        task = _lay_out_fork(folder, plan, to, dest)  # what it reads, later steps never change
    except BaseException as exc:
        undo_fork(dest, made)
        if isinstance(exc, OSError):
            reason = _os_reason(exc, dest)
            raise ForgeError(f"--fork {dest}: cannot make the fork there: {reason}") from None
        raise
    status = _status_after(plan.checkpoint.state, stepped=to > 0)
    return RewindReport(
        to=to, fork=True, folder=task, workspace=dest, source=folder.path, superseded=None,
        restored=files.restored, removed=files.removed, conflicts=[],
        untracked=plan.untracked, status=status,
    )  # fmt: skip


def _copy_between_steps(folder: TaskFolder, to: int, dest: Path, made: Path | None) -> _Plan:
    """The plan and the workspace copy, made while no step was under way: a try starts as
    soon as one ends (the quiet before the next model call), and is kept if the task's mark
    did not move meanwhile."""
    tried: _Mark | None = None
    for _ in range(FORK_ATTEMPTS):
        before = _next_settled(folder, tried)
        if before is None:
            continue
        plan = _plan(folder, to, fork=True)
        dest.mkdir(parents=True, exist_ok=True)
        _copy_workspace(folder.workspace, dest)
        if _settled(folder) == before:
            return plan
        undo_fork(dest, made)
        tried = before
    raise ForgeError(
        f"task {folder.task_id} kept changing while it was forked ({FORK_ATTEMPTS} tries; a run "
        "is stepping): nothing made; fork again when it pauses"
    )


def _next_settled(folder: TaskFolder, tried: _Mark | None) -> _Mark | None:
    """The task's mark once no step is under way and it differs from `tried` (the one a try
    that failed started from: the next quiet begins when a step ends); None if that does not
    come within _FORK_WAIT_S."""
    deadline = time.monotonic() + _FORK_WAIT_S
    while True:
        mark = _settled(folder)
        if mark is not None and mark != tried:
            return mark
        if time.monotonic() >= deadline:
            return None
        time.sleep(_FORK_POLL_S)


def _settled(folder: TaskFolder) -> _Mark | None:
    """A mark of where the task stands, or None while a step or a rewind is under way. A run
    logs a step's intent before it touches the workspace (an answered approval saves
    state.yaml first), and an in-place rewind holds the lock as REWIND_COMMAND while it
    writes: the same mark before and after a copy means no write landed in between."""
    holder = folder.lock.holder()
    if holder is not None and holder.command == REWIND_COMMAND:
        return None
    last = folder.log.last_step_status()
    if holder is not None and last is not None and not last.complete:
        state = folder.load_state()
        if state.status != "escalated" or state.resolution is not None:
            return None  # a step's intent logged, its result not yet: it may be writing files
    return (holder, _identity(folder.log.path), _identity(folder.path / STATE_FILE))


def _identity(path: Path) -> tuple[int, int, int] | None:
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    return (info.st_ino, info.st_size, info.st_mtime_ns)


def fork_path(dest: Path | str, flag: str = "--fork") -> Path:
    """A blank name is a mistake (a script's unset "$DIR"), never the current directory."""
    if not str(dest).strip():
        raise ForgeError(f"{flag}: an empty path; name the directory for the fork")
    return Path(dest)


def outermost_missing(dest: Path) -> Path | None:
    """The first directory on the way to `dest` a fork would make (None: `dest` exists):
    what undoing a fork removes."""
    missing = None
    for path in (dest, *dest.parents):
        if path.exists() or path.is_symlink():
            break
        missing = path
    return missing


def _os_reason(exc: OSError, dest: Path) -> str:
    """One line: the reason, and the file when it is not `dest` itself (copytree's error
    lists every file it could not copy: the first is named)."""
    if isinstance(exc, shutil.Error) and exc.args and isinstance(exc.args[0], list):
        failures = exc.args[0]
        source, _copy, why = failures[0]
        more = f" and {len(failures) - 1} more" if len(failures) > 1 else ""
        return f"cannot copy {source}{more}: {why}"
    where = exc.filename if exc.filename and str(exc.filename) != str(dest) else None
    reason = exc.strerror or str(exc).splitlines()[0]
    return f"{reason} ({where})" if where else reason


def _free_destination(dest: Path, workspace: Path) -> Path:
    """`dest` made absolute, if a fork may be made there: a new path or an empty directory,
    outside the workspace it copies."""
    dest = dest.expanduser().absolute()
    if dest.exists() or dest.is_symlink():
        if not dest.is_dir() or dest.is_symlink():
            raise ForgeError(f"--fork {dest}: not a directory")
        if any(dest.iterdir()):
            raise ForgeError(f"--fork {dest}: not empty; a fork needs a new or empty directory")
    real, root = dest.resolve(), workspace.resolve()
    if real == root or real.is_relative_to(root):
        raise ForgeError(f"--fork {dest}: inside the workspace {root}; pick a directory outside it")
    return dest


def _copy_workspace(src: Path, dest: Path) -> None:
    """The user's files, byte for byte with their modes (links as links): everything but the
    task folders under .agentforge/ and what is no file (a socket, a FIFO)."""

    def ignored(directory: str, names: list[str]) -> set[str]:
        skip = {FORGE_DIR} if Path(directory) == src else set()
        for name in names:
            try:
                mode = os.lstat(os.path.join(directory, name)).st_mode
            except OSError:
                skip.add(name)
                continue
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode)):
                skip.add(name)
        return skip

    shutil.copytree(src, dest, symlinks=True, ignore=ignored, dirs_exist_ok=True)


def undo_fork(dest: Path, made: Path | None) -> None:
    """A failed fork leaves nothing: the directories it made, or what it put in an empty one."""
    if made is not None:
        shutil.rmtree(made, ignore_errors=True)
        return
    if not dest.is_dir() or dest.is_symlink():
        return
    for entry in dest.iterdir():
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)


def _lay_out_fork(folder: TaskFolder, plan: _Plan, to: int, dest: Path) -> Path:
    """The fork's task folder, built under a hidden name and renamed into place (as
    TaskFolder.create does): task.yaml byte for byte, state and memory from the checkpoint, the
    log to the end of step `to` and the artifacts of steps up to it. Sealed as the original
    is: a task.yaml change not yet accepted there is not accepted here either."""
    root = tasks_dir(dest)
    root.mkdir(parents=True, exist_ok=True)
    final = root / folder.task_id
    building = root / f".{folder.task_id}.{os.urandom(4).hex()}.new"
    building.mkdir()
    try:
        _copy_task_files(folder.path, building)
        _copy_artifacts(folder, building, to)
        records = [*_records_to(folder, to), _fork_record(folder, to)]
        atomic_write_bytes(building / LOG_FILE, b"".join(map(encode_record, records)))
        atomic_write_text(building / MEMORY_FILE, dump_model(plan.checkpoint.memory))
        state = plan.checkpoint.state.model_copy(
            update={
                "status": _status_after(plan.checkpoint.state, stepped=to > 0),
                "resolution": None,
                "task_sha256": plan.state.task_sha256,
                "updated_at": now_iso(),
            }
        )
        atomic_write_text(building / STATE_FILE, dump_model(state))  # last, as a layout's is
        os.rename(building, final)
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise
    fsync_dir(root)
    return final


def _copy_task_files(source: Path, target: Path) -> None:
    """task.yaml and the files beside it a task brings (a replay script), byte for byte."""
    for entry in source.iterdir():
        name = entry.name
        if name in _NOT_COPIED or name.startswith(_NOT_COPIED_PREFIXES) or ".bak-" in name:
            continue
        if entry.is_file() and not entry.is_symlink():
            shutil.copy2(entry, target / name)
    if not (target / TASK_FILE).is_file():
        raise ForgeError(f"{source / TASK_FILE}: missing; cannot fork the task")


def _copy_artifacts(folder: TaskFolder, target: Path, to: int) -> None:
    """The artifacts of steps up to `to`: their contexts, snapshots and checkpoints, the
    check outputs of those steps, and what is no step's (inputs, the accepted task.yaml, folded
    decisions)."""
    artifacts = target / "artifacts"
    for name in ("outputs", "snapshots", "contexts", "checkpoints"):
        (artifacts / name).mkdir(parents=True, exist_ok=True)
    for name in _COPIED_ARTIFACTS:
        source = folder.artifacts / name
        if source.is_dir():
            shutil.copytree(source, artifacts / name, symlinks=True, dirs_exist_ok=True)
        elif source.is_file():
            shutil.copy2(source, artifacts / name)
    for step in range(to + 1):
        for source, copy in (
            (folder.context_path(step), artifacts / "contexts" / f"{step_name(step)}.yaml"),
            (
                checkpoint_path(folder.checkpoints_dir, step),
                checkpoint_path(artifacts / "checkpoints", step),
            ),
        ):
            if source.is_file():
                shutil.copy2(source, copy)
        snapshots = folder.snapshots_dir / step_name(step)
        if snapshots.is_dir():
            shutil.copytree(snapshots, artifacts / "snapshots" / step_name(step), symlinks=True)
    outputs = folder.outputs_dir / CHECK_OUTPUTS_FILE
    kept = load_model(outputs, CheckOutputs, default={}).checks if outputs.is_file() else {}
    earlier = {name: output for name, output in kept.items() if output.step <= to}
    if earlier:
        atomic_write_text(
            artifacts / "outputs" / CHECK_OUTPUTS_FILE, dump_model(CheckOutputs(checks=earlier))
        )


def _records_to(folder: TaskFolder, to: int) -> list[AnyRecord]:
    """The log to the end of step `to`: its result and the operator records after it, up to
    the first record of a later step."""
    kept: list[AnyRecord] = []
    for record in folder.log.iter_records():
        if record.kind != "operator" and record.step > to:
            break
        kept.append(record)
    return kept


def _fork_record(folder: TaskFolder, to: int) -> OperatorRecord:
    return OperatorRecord(
        step=to,
        at=now_iso(),
        op="fork",
        text=f"forked from {folder.path} at the end of step {to}",
        detail={"from": str(folder.path), "to": to},
    )
