"""Going back to the end of step N as a fork (what going back takes: rewind_plan.py): a new
workspace gets a copy of the files and a task folder of its own at step N; the original is not
touched. A fork only reads the original, so it takes no lock (a live run may go on): it copies
between steps and checks the log did not move meanwhile, else starts again."""

from __future__ import annotations

import os
import shutil
import stat
import time
from pathlib import Path

from forgetui.engine.base.clock import now_iso
from forgetui.engine.base.errors import ForgeError
from forgetui.engine.base.yamlio import (
    atomic_write_bytes,
    atomic_write_text,
    dump_model,
    fsync_dir,
    load_model,
)
from forgetui.engine.folder.action_log import AnyRecord, encode_record
from forgetui.engine.folder.checkpoints import checkpoint_path
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
from forgetui.engine.history.fork_words import COMMAND_LINE, ForkWords
from forgetui.engine.history.restore import plan_files, refuse_blocked, write_back
from forgetui.engine.history.rewind_plan import (
    REWIND_COMMAND,
    RewindPlan,
    RewindReport,
    plan_going_back,
    status_after,
)

# task-folder files a fork copies besides task.yaml: those it writes itself, the lock, the
# replay position (re-synced with the fork's log) and repair's leftovers stay behind
_NOT_COPIED = (STATE_FILE, MEMORY_FILE, "lock", "replay.pos")
_NOT_COPIED_PREFIXES = (LOG_FILE, ".")
_COPIED_ARTIFACTS = ("inputs", ACCEPTED_COPY.removeprefix("artifacts/"), "decisions.yaml", "args")
# a fork copying while a run steps tries again; each try waits at most _FORK_WAIT_S for a
# step to end, looking every _FORK_POLL_S
FORK_ATTEMPTS = 10
_FORK_WAIT_S, _FORK_POLL_S = 2.0, 0.01
_Mark = tuple[object, ...]  # where a task stands: see _settled


def fork_task(
    folder: TaskFolder, to: int, dest: Path | str, words: ForkWords = COMMAND_LINE
) -> RewindReport:
    """A new workspace `dest` (new, or an empty directory) holding a copy of the workspace's
    files as they were at the end of step `to`, and the task there at step `to`: its steps
    then go on from `to + 1`. The original task and workspace are not changed.

    No lock is taken: a run may step meanwhile. The workspace is copied between two steps,
    and the copy kept only if the task did not move while it was made; else it is undone and
    made again, at most FORK_ATTEMPTS times. A failure leaves nothing behind."""
    dest = _free_destination(fork_path(dest, words.fork_dir), folder.workspace, words.fork_dir)
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
            where = f"{words.fork_dir} {dest}"
            raise ForgeError(f"{where}: cannot make the fork there: {reason}") from None
        raise
    status = status_after(plan.checkpoint.state, stepped=to > 0)
    return RewindReport(
        to=to, fork=True, folder=task, workspace=dest, source=folder.path, superseded=None,
        restored=files.restored, removed=files.removed, conflicts=[],
        untracked=plan.untracked, status=status,
    )  # fmt: skip


def _copy_between_steps(folder: TaskFolder, to: int, dest: Path, made: Path | None) -> RewindPlan:
    """The plan and the workspace copy, made while no step was under way: a try starts as
    soon as one ends (the quiet before the next model call), and is kept if the task's mark
    did not move meanwhile."""
    tried: _Mark | None = None
    for _ in range(FORK_ATTEMPTS):
        before = _next_settled(folder, tried)
        if before is None:
            continue
        plan = plan_going_back(folder, to, fork=True)
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


def _free_destination(dest: Path, workspace: Path, named: str) -> Path:
    """`dest` made absolute, if a fork may be made there: a new path or an empty directory,
    outside the workspace it copies."""
    dest = dest.expanduser().absolute()
    if dest.exists() or dest.is_symlink():
        if not dest.is_dir() or dest.is_symlink():
            raise ForgeError(f"{named} {dest}: not a directory")
        if any(dest.iterdir()):
            raise ForgeError(f"{named} {dest}: not empty; a fork needs a new or empty directory")
    real, root = dest.resolve(), workspace.resolve()
    if real == root or real.is_relative_to(root):
        raise ForgeError(f"{named} {dest}: inside the workspace {root}; pick one outside it")
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


def _lay_out_fork(folder: TaskFolder, plan: RewindPlan, to: int, dest: Path) -> Path:
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
                "status": status_after(plan.checkpoint.state, stepped=to > 0),
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
