"""task.yaml is the operator's contract with the agent, so it is sealed: its hash is recorded in
state.yaml when the task is laid out, and a task.yaml that no longer matches stops the next step
until the operator accepts the change. An agent that rewrote its own task.yaml (to allow `bash`,
say) is then caught instead of honoured, and every accepted change is in the log.

The accepted bytes are kept beside the hash (artifacts/task.accepted.yaml) only to show the
operator what changed; the hash in state.yaml is what decides."""

from __future__ import annotations

import difflib
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from forgetui.engine.base.clock import now_iso
from forgetui.engine.base.errors import ForgeError
from forgetui.engine.base.yamlio import atomic_write_bytes, load_model, parse_yaml
from forgetui.engine.folder.records import OperatorRecord
from forgetui.engine.folder.task_spec import TaskSpec
from forgetui.engine.folder.task_state import TaskState

ACCEPTED_COPY = "artifacts/task.accepted.yaml"
_SHOWN_KEYS = 4


class TaskChangedError(ForgeError):
    """task.yaml differs from the one the operator accepted: no step runs until it is accepted."""

    title = "task.yaml changed"


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@dataclass(frozen=True)
class TaskChange:
    """What differs between the accepted task.yaml and the one on disk now."""

    task_file: Path
    accepted_sha256: str
    current_sha256: str
    keys: list[str]  # top-level keys whose values differ ([] when the old text is unknown)
    diff: str  # a unified diff, or "" when the accepted copy is gone
    # task.yaml is its accepted copy byte for byte: the digest state.yaml holds is what differs
    record_differs: bool = False

    def summary(self) -> str:
        if not self.keys:
            return "task.yaml changed"
        shown = ", ".join(self.keys[:_SHOWN_KEYS])
        more = f" and {len(self.keys) - _SHOWN_KEYS} more" if len(self.keys) > _SHOWN_KEYS else ""
        return f"task.yaml changed ({shown}{more})"

    def to_json(self) -> dict[str, Any]:
        return {
            "accepted_sha256": self.accepted_sha256,
            "current_sha256": self.current_sha256,
            "changed_keys": self.keys,
        }


def seal_new(folder_path: Path, state: TaskState) -> TaskState:
    """A task being laid out: its task.yaml, as it is now, is the accepted one."""
    task_file = folder_path / "task.yaml"
    _keep_copy(folder_path, task_file.read_bytes())
    return state.model_copy(update={"task_sha256": file_sha256(task_file)})


def pending_change(folder_path: Path, state: TaskState) -> TaskChange | None:
    """The unaccepted change to task.yaml, or None if it is the accepted one (or the task
    predates sealing: `ensure_sealed` seals it at the next writer's open)."""
    if state.task_sha256 is None:
        return None
    task_file = folder_path / "task.yaml"
    current = task_file.read_bytes()
    digest = hashlib.sha256(current).hexdigest()
    if digest == state.task_sha256:
        return None
    keys: list[str] = []
    diff = ""
    copy = folder_path / ACCEPTED_COPY
    try:
        before = copy.read_bytes()
    except OSError:
        before = None
    if before == current:
        return TaskChange(task_file, state.task_sha256, digest, [], "", record_differs=True)
    if before is not None and hashlib.sha256(before).hexdigest() == state.task_sha256:
        old_text = before.decode("utf-8", "replace")
        new_text = current.decode("utf-8", "replace")
        keys = _changed_keys(old_text, new_text, task_file)
        diff = "".join(
            difflib.unified_diff(
                old_text.splitlines(keepends=True),
                new_text.splitlines(keepends=True),
                "task.yaml (accepted)",
                "task.yaml (now)",
            )
        )
    return TaskChange(task_file, state.task_sha256, digest, keys, diff)


def refuse_if_changed(folder_path: Path, state: TaskState, task: str) -> None:
    """Raise TaskChangedError naming the change and the way out."""
    change = pending_change(folder_path, state)
    if change is not None and change.record_differs:
        raise TaskChangedError(
            f"{folder_path / 'state.yaml'}: task_sha256 matches neither task.yaml nor its "
            "accepted copy, which agree (state.yaml damaged?); no step runs until task.yaml is "
            f"accepted again. Review it, then run `forgetui accept-task-change {task}`"
        )
    if change is not None:
        raise TaskChangedError(
            f"{change.task_file}: {change.summary()} since it was accepted; no step runs on an "
            f"unaccepted task.yaml. Review it, then run `forgetui accept-task-change {task}` "
            "(or accept it in the workbench)"
        )


def accepted(folder_path: Path, state: TaskState) -> tuple[TaskState, OperatorRecord | None]:
    """state sealed to the task.yaml on disk now, and the log record saying so (None when there
    was nothing to accept). The new task.yaml must load: a broken one is never accepted."""
    task_file = folder_path / "task.yaml"
    load_model(task_file, TaskSpec)  # a StateFileError naming file:line:field if it is broken
    change = pending_change(folder_path, state)
    if change is None and state.task_sha256 is not None:
        return state, None
    data = task_file.read_bytes()
    _keep_copy(folder_path, data)
    new_state = state.model_copy(update={"task_sha256": hashlib.sha256(data).hexdigest()})
    if change is None:  # sealed for the first time: nothing changed that anyone accepted
        text = "task.yaml sealed as it is now"
        detail: dict[str, Any] = {"current_sha256": new_state.task_sha256}
    else:
        text = f"accepted: {change.summary()}"
        detail = change.to_json()
    record = OperatorRecord(
        step=state.step, at=now_iso(), op="accept_task_change", text=text, detail=detail
    )
    return new_state, record


def _keep_copy(folder_path: Path, data: bytes) -> None:
    atomic_write_bytes(folder_path / ACCEPTED_COPY, data)


def _changed_keys(old_text: str, new_text: str, path: Path) -> list[str]:
    try:
        old = parse_yaml(old_text, path)
        new = parse_yaml(new_text, path)
    except ForgeError:
        return []
    if not isinstance(old, dict) or not isinstance(new, dict):
        return []
    return [key for key in dict.fromkeys([*old, *new]) if old.get(key) != new.get(key)]
