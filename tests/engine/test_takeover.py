"""The operator can take over: confirm a finish no check can prove, see a plan through to
completion, set limits, mark the task complete or failed, switch phase."""

from __future__ import annotations

from pathlib import Path

import pytest

from forgetui.engine.base.errors import ForgeError
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.operator.verbs import answer, set_limits
from forgetui.engine.step.executor import Executor, StepNotAllowed
from tests.engine.helpers import act, make_task, replay


def _run(folder: TaskFolder, n: int) -> list:
    with Executor(folder, replay(folder)) as ex:
        return [ex.step() for _ in range(n)]


def test_a_task_with_no_checks_completes_when_the_operator_accepts(tmp_path: Path) -> None:
    folder = make_task(tmp_path, [act("complete", summary="all done")], checks=[])
    (report,) = _run(folder, 1)
    assert report.status == "escalated"
    pending = folder.load_state().pending_escalation
    assert pending.reason == "confirm_complete" and pending.options == ["accept", "keep working"]
    answer(folder, "accept")
    assert folder.load_state().status == "complete"


def test_keep_working_sends_the_agent_back(tmp_path: Path) -> None:
    script = [act("complete", summary="done?"), act("note", text="more to do")]
    folder = make_task(tmp_path, script, checks=[])
    _run(folder, 1)
    answer(folder, "keep working: the README is missing")
    state = folder.load_state()
    assert state.status == "paused" and state.decisions[-1].answer.startswith("keep working")
    (report,) = _run(folder, 1)
    assert report.action == "note" and report.result == "success"


def test_a_plan_runs_to_goal_complete(tmp_path: Path) -> None:
    plan = {
        "goal": "Write out.txt",
        "tasks": [{"title": "write", "subtasks": [{"title": "write it"}, {"title": "check it"}]}],
    }
    script = [
        act("write_file", path="out.txt", content="x\n"),
        act("mark_subtask_complete", success=True, reason="written"),
        act("run_check"),
        act("mark_subtask_complete", success=True, reason="checked"),
        act("complete", summary="out.txt written and verified"),
    ]
    folder = make_task(tmp_path, script, plan=plan)
    reports = _run(folder, 5)
    assert "plan done -> verification" in reports[3].summary
    assert reports[4].result == "success" and reports[4].status == "complete"


def test_continue_for_n_more_grants_n(tmp_path: Path) -> None:
    folder = make_task(
        tmp_path, [act("note", text=f"n{i}") for i in range(12)], limits={"max_steps": 2}
    )
    reports = _run(folder, 3)
    assert folder.load_state().pending_escalation.reason == "max_steps"
    assert not reports[2].model_called
    answer(folder, "continue for 5 more")
    reports = _run(folder, 6)
    assert [r.result for r in reports[:5]] == ["success"] * 5
    assert reports[5].status == "escalated" and folder.load_state().step == 7


def test_limits_are_set_mid_run_as_a_decision(tmp_path: Path) -> None:
    folder = make_task(
        tmp_path, [act("note", text=f"n{i}") for i in range(6)], limits={"max_steps": 2}
    )
    _run(folder, 3)
    assert folder.load_state().pending_escalation.reason == "max_steps"
    decision = set_limits(folder, 3, None)
    state = folder.load_state()
    assert state.pending_escalation is None and state.status == "paused"  # the new limit lifts it
    assert decision.answer == "max_steps 3" and state.decisions[-1] == decision
    assert [r.op for r in folder.log.iter_records() if r.kind == "operator"] == ["limits"]
    reports = _run(folder, 2)
    assert reports[0].result == "success" and reports[1].status == "escalated"
    with pytest.raises(ForgeError, match="--max-steps N or --max-cost X"):
        set_limits(folder, None, None)


@pytest.mark.parametrize(
    ("verdict", "status"), [("mark complete", "complete"), ("mark failed: stuck", "failed")]
)
def test_the_operator_marks_the_task_complete_or_failed(
    tmp_path: Path, verdict: str, status: str
) -> None:
    folder = make_task(tmp_path, [act("escalate", question="Which way?"), act("note", text="x")])
    _run(folder, 1)
    answer(folder, verdict)
    assert folder.load_state().status == status
    with Executor(folder, replay(folder)) as ex, pytest.raises(StepNotAllowed):
        ex.step()


def test_switching_phase_while_an_approval_waits(tmp_path: Path) -> None:
    script = [act("write_file", path="out.txt", content="x\n"), act("run_check")]
    folder = make_task(tmp_path, script, approval="confirm_writes")
    _run(folder, 1)
    answer(folder, "phase verification")
    state = folder.load_state()
    assert state.phase == "verification" and state.status == "paused"
    refused, checked = _run(folder, 2)
    assert refused.result == "refused" and "operator took over" in refused.summary
    assert not (folder.workspace / "out.txt").exists()
    assert checked.action == "run_check"


def test_an_unknown_phase_is_refused_naming_the_phases(tmp_path: Path) -> None:
    folder = make_task(tmp_path, [act("escalate", question="?")])
    _run(folder, 1)
    with pytest.raises(ForgeError, match="planning, execution, verification"):
        answer(folder, "phase shipping")
    assert folder.load_state().pending_escalation is not None  # nothing changed
