"""`forgetui repair`: the fixes for what folder/consistency.py finds. `plan` only reads and says
what it would do; `apply` does it under the task lock, keeps every file it changes as
`<name>.bak-<time>` beside it, and logs an operator record saying what it did.

The log is the task's history, so where state.yaml and actions.yaml disagree the log wins:
state.yaml's step becomes the step of the log's last result. Lines of the log that are not
records are moved aside, never dropped. A state file that is empty (forgetui never writes one
so) is rewritten fresh. What repair cannot judge (a state file that is invalid rather than
empty, an alias bomb, a directory in a file's place) is left to the operator, by name."""

from __future__ import annotations

import hashlib
import os
import shutil
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from forgetui.engine.base.clock import now_iso
from forgetui.engine.base.errors import ForgeError
from forgetui.engine.base.yamlio import fsync_dir
from forgetui.engine.folder.action_log import BadLine
from forgetui.engine.folder.consistency import Survey, survey
from forgetui.engine.folder.memory import WorkingMemory
from forgetui.engine.folder.records import OperatorRecord, ResultRecord
from forgetui.engine.folder.seal import ACCEPTED_COPY
from forgetui.engine.folder.task_folder import LOG_FILE, MEMORY_FILE, STATE_FILE, TaskFolder
from forgetui.engine.folder.task_state import TaskState
from forgetui.engine.operator.views import rewind_mark

_COPY_BLOCK = 1 << 20
FixKind = Literal["torn_tail", "bad_lines", "empty_memory", "empty_state", "step"]


@dataclass(frozen=True)
class Fix:
    kind: FixKind
    text: str  # one line, as `forgetui repair` prints it


@dataclass(frozen=True)
class Repair:
    """What repair would do (or did), what it leaves to the operator, and the backups."""

    fixes: list[Fix]
    unfixable: list[str]  # one-line errors
    backups: list[str]  # file names in the task folder

    def unfixable_error(self) -> ForgeError | None:
        if not self.unfixable:
            return None
        more = len(self.unfixable) - 1
        others = f" (and {more} more)" if more else ""
        return ForgeError(f"{self.unfixable[0]}{others}; repair cannot fix this: fix it by hand")


def plan(folder: TaskFolder) -> Repair:
    """What `apply` would do now. Reads only, and parses every line of the log."""
    return Repair(_fixes(folder, survey(folder, decoded=None), "<time>"), _unfixable_of(folder), [])


def apply(folder: TaskFolder) -> Repair:
    """Make the fixes under the task lock; the lock is released whatever happens."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    torn = folder.acquire(command="forgetui repair", check=False)  # its work: files that disagree
    try:
        found = survey(folder, decoded=None)
        fixes = _fixes(folder, found, stamp)
        backups: list[str] = []
        if torn is not None:  # moved by acquire(), as every writer's open does
            fixes.insert(0, Fix("torn_tail", _torn_text(torn.offset, torn.bytes, torn.reason)))
        for fix in fixes:
            backups.extend(_make(folder, fix.kind, found, stamp))
        broken = _still_broken(folder)
        if fixes:
            step = folder.load_state().step if STATE_FILE not in broken else found.log_step
            folder.log.append(
                OperatorRecord(
                    step=step,
                    at=now_iso(),
                    op="repair",
                    text="; ".join(fix.text for fix in fixes),
                    detail={"fixes": [fix.kind for fix in fixes], "backups": backups},
                )
            )
        return Repair(fixes, [str(error) for error in broken.values()], backups)
    finally:
        folder.release()


# -- what to do ----------------------------------------------------------------------------


def _fixes(folder: TaskFolder, found: Survey, stamp: str) -> list[Fix]:
    fixes: list[Fix] = []
    if found.torn is not None:
        fixes.append(Fix("torn_tail", _torn_text(*found.torn)))
    if found.bad_lines:
        fixes.append(Fix("bad_lines", _bad_lines_text(found.bad_lines, stamp)))
    if MEMORY_FILE in found.empty:
        size = (folder.path / MEMORY_FILE).stat().st_size
        fixes.append(
            Fix("empty_memory", f"rewrite {MEMORY_FILE} as empty memory (it was {_nothing(size)})")
        )
    if STATE_FILE in found.empty:
        size = (folder.path / STATE_FILE).stat().st_size
        fixes.append(
            Fix(
                "empty_state",
                f"rewrite {STATE_FILE} as a fresh state at step {found.log_step}, the step of "
                f"{LOG_FILE}'s last result (it was {_nothing(size)}; decisions, verification "
                "and totals start afresh, the log keeps the history)",
            )
        )
    elif found.state is not None and found.mismatch is not None:
        fixes.append(Fix("step", _step_text(found.state, found.log_step)))
    return fixes


def _torn_text(offset: int, size: int, reason: str) -> str:
    return (
        f"move the torn last record of {LOG_FILE} ({size} bytes at offset {offset}, {reason}) "
        f"to {LOG_FILE}.torn"
    )


def _bad_lines_text(bad: list[BadLine], stamp: str) -> str:
    size = sum(line.size for line in bad)
    aside = f"{LOG_FILE}.bad-{stamp}"
    if len(bad) == 1:
        return (
            f"move the bad line {bad[0].line} of {LOG_FILE} aside to {aside} ({size} bytes: "
            f"{bad[0].problem})"
        )
    numbers = ", ".join(str(line.line) for line in bad[:10]) + (", ..." if len(bad) > 10 else "")
    return f"move the {len(bad)} bad lines {numbers} of {LOG_FILE} aside to {aside} ({size} bytes)"


def _step_text(state: TaskState, step: int) -> str:
    dropped = [
        f"its {what} for step {entry.step}"
        for what, entry in (("escalation", state.pending_escalation), ("answer", state.resolution))
        if entry is not None and entry.step != step + 1
    ]
    also = f", dropping {' and '.join(dropped)}" if dropped else ""
    return (
        f"set {STATE_FILE} step {state.step} → {step}, the step of {LOG_FILE}'s last result{also}"
    )


def _nothing(size: int) -> str:
    return "a 0-byte file" if size == 0 else f"{size} bytes with no YAML in them"


def _unfixable_of(folder: TaskFolder) -> list[str]:
    return [str(error) for error in _still_broken(folder).values()]


def _still_broken(folder: TaskFolder) -> dict[str, ForgeError]:
    """Files that do not load for a reason repair does not fix (not emptiness)."""
    found = survey(folder, decoded=0)
    return {name: error for name, error in found.errors.items() if name not in found.empty}


# -- doing it -------------------------------------------------------------------------------


def _make(folder: TaskFolder, kind: FixKind, found: Survey, stamp: str) -> list[str]:
    """Make one fix; returns the backups it kept."""
    if kind == "torn_tail":
        return []  # done by acquire(), as every writer's open does
    if kind == "bad_lines":
        return [_move_bad_lines(folder, found.bad_lines, stamp)]
    if kind == "empty_memory":
        backup = _backup(folder.path / MEMORY_FILE, stamp)
        folder.save_memory(WorkingMemory())
        return [backup]
    backup = _backup(folder.path / STATE_FILE, stamp)
    last = found.last_result
    if kind == "empty_state":
        folder.save_state(_fresh_state(folder, last))
        return [backup]
    assert found.state is not None
    folder.save_state(_state_at(found.state, last))
    return [backup]


def _state_at(state: TaskState, last: ResultRecord | None) -> TaskState:
    """state.yaml moved to the log's last result; an escalation or answer for another step
    than the next goes (it belonged to the step count that was wrong)."""
    step = last.step if last is not None else 0
    update: dict[str, Any] = {"step": step, "last_result": _dump(last)}
    if state.pending_escalation is not None and state.pending_escalation.step != step + 1:
        update["pending_escalation"] = None
        if state.status == "escalated":
            update["status"] = "paused"
    if state.resolution is not None and state.resolution.step != step + 1:
        update["resolution"] = None
    return state.model_copy(update=update)


def _fresh_state(folder: TaskFolder, last: ResultRecord | None) -> TaskState:
    """A new state.yaml at the log's last step, sealed to the task.yaml the operator accepted
    last (its kept copy), so an edited task.yaml still needs accepting; the branches the log's
    rewind records left behind stay superseded."""
    spec = folder.spec
    accepted = folder.path / ACCEPTED_COPY
    sealed = hashlib.sha256(accepted.read_bytes()).hexdigest() if accepted.is_file() else None
    step = last.step if last is not None else 0
    return TaskState(
        task_id=spec.id,
        phase=spec.initial_phase,
        plan=spec.plan,
        step=step,
        status="paused" if step else "ready",
        last_result=_dump(last),
        task_sha256=sealed,
        rewinds=[
            mark
            for record in folder.log.iter_records()
            if isinstance(record, OperatorRecord) and (mark := rewind_mark(record)) is not None
        ],
    )


def _dump(record: ResultRecord | None) -> dict[str, Any] | None:
    return record.model_dump(mode="json", exclude_none=True) if record is not None else None


def _move_bad_lines(folder: TaskFolder, bad: list[BadLine], stamp: str) -> str:
    """Copy the log without the bad lines to a new file, the bad lines (each under a comment
    saying where it was) to actions.yaml.bad-<time>, keep the old log as its backup (a hard
    link: no copy of a large log), then rename the new one into place."""
    path = folder.log.path
    aside = _free(path.with_name(f"{path.name}.bad-{stamp}"))
    tmp = path.with_name(f".{path.name}.{os.urandom(4).hex()}.tmp")
    try:
        with open(path, "rb") as src, open(tmp, "xb") as dst, open(aside, "xb") as out:
            pos = 0
            for line in sorted(bad, key=lambda b: b.offset):
                _copy(src, dst, pos, line.offset)
                src.seek(line.offset)
                out.write(f"# line {line.line}, offset {line.offset}: {line.problem}\n".encode())
                out.write(src.read(line.size))
                pos = line.offset + line.size
            _copy(src, dst, pos, None)
            for handle in (dst, out):
                handle.flush()
                os.fsync(handle.fileno())
        backup = _backup(path, stamp, link=True)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    fsync_dir(path.parent)
    return backup


def _copy(src: Any, dst: Any, start: int, end: int | None) -> None:
    src.seek(start)
    left = None if end is None else end - start
    while left is None or left > 0:
        chunk = src.read(_COPY_BLOCK if left is None else min(_COPY_BLOCK, left))
        if not chunk:
            return
        dst.write(chunk)
        if left is not None:
            left -= len(chunk)


def _backup(path: Path, stamp: str, link: bool = False) -> str:
    """Keep `path` as `<name>.bak-<time>` beside it; returns the backup's name."""
    backup = _free(path.with_name(f"{path.name}.bak-{stamp}"))
    if link:
        try:
            os.link(path, backup)
            return backup.name
        except OSError:
            pass  # no hard links here: a copy
    shutil.copy2(path, backup)
    return backup.name


def _free(path: Path) -> Path:
    """`path`, or `path.2`, `path.3`... if it is taken (two repairs in one second)."""
    candidate, n = path, 1
    while candidate.exists():
        n += 1
        candidate = path.with_name(f"{path.name}.{n}")
    return candidate
