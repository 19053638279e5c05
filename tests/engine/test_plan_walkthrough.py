"""A generic task that decomposes its goal runs as a developer writes it: decompose, write,
mark the subtask, complete; and no subtask is marked done where nothing can be written."""

from __future__ import annotations

from pathlib import Path

import pytest

from forgetui.engine import api
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.step.executor import Executor
from forgetui.engine.step.reports import StepReport
from tests.engine.helpers import act, make_task, replay

pytestmark = pytest.mark.timeout(120)


def _run(folder: TaskFolder, n: int) -> list[StepReport]:
    with Executor(folder, replay(folder)) as ex:
        return [ex.step() for _ in range(n)]


PLAN = {"goal": "ship", "tasks": [{"title": "write", "subtasks": [{"title": "out.txt"}]}]}


def test_decompose_write_mark_complete_runs_as_written(tmp_path: Path) -> None:
    folder = make_task(
        tmp_path,
        [
            act("set_plan", plan=PLAN),
            act("write_file", path="out.txt", content="x\n"),
            act("mark_subtask_complete", success=True, reason="written"),
            act("complete", summary="out.txt written"),
        ],
        phase="planning",
        decompose=True,
    )
    reports = _run(folder, 4)
    assert [r.result for r in reports] == ["success"] * 4, [r.summary for r in reports]
    assert "planning done -> execution" in reports[0].summary
    state = folder.load_state()
    assert state.status == "complete"
    assert state.plan is not None and state.plan.tasks[0].subtasks[0].status == "done"
    assert (folder.workspace / "out.txt").read_text() == "x\n"


def test_a_subtask_cannot_be_marked_done_while_planning(tmp_path: Path) -> None:
    folder = make_task(
        tmp_path,
        [act("mark_subtask_complete", success=True, reason="done")],
        phase="planning",
        plan=PLAN,
    )
    assert "mark_subtask_complete" not in api.preview_context(folder).messages[0]["content"]
    reports = _run(folder, 1)
    assert reports[0].result != "success"
    state = folder.load_state()
    assert state.plan is not None and state.plan.tasks[0].subtasks[0].status == "pending"
    assert state.phase == "planning"
