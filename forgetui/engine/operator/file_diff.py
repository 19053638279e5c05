"""What a write_file or edit_file step did to a file, as a diff: read from the .before/.after
snapshots the step kept (artifacts/snapshots/step-000007/<path>.before/.after), never from the
workspace, which later steps and hand edits change."""

from __future__ import annotations

from dataclasses import dataclass

from forgetui.engine.base.text_diff import TextDiff, text_diff
from forgetui.engine.folder.records import ResultRecord
from forgetui.engine.folder.task_folder import TaskFolder, step_name

FILE_ACTIONS = ("write_file", "edit_file")
MAX_SNAPSHOT_BYTES = 4 * 1024 * 1024  # a side larger than this is not read for a diff


@dataclass(frozen=True)
class FileDiff:
    """One file a step wrote: `created` when it did not exist before the step."""

    path: str
    step: int
    created: bool
    diff: TextDiff

    def heading(self) -> str:
        """`hello.py (new file, +3 -0)`: the path and what changed, on one line."""
        if self.diff.note is not None:
            return self.path
        new = "new file, " if self.created else ""
        return f"{self.path} ({new}{self.diff.counts()})"


def record_file_diffs(folder: TaskFolder, record: object) -> tuple[FileDiff, ...]:
    """The diffs of the files a write_file or edit_file result changed; () for other records."""
    if not isinstance(record, ResultRecord) or record.action not in FILE_ACTIONS:
        return ()
    return tuple(file_diff(folder, record.step, rel) for rel in record.files_changed)


def file_diff(folder: TaskFolder, step: int, rel: str) -> FileDiff:
    """`rel` before and after step `step`, from its snapshots: a new file is all additions; a
    binary file, or one whose snapshot is gone or too large, is one line saying so."""
    before, before_note = _side(folder, step, rel, ".before")
    after, after_note = _side(folder, step, rel, ".after")
    note = after_note or before_note
    if after is None and note is None:
        note = f"no snapshot of {rel} kept at step {step}: its change cannot be shown"
    if note is not None or after is None:
        return FileDiff(rel, step, before is None, TextDiff(note=note))
    created = before is None
    return FileDiff(rel, step, created, text_diff(before or "", after, f"a/{rel}", f"b/{rel}"))


def _side(folder: TaskFolder, step: int, rel: str, side: str) -> tuple[str | None, str | None]:
    """A snapshot's text (None: not kept, the file did not exist), or why it is not shown."""
    if rel.startswith("/") or ".." in rel.split("/"):  # a hand-edited log: never read outside
        return None, f"{rel}: not a workspace path"
    path = folder.snapshots_dir / step_name(step) / f"{rel}{side}"
    try:
        size = path.stat().st_size
        if size > MAX_SNAPSHOT_BYTES:
            return None, f"{rel}: too large to diff here ({size:,} bytes)"
        data = path.read_bytes()
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, f"{rel}: snapshot unreadable ({exc.strerror or exc})"
    binary = f"{rel}: binary file, no text diff"
    if b"\0" in data:
        return None, binary
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError:
        return None, binary
