"""A symlink in a task's folder (a cloned repository shipping `.agentforge/`, or a command in
allow-list mode that made one) never carries a writer's appends or files outside: every writer
refuses in one line and the file the link points at is unchanged."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from forgetui.engine.base.errors import ForgeError
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.step.executor import Executor
from tests.engine.helpers import act, make_task, replay


def _linked(tmp_path: Path, which: str) -> tuple[TaskFolder, Path]:
    folder = make_task(tmp_path, [act("write_file", path="out.txt", content="x")])
    outside = tmp_path / "outside"
    inside = folder.path / which
    if inside.is_dir():
        shutil.copytree(inside, outside)
        shutil.rmtree(inside)
    else:
        shutil.copy2(inside, outside)
        inside.unlink()
    inside.symlink_to(outside)
    return folder, outside


def _tree(path: Path) -> dict[str, bytes]:
    if path.is_file():
        return {"": path.read_bytes()}
    return {str(p.relative_to(path)): p.read_bytes() for p in path.rglob("*") if p.is_file()}


@pytest.mark.parametrize("which", ["actions.yaml", "state.yaml", "artifacts/contexts", "artifacts"])
def test_a_step_refuses_a_linked_task_file(tmp_path: Path, which: str) -> None:
    folder, outside = _linked(tmp_path, which)
    before = _tree(outside)
    with (
        pytest.raises(ForgeError, match="a symlink in the task's folder"),
        Executor(TaskFolder.open(folder.path), replay(folder)) as ex,
    ):
        ex.step()
    assert _tree(outside) == before
    assert not (folder.workspace / "out.txt").exists()
    assert not (folder.path / "lock").exists()  # the refusal let the lock go


def test_a_memory_note_refuses_a_linked_log(tmp_path: Path) -> None:
    from forgetui.engine import api

    folder, outside = _linked(tmp_path, "actions.yaml")
    before = outside.read_bytes()
    with pytest.raises(ForgeError, match="a symlink in the task's folder"):
        api.add_note(api.open_task(folder.path), "hi")
    assert outside.read_bytes() == before
