"""What the operator reads about a step waiting for approval, and about a finished task's
memory: the log row says who it waits for; a finished task's memory is history."""

from __future__ import annotations

from pathlib import Path

from forgetui.engine import api
from forgetui.engine.operator.verbs import answer
from forgetui.engine.step.executor import Executor
from tests.engine.helpers import act, make_task, replay


def test_a_step_waiting_for_approval_says_so_in_its_log_row(tmp_path: Path) -> None:
    folder = make_task(tmp_path, [act("write_file", path="a.txt", content="A\n")],
                       approval="confirm_writes")  # fmt: skip
    with Executor(folder, replay(folder)) as executor:
        assert executor.step().result == "escalated"
    row = api.log_rows(folder, 0, api.log_row_count(folder))[-1]
    assert row.result == api.IN_FLIGHT and row.step == 1
    assert "waiting for your approval" in row.summary
    assert "no result yet" not in row.summary
    answer(folder, "approve")
    with Executor(folder, replay(folder)) as executor:
        assert executor.step().result == "success"
    rows = api.log_rows(folder, 0, api.log_row_count(folder))
    (row,) = [row for row in rows if row.kind == "step" and row.step == 1]
    assert row.result == "success" and "approval" not in row.summary
