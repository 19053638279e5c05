"""The task folder, `<workspace>/.agentforge/tasks/<task_id>/`: the only
place a task's state lives. Anyone may open and read it; writing needs the task lock, so a TUI
attached to another process's run reads without ever getting in its way."""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any, TypeVar

from pydantic import BaseModel

from forgetui.engine.base.clock import now_iso
from forgetui.engine.base.errors import ForgeError, StateFileError, TaskNotFoundError
from forgetui.engine.base.yamlio import (
    atomic_write_bytes,
    atomic_write_text,
    dump_model,
    dump_yaml,
    fsync_dir,
    load_model,
)
from forgetui.engine.folder import consistency
from forgetui.engine.folder.action_log import ActionLog, TornTail
from forgetui.engine.folder.artifact_files import (
    CheckOutput,
    CheckOutputs,
    ContextMessage,
    SavedContext,
    dump_exact,
)
from forgetui.engine.folder.checkpoints import CHECKPOINTS_DIR, write_checkpoint
from forgetui.engine.folder.layout import (
    ARTIFACT_DIRS,
    CHECK_OUTPUTS_FILE,
    FORGE_DIR,
    LOG_FILE,
    MEMORY_FILE,
    STATE_FILE,
    TASK_FILE,
    TASKS_DIR,
)
from forgetui.engine.folder.lock import TaskLock
from forgetui.engine.folder.memory import WorkingMemory
from forgetui.engine.folder.seal import seal_new
from forgetui.engine.folder.stored_args import stored_data
from forgetui.engine.folder.task_spec import TaskSpec
from forgetui.engine.folder.task_state import TaskState

M = TypeVar("M", bound=BaseModel)


def tasks_dir(workspace: Path) -> Path:
    return workspace / FORGE_DIR / TASKS_DIR


def find_tasks(workspace: Path) -> list[Path]:
    """Task folders under a workspace, by name (half-created ones, dot-named, are skipped)."""
    root = tasks_dir(workspace)
    if not root.is_dir():
        return []
    return sorted(
        entry
        for entry in root.iterdir()
        if not entry.name.startswith(".") and (entry / TASK_FILE).is_file()
    )


def step_name(step: int) -> str:
    return f"step-{step:06d}"


class TaskFolder:
    """One task folder. Open it with `open` or `create`; take the lock (`acquire`, or
    `with folder.lock:`) before any write."""

    def __init__(self, path: Path, spec: TaskSpec) -> None:
        self.path = path
        self.spec = spec
        self.workspace = _workspace_of(path)
        self.lock = TaskLock(path, on_take=self._check_before_writing)
        self.log = ActionLog(path / LOG_FILE, can_write=self.lock.held_by_me)
        self.artifacts = path / "artifacts"
        self.outputs_dir = self.artifacts / "outputs"
        self.snapshots_dir = self.artifacts / "snapshots"
        self.contexts_dir = self.artifacts / "contexts"
        self.checkpoints_dir = self.artifacts / CHECKPOINTS_DIR
        # file name -> ((inode, size, mtime_ns, ctime_ns), validated model)
        self._cache: dict[str, tuple[tuple[int, int, int, int], dict[str, Any]]] = {}

    def __repr__(self) -> str:
        return f"TaskFolder({str(self.path)!r})"

    @property
    def task_id(self) -> str:
        return self.spec.id

    # -- creating and opening -----------------------------------------------------------------

    @classmethod
    def create(
        cls, workspace: Path, spec: TaskSpec, memory: WorkingMemory | None = None
    ) -> TaskFolder:
        """Write a new task folder. It is built under a hidden name and renamed into place, so
        a crash never leaves a half-made task that `open` would trip over."""
        if not workspace.is_dir():
            raise ForgeError(f"{workspace}: the workspace is not a directory")
        root = tasks_dir(workspace.resolve())
        final = root / spec.id
        if final.exists():
            raise ForgeError(f"task {spec.id} already exists: {final}")
        root.mkdir(parents=True, exist_ok=True)
        building = root / f".{spec.id}.{os.urandom(4).hex()}.new"
        building.mkdir()
        try:
            atomic_write_text(building / TASK_FILE, dump_model(spec))
            _lay_out(building, spec, memory)
            if final.exists():
                raise ForgeError(f"task {spec.id} already exists: {final}")
            os.rename(building, final)
        except BaseException as exc:
            shutil.rmtree(building, ignore_errors=True)
            if isinstance(exc, OSError) and final.exists():
                raise ForgeError(f"task {spec.id} already exists: {final}") from None
            raise
        fsync_dir(root)
        return cls(final, spec)

    @classmethod
    def open(cls, path: Path) -> TaskFolder:
        """A task folder, or a workspace holding exactly one task. Validates task.yaml (a
        problem is a StateFileError naming file:line:field; nothing is rewritten)."""
        folder = cls.locate(path)
        opened = cls(folder, load_model(folder / TASK_FILE, TaskSpec))
        if not (folder / STATE_FILE).exists():
            opened._lay_out_hand_written()
        return opened

    @staticmethod
    def locate(path: Path) -> Path:
        """The task folder `path` names (a folder, its task.yaml, or a workspace holding one
        task), found without reading any file: `forgetui unlock` works on a broken task."""
        path = Path(path).expanduser()
        if not path.exists():
            raise TaskNotFoundError(f"{path}: no such task folder or workspace")
        if path.is_file() and path.name == TASK_FILE:
            path = path.parent
        if (path / TASK_FILE).is_dir():
            raise StateFileError(path / TASK_FILE, "a directory where a file should be")
        if (path / TASK_FILE).is_file():
            folder = path
        else:
            found = find_tasks(path)
            if not found:
                raise TaskNotFoundError(
                    f"{path}: not a task folder (no {TASK_FILE}) and no tasks in {tasks_dir(path)}"
                )
            if len(found) > 1:
                names = ", ".join(str(task) for task in found)
                raise ForgeError(f"{path} holds {len(found)} tasks; open one of: {names}")
            folder = found[0]
        return folder.resolve()

    def _lay_out_hand_written(self) -> None:
        """A folder holding only a hand-written task.yaml (and maybe working_memory.yaml) is
        a new task: lay out the rest, under the lock, as `create` would have."""
        self.lock.acquire(on_take=False)  # there is no state.yaml to check yet
        try:
            if not (self.path / STATE_FILE).exists():
                try:
                    _lay_out(self.path, self.spec, None)
                except OSError as exc:  # an `artifacts` file where the folder goes, say
                    where = exc.filename or self.path
                    raise ForgeError(
                        f"{where}: cannot lay out task {self.task_id}: {exc.strerror or exc}"
                    ) from None
        finally:
            self.lock.release()

    # -- writing needs the lock ---------------------------------------------------------------

    def acquire(self, command: str | None = None, *, check: bool = True) -> TornTail | None:
        """Become the task's writer: take the lock, check the files agree, and move aside a
        torn last log record (the report, if any, is for the operator). `check` False is for
        `forgetui repair` alone, whose work is files that do not agree."""
        self.lock.acquire(command, on_take=check)
        try:
            return self.log.repair()
        except BaseException:
            self.lock.release()
            raise

    def _check_before_writing(self) -> None:
        """Run whenever this process newly takes the lock (`acquire`, `with folder.lock:`):
        files a hand or a damaged disk left disagreeing stop every writer before it changes
        a byte, a torn last line included (the log moves it aside only at the first append or
        repair, after this)."""
        consistency.check(self)

    def release(self) -> None:
        self.lock.release()

    def _require_writer(self, what: str) -> None:
        if not self.lock.held_by_me():
            raise ForgeError(
                f"task {self.task_id}: cannot write {what} without the task lock (opened read-only)"
            )

    # -- state files --------------------------------------------------------------------------

    def load_state(self) -> TaskState:
        return self._load(STATE_FILE, TaskState)

    def load_memory(self) -> WorkingMemory:
        return self._load(MEMORY_FILE, WorkingMemory)

    def save_state(self, state: TaskState) -> None:
        """Write state.yaml atomically (stamping updated_at on `state`)."""
        self._require_writer(STATE_FILE)
        state.updated_at = now_iso()
        self._save(STATE_FILE, state)

    def save_memory(self, memory: WorkingMemory) -> None:
        self._require_writer(MEMORY_FILE)
        self._save(MEMORY_FILE, memory)

    def _load(self, name: str, model: type[M]) -> M:
        """Validated on every call, but a file unchanged since the last call (same inode, size
        and times; writes replace the file) is served from the cache. Returns a copy: callers
        may change it freely."""
        path = self.path / name
        key = _file_key(path)
        cached = self._cache.get(name)
        if cached is not None and key is not None and cached[0] == key:
            # Re-validating the cached plain data builds a fresh object in microseconds; a
            # deep copy of the model costs milliseconds on every step.
            return model.model_validate(cached[1])
        value = load_model(path, model, if_empty=self._if_empty())
        if key is not None:
            self._cache[name] = (key, value.model_dump(mode="json", exclude_none=True))
        return value

    def _if_empty(self) -> str:
        """What to do about a state file without content: forgetui never writes one empty, so
        it was truncated (a crash on a file system that lost the data, or a hand)."""
        return f"it was truncated; `forgetui repair {shlex.quote(str(self.path))}` can rewrite it"

    def _save(self, name: str, model: BaseModel) -> None:
        path = self.path / name
        data = stored_data(model, self.path)
        atomic_write_text(path, dump_yaml(data))
        key = _file_key(path)
        if key is not None:
            self._cache[name] = (key, data)

    def save_checkpoint(self, step: int, state: TaskState, memory: WorkingMemory) -> None:
        """Keep `state` and `memory`, about to be saved as the end of step `step`, as its
        checkpoint (checkpoints.py): what a rewind to the step restores. commit.py writes it,
        in its place in the step's order."""
        self._require_writer("a checkpoint")
        write_checkpoint(self.checkpoints_dir, step, state, memory)

    # -- artifacts ----------------------------------------------------------------------------

    def context_path(self, step: int) -> Path:
        return self.contexts_dir / f"{step_name(step)}.yaml"

    def save_context(
        self, step: int, messages: Sequence[Mapping[str, Any] | Any], meta: Mapping[str, Any]
    ) -> str:
        """Keep the exact messages sent at `step`; returns the file's path relative to the task
        folder (for the intent record's context_file)."""
        self._require_writer("a context")
        saved = SavedContext.model_validate(
            {
                "step": step,
                **meta,
                "messages": [
                    ContextMessage.model_validate(message, from_attributes=True).model_dump()
                    for message in messages
                ],
            }
        )
        path = self.context_path(step)
        kept = SavedContext.model_validate(stored_data(saved, self.path))
        atomic_write_text(path, dump_exact(kept.as_dict()))
        return path.relative_to(self.path).as_posix()

    def load_saved_context(self, step: int) -> dict[str, Any]:
        """The context saved at `step`: {"step", ...meta, "messages": [{"role", "content"}]}."""
        path = self.context_path(step)
        if not path.is_file():
            raise ForgeError(f"task {self.task_id}: no context saved for step {step} ({path})")
        return load_model(path, SavedContext).as_dict()

    def save_check_outputs(self, step: int, outputs: Mapping[str, str]) -> None:
        """Keep the full output of the checks that ran at `step`; the others keep theirs. A
        file that no longer reads is started afresh: it is for the operator, nothing depends
        on it."""
        self._require_writer("check outputs")
        path = self.outputs_dir / CHECK_OUTPUTS_FILE
        try:
            kept = load_model(path, CheckOutputs, default={}).checks
        except ForgeError:
            kept = {}
        kept.update({name: CheckOutput(step=step, output=text) for name, text in outputs.items()})
        names = {check.name for check in self.spec.checks}  # a check edited out of task.yaml goes
        kept = {name: output for name, output in kept.items() if name in names}
        atomic_write_text(path, dump_yaml(stored_data(CheckOutputs(checks=kept), None)))

    def load_check_output(self, name: str) -> CheckOutput | None:
        """The full output of check `name` at its last run, if it was kept."""
        path = self.outputs_dir / CHECK_OUTPUTS_FILE
        return load_model(path, CheckOutputs, default={}).checks.get(name)

    def snapshot(
        self, step: int, rel_path: str, before: str | bytes | None, after: str | bytes | None
    ) -> list[str]:
        """Keep a file's content before and after a change at `step`, as
        artifacts/snapshots/step-000007/<rel_path>.before/.after (a side that is None, a file
        that did not exist or was deleted, is not written). Returns paths relative to the task
        folder."""
        self._require_writer("a snapshot")
        rel = PurePosixPath(rel_path.replace("\\", "/"))
        if rel.is_absolute() or ".." in rel.parts or not rel.parts:
            raise ForgeError(f"snapshot path {rel_path!r} must be relative to the workspace")
        base = self.snapshots_dir / step_name(step)
        written: list[str] = []
        for suffix, content in ((".before", before), (".after", after)):
            if content is None:
                continue
            target = base / rel.parent / (rel.name + suffix)
            data = content.encode("utf-8") if isinstance(content, str) else content
            atomic_write_bytes(target, data)
            written.append(target.relative_to(self.path).as_posix())
        return written

    def discard_snapshots(self, paths: list[str]) -> None:
        """Take back snapshots `snapshot` returned, for a change that failed: a stale `.after`
        would read as a hand edit to a later rewind. Only paths under the snapshots go."""
        self._require_writer("a snapshot")
        for rel in paths:
            path = self.path / rel
            if path.is_relative_to(self.snapshots_dir) and ".." not in PurePosixPath(rel).parts:
                path.unlink(missing_ok=True)


def _lay_out(directory: Path, spec: TaskSpec, memory: WorkingMemory | None) -> None:
    """Everything of a new task beside its task.yaml. Files already there (a hand-written
    working_memory.yaml) are kept; state.yaml comes last, so a crash before it leaves a folder
    that is laid out again on the next open."""
    if memory is not None or not (directory / MEMORY_FILE).exists():
        atomic_write_text(directory / MEMORY_FILE, dump_model(memory or WorkingMemory()))
    if not (directory / LOG_FILE).exists():
        atomic_write_bytes(directory / LOG_FILE, b"")
    for name in ARTIFACT_DIRS:
        (directory / "artifacts" / name).mkdir(parents=True, exist_ok=True)
    state = TaskState(
        task_id=spec.id, phase=spec.initial_phase, plan=spec.plan, updated_at=now_iso()
    )
    state = seal_new(directory, state)
    _first_checkpoint(directory, state)
    atomic_write_text(directory / STATE_FILE, dump_model(state))


def _first_checkpoint(directory: Path, state: TaskState) -> None:
    """Checkpoint 0, the task as laid out: a rewind to 0 starts afresh. A hand-written
    working_memory.yaml that does not read gets none (its error comes at the first load)."""
    try:
        memory = load_model(directory / MEMORY_FILE, WorkingMemory)
    except ForgeError:
        return
    write_checkpoint(directory / "artifacts" / CHECKPOINTS_DIR, 0, state, memory)


def _workspace_of(task_folder: Path) -> Path:
    tasks = task_folder.parent
    if tasks.name != TASKS_DIR or tasks.parent.name != FORGE_DIR:
        raise ForgeError(
            f"{task_folder}: a task folder must live in <workspace>/{FORGE_DIR}/{TASKS_DIR}/"
        )
    return tasks.parent.parent


def _file_key(path: Path) -> tuple[int, int, int, int] | None:
    try:
        stat = os.stat(path)
    except FileNotFoundError:
        return None
    return (stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)
