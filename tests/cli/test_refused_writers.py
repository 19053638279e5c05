"""A writer refused for files that disagree changes nothing: every command that takes the task
lock checks the files before it repairs anything, a torn last line included, so the operator
meets the task exactly as it was when `forgetui repair` shows the fix."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.cli.stepped_sample import copy_task, files_of, lock_debris

TORN = b'--- {"step": 3, "at": "x", "kind": "int'  # an append cut mid-write

# Every command that writes a task (its arguments after the task folder). `repair` is not here:
# files that disagree are its work.
WRITERS: dict[str, tuple[str, ...]] = {
    "run": ("run",),
    "rewind": ("rewind", "--to", "1"),
    "answer": ("answer", "approve"),
    "limits": ("limits", "--max-steps", "50"),
    "accept-task-change": ("accept-task-change",),
    "inbox --promote": ("inbox", "--promote", "1"),
    "memory note": ("memory", "note", "remember this"),
    "memory pin": ("memory", "pin", "action_result@1"),
    "memory unpin": ("memory", "unpin", "action_result@1"),
    "memory evict": ("memory", "evict", "action_result@1"),
    "memory edit": ("memory", "edit", "action_result@1", "new text"),
}


def _break_the_log(task: Path) -> int:
    """A bad line in the middle and a torn last line; returns the bad line's number."""
    lines = (task / "actions.yaml").read_bytes().splitlines(keepends=True)
    broken = [*lines[:2], b"garbage here\n", *lines[2:]]
    (task / "actions.yaml").write_bytes(b"".join(broken) + TORN)
    return 3


def _whole_tree(task: Path) -> dict[str, bytes]:
    """Every file of the workspace, the task folder included (a rewind also writes the
    workspace)."""
    return files_of(task.parents[2])


@pytest.fixture
def task(hello_after_two_steps: Path, tmp_path: Path) -> Path:
    return copy_task(hello_after_two_steps, tmp_path / "copy")


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_refused_writer_changes_no_byte(cli: Any, task: Path, writer: str) -> None:
    line = _break_the_log(task)
    before = _whole_tree(task)
    names_before = sorted(p.name for p in task.iterdir())

    refused = cli(*WRITERS[writer][:1], task, *WRITERS[writer][1:])

    assert refused.code == 2, (refused.out, refused.err)
    assert refused.err.splitlines() == [
        f"forgetui: {task}/actions.yaml:{line}: a record line must start with '--- ' followed "
        f"by a JSON object; run `forgetui repair {task}` to see the fix"
    ]
    assert _whole_tree(task) == before  # the torn line is still in place, nothing moved aside
    assert sorted(p.name for p in task.iterdir()) == names_before
    assert lock_debris(task) == []


def test_after_repair_the_same_writer_goes_ahead(cli: Any, task: Path) -> None:
    """The check refuses only what disagrees: once repaired, a writer writes."""
    _break_the_log(task)
    assert cli("memory", task, "note", "remember this").code == 2
    applied = cli("repair", task, "--apply")
    assert applied.code == 0, applied.err
    noted = cli("memory", task, "note", "remember this")
    assert noted.code == 0, noted.err
    listed = cli("memory", task, "list", "--json").json_lines()
    assert any(item["type"] == "note" for item in listed)
