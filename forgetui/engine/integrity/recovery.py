"""Crash recovery: bring the log and state.yaml into agreement when a
writer opens a task that a crashed run left behind."""

from __future__ import annotations

import contextlib
import os
import posixpath
import re
import stat
from pathlib import Path
from typing import Any

from forgetui.engine.folder import policy
from forgetui.engine.folder.catalog import ACTIONS
from forgetui.engine.folder.lock import pid_alive
from forgetui.engine.folder.records import IntentRecord, ResultRecord
from forgetui.engine.folder.task_folder import TaskFolder, step_name
from forgetui.engine.folder.task_state import TaskState
from forgetui.engine.sandbox import SandboxError
from forgetui.engine.workspace.confined_open import open_read

# the temporaries of workspace/safe_write.py
_SAFE_WRITE_TEMP = re.compile(r"\.forgetui-[0-9a-f]{16}\.tmp")


def recover(folder: TaskFolder) -> tuple[list[str], bool]:
    """Repair what a crash left; returns notices for the operator and whether a replay
    script's position must be re-synced with the log."""
    state = folder.load_state()
    _remove_stale_temporaries(folder, state.step)
    if state.finished:  # the operator ended it (a waiting action's step stays unrecorded);
        # the last step's own result, which a torn log line lost, still comes back
        own = state.last_result is not None and state.last_result.get("step") == state.step
        restored = _restore_result(folder, state) if own else None
        return ([restored] if restored else []), False
    if state.status == "running":  # the run that said so is gone
        state.status = "paused"
        folder.save_state(state)
    notices = _memory_agrees(folder, state)
    restored = _restore_result(folder, state)
    if restored is not None:
        return [*notices, restored], False
    last = folder.log.last_step_status()
    intent, result = last if last else (None, None)
    if intent is None or result is not None or intent.step != state.step + 1:
        return notices, True
    pending = state.pending_escalation
    if (pending and pending.step == intent.step) or (
        state.resolution and state.resolution.step == intent.step
    ):
        return notices, False  # waiting on the operator, or already answered: not interrupted
    done = _what_it_did(folder, intent.step, intent.action)
    escalation = policy.interrupted(intent.step, intent.action, intent.args, done)
    folder.save_state(
        state.model_copy(update={"pending_escalation": escalation, "status": "escalated"})
    )
    return [*notices, f"step {intent.step} was interrupted: escalated (re-run or skip)"], True


def _restore_result(folder: TaskFolder, state: TaskState) -> str | None:
    """The step finished and state was saved, but its result never reached the log (or the
    crash tore its line): append it from state.yaml."""
    logged = folder.log.tail(1, kinds=("result",))
    if state.last_result and (not logged or logged[0].step < state.step):
        folder.log.append(ResultRecord.model_validate(state.last_result))
        return f"step {state.step}: result restored to the log from state.yaml"
    return None


def _memory_agrees(folder: TaskFolder, state: TaskState) -> list[str]:
    """Working memory is saved just before state.yaml: if a step stopped between the two, the
    memory holds the result of a step that state and the log never recorded. Drop it, so the
    three files describe the same last step."""
    memory = folder.load_memory()
    ahead = [
        item
        for item in memory.items
        if item.type == "action_result" and (item.step or 0) > state.step
    ]
    if not ahead:
        return []
    kept = [item for item in memory.items if item not in ahead]
    folder.save_memory(memory.model_copy(update={"items": kept}))
    return [f"working memory brought back in line with step {state.step}"]


def _what_it_did(folder: TaskFolder, step: int, action: str) -> str:
    """Whether the interrupted action had got as far as changing files, from the snapshots it
    leaves before each change (a file that holds its `.after` was changed): re-running a write
    or a command is then a choice, not a surprise."""
    snapshots = folder.snapshots_dir / step_name(step)
    kept = {
        path.relative_to(snapshots).as_posix().removesuffix(".after"): path
        for path in (snapshots.rglob("*.after") if snapshots.is_dir() else ())
    }
    changed = sorted(rel for rel, path in kept.items() if _holds(folder, rel, path))
    if changed:
        return f"it had already changed {', '.join(changed)}"
    if action == "run_cmd":
        return "the command may have run in part or in full: its output was not recorded"
    if ACTIONS.get(action) is not None and ACTIONS[action].changes_workspace:
        return "it had not changed any file yet"
    return "it changes no file, so re-running it is safe"


def _holds(folder: TaskFolder, rel: str, snapshot: Path) -> bool:
    """Whether the workspace file is byte for byte the snapshot. The workspace is the agent's:
    opened without following a link, only a plain file, read no further than the snapshot."""
    try:
        expected = snapshot.read_bytes()
        fd = open_read(folder.workspace.resolve(), folder.workspace / rel)
    except (OSError, SandboxError):
        return False
    with os.fdopen(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        return file.read(len(expected) + 1) == expected


def landed_write(
    folder: TaskFolder, step: int, action: str, args: dict[str, Any]
) -> tuple[str, str] | None:
    """A write_file/edit_file that a crash interrupted after it landed: the file is byte for
    byte its `.after` snapshot of that step. Re-running it would fail (edit_file's `old` is
    gone) or do nothing, so the re-run records what it had done instead: (path, summary)."""
    rel = _target_rel(args.get("path"))
    if action not in ("write_file", "edit_file") or rel is None:
        return None
    if not _holds(folder, rel, folder.snapshots_dir / step_name(step) / f"{rel}.after"):
        return None
    return rel, f"{action} {rel}: already applied before the interruption (not run again)"


def _remove_stale_temporaries(folder: TaskFolder, step: int) -> None:
    """The temporary files of atomic writes (`.state.yaml.k3j9x2.tmp`) a killed writer left.
    Only the lock holder writes in the task folder, so under the lock each one is stale; a
    `.lock.PID.*.tmp` is a would-be writer's and goes only once PID is gone. Looked for where a
    step writes: the folder, artifacts/, its outputs, contexts and checkpoints, and the
    snapshots of the last two steps (never the whole snapshot tree, which grows with every
    step)."""
    places = [
        folder.path,
        folder.artifacts,
        folder.outputs_dir,
        folder.contexts_dir,
        folder.checkpoints_dir,
    ]
    found: list[Path] = []
    for place in places:
        with contextlib.suppress(OSError):
            found.extend(path for path in place.iterdir() if _is_temporary(path.name))
    for number in (step, step + 1):
        snapshots = folder.snapshots_dir / step_name(number)
        if snapshots.is_dir():
            found.extend(path for path in snapshots.rglob(".*.tmp") if path.is_file())
    found.extend(_workspace_temporaries(folder, step))
    for path in found:
        if path.name.startswith(".lock."):
            pid = path.name.split(".")[2]
            if not pid.isdigit() or pid_alive(int(pid)):
                continue
        with contextlib.suppress(OSError):
            path.unlink()


def _workspace_temporaries(folder: TaskFolder, step: int) -> list[Path]:
    """The temporary file a write_file/edit_file killed mid-write left beside its target
    (safe_write's `.forgetui-<16 hex>.tmp`): looked for only in the directory of the last
    step's target, since the workspace is the user's and may be large."""
    intent = folder.log.last_of_kind("intent")
    if not isinstance(intent, IntentRecord) or intent.step < step:
        return []
    if intent.action not in ("write_file", "edit_file"):
        return []
    rel = _target_rel(intent.args.get("path"))
    if rel is None:
        return []
    directory = (folder.workspace / rel).parent
    try:
        return [entry for entry in directory.iterdir() if _SAFE_WRITE_TEMP.fullmatch(entry.name)]
    except OSError:
        return []


def _target_rel(path: object) -> str | None:
    """A write's `path` argument as a workspace-relative posix path; None if it leaves."""
    if not isinstance(path, str):
        return None
    rel = posixpath.normpath(path.replace("\\", "/"))
    if rel.startswith(("/", "../")) or rel in ("..", "."):
        return None
    return rel


def _is_temporary(name: str) -> bool:
    return name.startswith(".") and name.endswith(".tmp")
