"""The workspace files as they stood at the end of step N, from the snapshots write_file and
edit_file keep (store.py `snapshot`): what a rewind writes back, and what it must not overwrite.

A file the steps after N touched goes back to the `.before` of the earliest of them (or away,
if that step created it). The run left it as the `.after` of the latest; if it differs from that
now, someone changed it by hand since, and a rewind stops unless forced. Commands (run_cmd) are
not snapshotted: what they changed is named, never guessed at."""

from __future__ import annotations

import os
import stat
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from forgetui.engine.catalog import action_target
from forgetui.engine.errors import ForgeError
from forgetui.engine.records import ResultRecord
from forgetui.engine.safe_write import open_write_target
from forgetui.engine.store import TaskFolder, step_name
from forgetui.engine.workspace import FileProblem

SIDES = (".before", ".after")
UNTRACKED_ACTIONS = frozenset({"run_cmd"})  # change files without a snapshot
NOT_RUN = frozenset({"blocked", "refused", "skipped"})  # results of actions that never ran

OnDisk = bytes | None | Literal[False]  # the bytes, None: no file, False: not a plain file


@dataclass(frozen=True)
class FilesPlan:
    """What bringing a workspace back to the end of a step does."""

    targets: dict[str, bytes | None]  # rel -> content to write (None: remove), changed only
    conflicts: list[str]  # changed by hand since the run last wrote them
    blocked: list[str]  # something other than a plain file is there: never overwritten

    @property
    def restored(self) -> list[str]:
        return sorted(rel for rel, content in self.targets.items() if content is not None)

    @property
    def removed(self) -> list[str]:
        return sorted(rel for rel, content in self.targets.items() if content is None)


def touched(folder: TaskFolder, steps: Collection[int]) -> dict[str, tuple[int, int]]:
    """rel -> (the first, the last) of `steps` whose snapshots hold the file."""
    try:
        entries = [entry.name for entry in os.scandir(folder.snapshots_dir) if entry.is_dir()]
    except FileNotFoundError:
        return {}
    numbers = sorted(
        number
        for name in entries
        if name.startswith("step-") and name[5:].isdigit() and (number := int(name[5:])) in steps
    )
    found: dict[str, tuple[int, int]] = {}
    for step in numbers:
        base = folder.snapshots_dir / step_name(step)
        for path in base.rglob("*"):
            name = path.relative_to(base).as_posix()
            side = next((side for side in SIDES if name.endswith(side)), None)
            if side is None or not path.is_file():
                continue  # an atomic write's leftover temporary
            rel = name.removesuffix(side)
            found[rel] = (found.get(rel, (step, step))[0], step)
    return found


def snapshot_bytes(folder: TaskFolder, step: int, rel: str, side: str) -> bytes | None:
    """A snapshot's bytes; None when that side was not kept (the file did not exist)."""
    try:
        return (folder.snapshots_dir / step_name(step) / f"{rel}{side}").read_bytes()
    except FileNotFoundError:
        return None


def on_disk(workspace: Path, rel: str) -> OnDisk:
    """A workspace file's bytes, None if there is none, False if a directory, a link or a file
    with other hard links is in its place (a write would be refused there)."""
    path = workspace / rel
    try:
        info = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    if not stat.S_ISREG(info.st_mode) or info.st_nlink > 1:
        return False
    try:
        return path.read_bytes()
    except OSError:
        return False


def plan_files(folder: TaskFolder, workspace: Path, steps: Collection[int]) -> FilesPlan:
    """What `workspace` needs to look as it did before `steps` (the live steps after the one
    rewound to) changed it."""
    targets: dict[str, bytes | None] = {}
    conflicts: list[str] = []
    blocked: list[str] = []
    for rel, (first, last) in sorted(touched(folder, steps).items()):
        target = snapshot_bytes(folder, first, rel, ".before")
        now = on_disk(workspace, rel)
        if now is False:
            blocked.append(rel)
            continue
        if now == target:
            continue
        targets[rel] = target
        if now != snapshot_bytes(folder, last, rel, ".after"):
            conflicts.append(rel)
    return FilesPlan(targets, conflicts, blocked)


def refuse_blocked(blocked: list[str], workspace: Path) -> None:
    """Never overwrite what is not a plain file: the operator moves it first."""
    if blocked:
        more = f" and {len(blocked) - 5} more" if len(blocked) > 5 else ""
        names = ", ".join(blocked[:5]) + more
        raise ForgeError(
            f"{workspace}: {names}: not a plain file now (a directory, a link or a hard-linked "
            "file): move it away first; nothing changed"
        )


def write_back(workspace: Path, targets: Mapping[str, bytes | None]) -> None:
    """Put each file's content back (None: remove it), through the writes that never follow
    a link. Every content is checked first, so a bad snapshot stops it before any change."""
    texts: dict[str, str | None] = {}
    for rel, content in targets.items():
        try:
            texts[rel] = None if content is None else content.decode("utf-8")
        except UnicodeDecodeError:
            raise ForgeError(f"the snapshot of {rel} is not UTF-8 text; nothing changed") from None
    for rel, text in sorted(texts.items()):
        if text is None:
            _remove(workspace, rel)
            continue
        with open_write_target(workspace, rel, create_dirs=True) as target:
            target.replace(text)


def _remove(workspace: Path, rel: str) -> None:
    try:
        with open_write_target(workspace, rel, create_dirs=False) as target:
            if target.existing is not None:
                os.unlink(target.name, dir_fd=target.dir_fd)
    except FileProblem:  # its directory is gone, so is the file
        pass


def untracked(folder: TaskFolder, to: int, steps: Collection[int]) -> list[str]:
    """The steps among `steps` whose commands ran: what they changed has no snapshot and
    stays as it is. Reads the log back to step `to`."""
    found: list[str] = []
    for record in folder.log.iter_backwards(("result",)):
        if not isinstance(record, ResultRecord):
            continue
        if record.step in steps:
            if record.action in UNTRACKED_ACTIONS and record.result not in NOT_RUN:
                found.append(f"step {record.step}: {record.action} {action_target(record.args)}")
        elif record.step <= to:
            break
    return found[::-1]
