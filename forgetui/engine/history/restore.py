"""The workspace files as they stood at the end of step N, from the snapshots write_file and
edit_file keep (`TaskFolder.snapshot`): what a rewind writes back, and what it must not overwrite.

A file the steps after N touched goes back to the `.before` of the earliest of them (or away,
if that step created it). The run left it as the `.after` of the latest; if it differs from that
now, someone changed it by hand since, and a rewind stops unless forced. Commands (run_cmd) are
not snapshotted: what they changed is named, never guessed at.

Every path is looked at without following a link, parents included: a command can put a link
where a directory was, and what lies behind it is not the workspace's."""

from __future__ import annotations

import os
import stat
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from forgetui.engine.base.errors import ForgeError
from forgetui.engine.folder.catalog import action_target
from forgetui.engine.folder.records import ResultRecord
from forgetui.engine.folder.task_folder import TaskFolder, step_name
from forgetui.engine.sandbox import SandboxError, refuse_environment_write
from forgetui.engine.workspace.confined_open import DIR_FLAGS, FILE_FLAGS
from forgetui.engine.workspace.files import FileProblem
from forgetui.engine.workspace.safe_write import WriteTarget, open_write_target

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
    why: dict[str, str] = field(default_factory=dict)  # blocked rel -> what is in the way

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


def probe(workspace: Path, rel: str) -> tuple[OnDisk, str | None]:
    """What is at `rel`: its bytes, None if there is none, False if a directory, a link or a
    file with other hard links is in its place, or a link on the way to it; and why a write
    there would be refused (None: it would not). Walks from the workspace one directory at a
    time, following no link."""
    parts = tuple(rel.split("/"))
    try:
        refuse_environment_write(workspace.resolve(), parts, rel)
    except SandboxError:
        return False, "inside a Python environment"
    fd = os.open(workspace.resolve(), os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for depth, name in enumerate(parts[:-1], 1):
            try:
                info = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except FileNotFoundError:
                return None, None  # the write makes the directories
            where = "/".join(parts[:depth])
            if stat.S_ISLNK(info.st_mode):
                return False, f"{where} is a link to {_link(name, fd)}"
            if not stat.S_ISDIR(info.st_mode):
                return None, f"{where} is not a directory"
            try:
                next_fd = os.open(name, DIR_FLAGS, dir_fd=fd)
            except OSError:  # swapped since the look
                return False, f"{where} changed while it was looked at"
            os.close(fd)
            fd = next_fd
        return _file_at(parts[-1], fd)
    finally:
        os.close(fd)


def _link(name: str, dir_fd: int) -> str:
    try:
        return os.readlink(name, dir_fd=dir_fd)
    except OSError:
        return "?"


def _file_at(name: str, dir_fd: int) -> tuple[OnDisk, str | None]:
    try:
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None, None
    if stat.S_ISLNK(info.st_mode):
        return False, f"a link to {_link(name, dir_fd)}"
    if stat.S_ISDIR(info.st_mode):
        return False, "a directory"
    if not stat.S_ISREG(info.st_mode):
        return False, "not a regular file"
    if info.st_nlink > 1:
        return False, f"a file with {info.st_nlink} hard links"
    try:
        fd = os.open(name, FILE_FLAGS, dir_fd=dir_fd)
    except OSError:
        return False, "cannot be read"
    with os.fdopen(fd, "rb") as handle:
        return handle.read(), None


def plan_files(folder: TaskFolder, workspace: Path, steps: Collection[int]) -> FilesPlan:
    """What `workspace` needs to look as it did before `steps` (the live steps after the one
    rewound to) changed it."""
    targets: dict[str, bytes | None] = {}
    conflicts: list[str] = []
    why: dict[str, str] = {}
    for rel, (first, last) in sorted(touched(folder, steps).items()):
        target = snapshot_bytes(folder, first, rel, ".before")
        now, refused = probe(workspace, rel)
        if now == target:
            continue  # nothing to do (no file where none should be, behind a file or not)
        if refused is not None:
            why[rel] = refused
            continue
        targets[rel] = target
        if now != snapshot_bytes(folder, last, rel, ".after"):
            conflicts.append(rel)
    return FilesPlan(targets, conflicts, sorted(why), why)


def refuse_blocked(files: FilesPlan, workspace: Path) -> None:
    """Never write what is not a plain file, or through a link: the operator moves it first.
    Checked for every file before any is written."""
    if files.blocked:
        blocked = files.blocked
        more = f" and {len(blocked) - 5} more" if len(blocked) > 5 else ""
        names = ", ".join(f"{rel} ({files.why.get(rel, 'not a plain file')})" for rel in
                          blocked[:5]) + more  # fmt: skip
        raise ForgeError(
            f"{workspace}: cannot restore {names}: move it away first; nothing changed"
        )


@dataclass(frozen=True)
class _Was:
    """A file as it was before write_back changed it: what to put back."""

    data: bytes | None  # None: there was no file
    mode: int


class WriteBackFailed(ForgeError):
    """A write failed after others were made (the workspace changed under the rewind, or the
    disk refused): those were put back, all but `left`."""

    def __init__(self, rel: str, reason: str, written: list[str], left: list[str]) -> None:
        self.rel, self.reason, self.written, self.left = rel, reason, written, left
        if left:
            back = f"could not put back {', '.join(left)} (left as at the step rewound to)"
        else:
            back = f"{len(written)} file{'s' if len(written) != 1 else ''} written before it put "\
                "back; the workspace is as it was"  # fmt: skip
        super().__init__(f"writing {rel} failed ({reason}); {back}")


def write_back(workspace: Path, targets: Mapping[str, bytes | None]) -> None:
    """Put each file's content back (None: remove it), through the writes that never follow
    a link. Every content is checked first, so a bad snapshot stops it before any change; a
    write failing midway puts back the ones made before it (WriteBackFailed)."""
    texts: dict[str, str | None] = {}
    for rel, content in targets.items():
        try:
            texts[rel] = None if content is None else content.decode("utf-8")
        except UnicodeDecodeError:
            raise ForgeError(f"the snapshot of {rel} is not UTF-8 text; nothing changed") from None
    done: list[tuple[str, _Was]] = []
    for rel, text in sorted(texts.items()):
        try:
            done.append((rel, _write_one(workspace, rel, text)))
        except (ForgeError, OSError) as exc:
            reason = exc.message if isinstance(exc, ForgeError) else exc.strerror or str(exc)
            left = _put_back(workspace, done)
            raise WriteBackFailed(rel, reason, [name for name, _ in done], left) from exc
        except BaseException:
            _put_back(workspace, done)
            raise


def _write_one(workspace: Path, rel: str, text: str | None) -> _Was:
    if text is None:
        return _remove(workspace, rel)
    with open_write_target(workspace, rel, create_dirs=True) as target:
        was = _read_target(target)
        target.replace(text)
    return was


def _read_target(target: WriteTarget) -> _Was:
    """The bytes about to be replaced, read through the held directory (no link followed)."""
    if target.existing is None:
        return _Was(None, 0)
    fd = os.open(target.name, FILE_FLAGS, dir_fd=target.dir_fd)
    with os.fdopen(fd, "rb") as handle:
        return _Was(handle.read(), stat.S_IMODE(target.existing.st_mode))


def _remove(workspace: Path, rel: str) -> _Was:
    try:
        with open_write_target(workspace, rel, create_dirs=False) as target:
            was = _read_target(target)
            if target.existing is not None:
                os.unlink(target.name, dir_fd=target.dir_fd)
            return was
    except FileProblem:  # its directory is gone, so is the file
        return _Was(None, 0)


def _put_back(workspace: Path, done: list[tuple[str, _Was]]) -> list[str]:
    """Undo the writes in `done`, latest first; the names that could not be put back."""
    left = []
    for rel, was in reversed(done):
        try:
            if was.data is None:
                _remove(workspace, rel)
                continue
            with open_write_target(workspace, rel, create_dirs=True) as target:
                target.replace_bytes(was.data, was.mode)
        except (ForgeError, OSError):
            left.append(rel)
    return sorted(left)


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
