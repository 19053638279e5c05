"""The step loop: guards, approvals, escalation, completion gates, plans, recording."""

from __future__ import annotations

from pathlib import Path

import pytest

from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.operator.verbs import answer
from forgetui.engine.step.executor import Executor, StepNotAllowed
from tests.engine.helpers import act, make_task, replay


def _run(folder: TaskFolder, n: int) -> list:
    with Executor(folder, replay(folder)) as ex:
        return [ex.step() for _ in range(n)]


def test_a_step_is_one_call_recorded_with_intent_and_result(tmp_path: Path) -> None:
    folder = make_task(tmp_path, [act("write_file", path="out.txt", content="hi\n")])
    (report,) = _run(folder, 1)
    assert report.result == "success" and report.status == "paused"
    assert (folder.workspace / "out.txt").read_text() == "hi\n"
    kinds = [(r.kind, r.step) for r in folder.log.iter_records()]
    assert kinds == [("intent", 1), ("result", 1)]
    state = folder.load_state()
    assert state.step == 1 and state.verification.checks["out"].passing
    assert state.verification.checks["out"].changed_at_step == 1
    saved = folder.load_saved_context(1)
    assert [m["role"] for m in saved["messages"]] == ["system", "user"]
    # the snapshot of the change is on disk
    assert any(p.name.endswith(".after") for p in folder.snapshots_dir.rglob("*"))


def test_third_identical_attempt_is_blocked_and_listed(tmp_path: Path) -> None:
    read = act("list_dir", path=".")
    folder = make_task(tmp_path, [read, read, read, act("note", text="moving on")])
    reports = _run(folder, 4)
    assert [r.result for r in reports] == ["success", "success", "blocked", "success"]
    assert "identical" in reports[2].summary
    state = folder.load_state()
    assert state.loop_guard.blocked == ['list_dir({"path":"."})']
    from forgetui.engine.api import preview_context

    assert 'list_dir({"path":"."})' in preview_context(folder).messages[1]["content"]


def test_edit_then_test_cycles_are_work_not_a_loop(tmp_path: Path) -> None:
    """The everyday loop: edit, run the tests, edit, run the tests... never blocked."""
    script = []
    for cycle in range(5):
        script += [
            act("write_file", path="out.txt", content=f"attempt {cycle}\n"),
            act("run_cmd", cmd=["python", "-c", "print('tests ran')"]),
            act("run_check"),
        ]
    folder = make_task(tmp_path, script)
    reports = _run(folder, len(script))
    assert [r.result for r in reports].count("blocked") == 0
    assert [r.result for r in reports] == ["success"] * len(script)
    assert folder.load_state().loop_guard.blocked == []


def test_identical_reads_of_an_unchanged_workspace_are_blocked(tmp_path: Path) -> None:
    read = act("read_file", path="notes.txt")
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "notes.txt").write_text("n\n")
    folder = make_task(tmp_path, [read, read, read])
    reports = _run(folder, 3)
    assert [r.result for r in reports] == ["success", "success", "blocked"]
    assert "no file changed" in reports[2].summary


def test_a_blocked_action_leaves_the_list_once_a_file_changes(tmp_path: Path) -> None:
    read = act("list_dir", path=".")
    script = [read, read, read, act("write_file", path="out.txt", content="x\n"), read]
    folder = make_task(tmp_path, script)
    reports = _run(folder, 4)
    assert reports[2].result == "blocked"
    assert folder.load_state().loop_guard.blocked == []
    from forgetui.engine.api import preview_context

    assert 'list_dir({"path":"."})' not in preview_context(folder).messages[1]["content"]
    (after,) = _run(folder, 1)
    assert after.result == "success"  # the same read, on a changed workspace


def test_a_state_file_from_before_attempts_carried_the_workspace_loads(tmp_path: Path) -> None:
    import yaml

    folder = make_task(tmp_path, [act("list_dir", path=".")])
    path = folder.path / "state.yaml"
    data = yaml.safe_load(path.read_text())
    data["loop_guard"] = {"recent": ['list_dir({"path":"."})'], "blocked": [], "block_streak": 0}
    path.write_text(yaml.safe_dump(data))
    guard = folder.load_state().loop_guard
    assert guard.recent[0].signature == 'list_dir({"path":"."})'
    assert guard.recent[0].workspace == 0


def test_abab_alternation_is_blocked(tmp_path: Path) -> None:
    a, b = act("list_dir", path="."), act("note", text="x")
    folder = make_task(tmp_path, [a, b, a, b])
    reports = _run(folder, 4)
    assert [r.result for r in reports] == ["success", "success", "success", "blocked"]
    assert "alternation" in reports[3].summary


def test_repeated_blocks_escalate_with_the_matching_steps(tmp_path: Path) -> None:
    read = act("list_dir", path=".")
    folder = make_task(tmp_path, [read] * 5, guards={"repeated_blocks": 2})
    reports = _run(folder, 4)
    assert reports[-1].status == "escalated"
    escalation = folder.load_state().pending_escalation
    assert escalation is not None and escalation.reason == "loop"
    assert any("step 1" in line for line in escalation.evidence)
    with Executor(folder, replay(folder)) as ex, pytest.raises(StepNotAllowed):
        ex.step()


def test_three_failures_in_a_row_escalate(tmp_path: Path) -> None:
    script = [act("read_file", path=f"missing{i}.txt") for i in range(3)]
    folder = make_task(tmp_path, script)
    reports = _run(folder, 3)
    assert [r.result for r in reports] == ["failure"] * 3
    assert folder.load_state().pending_escalation.reason == "failed_approaches"


def test_unparseable_answer_is_a_failed_step_shown_next(tmp_path: Path) -> None:
    folder = make_task(
        tmp_path, [{"text": "I think I should maybe write a file?"}, act("note", text="ok")]
    )
    reports = _run(folder, 1)
    assert reports[0].result == "failure"
    from forgetui.engine.api import preview_context

    user = preview_context(folder).messages[1]["content"]
    assert "no action" in user.lower() or "unparsed" in user.lower()


def test_complete_refused_until_ready(tmp_path: Path) -> None:
    folder = make_task(
        tmp_path,
        [
            act("complete", summary="done"),
            act("write_file", path="out.txt", content="x"),
            act("complete", summary="done now"),
        ],
    )
    reports = _run(folder, 3)
    assert reports[0].result == "refused" and "not ready" in reports[0].summary
    assert reports[2].status == "complete"
    with Executor(folder, replay(folder)) as ex, pytest.raises(StepNotAllowed):
        ex.step()


def test_max_steps_escalates_before_calling_the_model(tmp_path: Path) -> None:
    folder = make_task(
        tmp_path, [act("note", text=f"n{i}") for i in range(5)], limits={"max_steps": 2}
    )
    reports = _run(folder, 3)
    assert reports[2].status == "escalated" and not reports[2].model_called
    assert folder.load_state().pending_escalation.reason == "max_steps"
    assert folder.load_state().step == 2


def test_exhausted_model_escalates_never_crashes(tmp_path: Path) -> None:
    folder = make_task(tmp_path, [act("note", text="only one")])
    reports = _run(folder, 2)
    assert reports[1].result == "error" and reports[1].status == "escalated"
    escalation = folder.load_state().pending_escalation
    assert escalation.reason == "model_error"
    assert escalation.question == (
        "The replay script has no step 2; another model must take over"
        " (a litellm model, or the human model: you type the actions)."
    )
    assert escalation.options == [] and "Retry" not in escalation.question


@pytest.mark.parametrize(
    ("verdict", "expected_content", "result", "decision"),
    [
        # a routine approve is an operator event, not a decision in the context
        ("approve", "x\n", "success", None),
        # a modify is a decision, summarised: never the file's content
        (
            'modify {"path": "out.txt", "content": "y\\n"}',
            "y\n",
            "success",
            "modify write_file: path=out.txt, content=<2 characters>",
        ),
        ("reject not now", None, "refused", "reject not now"),
    ],
)
def test_confirm_writes_waits_for_the_operator(
    tmp_path: Path, verdict: str, expected_content: str | None, result: str, decision: str | None
) -> None:
    folder = make_task(
        tmp_path,
        [act("write_file", path="out.txt", content="x\n"), act("note", text="after")],
        approval="confirm_writes",
    )
    with Executor(folder, replay(folder)) as ex:
        waiting = ex.step()
        assert waiting.status == "escalated"
        assert not (folder.workspace / "out.txt").exists()
        pending = folder.load_state().pending_escalation
        assert pending.reason == "approval" and pending.pending_action.action == "write_file"
        answer(folder, verdict)
        done = ex.step()
        assert done.result == result and not done.model_called
        out = folder.workspace / "out.txt"
        assert (out.read_text() if out.exists() else None) == expected_content
        assert ex.step().action == "note"  # the script continues where it was
    state = folder.load_state()
    assert [d.answer for d in state.decisions] == ([decision] if decision else [])
    ops = [r.op for r in folder.log.iter_records() if r.kind == "operator"]
    assert ops == (["answer"] if decision else ["approve"])
    assert state.totals.model_calls == 2  # the approved call counted once, the note once
    results = [r for r in folder.log.iter_records() if r.kind == "result"]
    assert [r.step for r in results] == [1, 2]


def test_agent_escalation_answer_is_a_decision_in_every_later_context(tmp_path: Path) -> None:
    folder = make_task(
        tmp_path,
        [
            act("escalate", question="Tabs or spaces?", options=["tabs", "spaces"]),
            act("note", text="using the answer"),
        ],
    )
    _run(folder, 1)
    assert folder.load_state().status == "escalated"
    answer(folder, "spaces, four of them")
    _run(folder, 1)
    saved = folder.load_saved_context(2)
    assert "spaces, four of them" in saved["messages"][1]["content"]
    with pytest.raises(Exception, match="no pending escalation"):
        answer(folder, "again")


def test_decompose_asks_for_a_plan_first(tmp_path: Path) -> None:
    plan = {"goal": "ship", "tasks": [{"title": "write", "subtasks": [{"title": "out.txt"}]}]}
    folder = make_task(
        tmp_path,
        [
            act("set_plan", plan=plan),
            act("write_file", path="out.txt", content="x"),
            act("mark_subtask_complete", success=True, reason="written"),
        ],
        decompose=True,
    )
    from forgetui.engine.api import preview_context

    assert "set_plan" in preview_context(folder).messages[0]["content"]
    reports = _run(folder, 3)
    assert reports[0].summary.startswith("plan set")
    state = folder.load_state()
    assert state.plan.tasks[0].subtasks[0].status == "done"


def test_no_decomposition_without_decompose(tmp_path: Path) -> None:
    folder = make_task(tmp_path, [act("note", text="x")])
    from forgetui.engine.api import preview_context

    assert "set_plan" not in preview_context(folder).messages[0]["content"]


def test_mark_subtask_false_string_is_failure(tmp_path: Path) -> None:
    plan = {"goal": "ship", "tasks": [{"title": "write", "subtasks": [{"title": "a"}]}]}
    folder = make_task(
        tmp_path, [act("mark_subtask_complete", success="false", reason="no")], plan=plan
    )
    _run(folder, 1)
    assert folder.load_state().plan.tasks[0].subtasks[0].status == "failed"


def test_second_executor_is_refused_naming_the_holder(tmp_path: Path) -> None:
    import subprocess
    import sys

    folder = make_task(tmp_path, [act("note", text="x")])
    code = (
        "import sys,time;from forgetui.engine.folder.task_folder import TaskFolder;"
        f"f=TaskFolder.open({str(folder.path)!r});f.acquire('holder-test');"
        "print('held',flush=True);time.sleep(30)"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "held"
        with pytest.raises(Exception, match=str(proc.pid)):
            Executor(folder, replay(folder)).open()
    finally:
        proc.kill()
        proc.wait()
    with Executor(folder, replay(folder)) as ex:  # the stale lock is taken over
        assert ex.step().result == "success"


def test_interrupted_intent_escalates_then_reruns_without_a_model_call(tmp_path: Path) -> None:
    from forgetui.engine.base.clock import now_iso
    from forgetui.engine.folder.records import IntentRecord

    folder = make_task(
        tmp_path,
        [
            act("note", text="first"),
            act("write_file", path="out.txt", content="x\n"),
            act("note", text="third"),
        ],
    )
    _run(folder, 1)
    with folder.lock:  # a crash after the intent of step 2, before anything else
        folder.log.append(
            IntentRecord(
                step=2,
                at=now_iso(),
                action="write_file",
                args={"path": "out.txt", "content": "x\n"},
                model="replay",
            )
        )
    with Executor(folder, replay(folder)) as ex:
        assert any("interrupted" in n for n in ex.notices)
        escalation = folder.load_state().pending_escalation
        assert escalation.reason == "interrupted" and escalation.options == ["re-run", "skip"]
        answer(folder, "re-run")
        rerun = ex.step()
        assert rerun.step == 2 and rerun.result == "success" and not rerun.model_called
        assert ex.step().args == {"text": "third"}  # the script did not skip a reply
    assert (folder.workspace / "out.txt").read_text() == "x\n"


def test_a_write_killed_mid_file_leaves_no_temporary_in_the_workspace(tmp_path: Path) -> None:
    """safe_write writes `.forgetui-<hex>.tmp` beside the target, then renames it: a kill in
    between leaves it, and the recovery on the next open removes it (only that name)."""
    from forgetui.engine.base.clock import now_iso
    from forgetui.engine.folder.records import IntentRecord

    folder = make_task(tmp_path, [act("write_file", path="pkg/out.txt", content="x\n")])
    (folder.workspace / "pkg").mkdir()
    left = folder.workspace / "pkg" / ".forgetui-0123456789abcdef.tmp"
    left.write_text("half a fi")
    users = folder.workspace / "pkg" / ".forgetui-notes.tmp"  # not safe_write's name
    users.write_text("mine")
    with folder.lock:  # the crash: the intent of step 1 is all that was recorded
        folder.log.append(
            IntentRecord(
                step=1,
                at=now_iso(),
                action="write_file",
                args={"path": "pkg/out.txt", "content": "x\n"},
                model="replay",
            )
        )
    with Executor(folder, replay(folder)) as ex:
        assert any("interrupted" in n for n in ex.notices)
    assert not left.exists()
    assert users.read_text() == "mine"


def test_result_lost_after_state_save_is_restored_not_rerun(tmp_path: Path) -> None:
    folder = make_task(tmp_path, [act("note", text="a"), act("note", text="b")])
    _run(folder, 2)
    log = folder.path / "actions.yaml"
    lines = log.read_text().splitlines(keepends=True)
    log.write_text("".join(lines[:-1]))  # the crash lost step 2's result line
    with Executor(folder, replay(folder)) as ex:
        assert any("restored" in n for n in ex.notices)
    results = [r.step for r in folder.log.iter_records() if r.kind == "result"]
    assert results == [1, 2]
    assert folder.load_state().scratchpad == ["a", "b"]


def test_escape_attempts_are_refused_and_recorded(tmp_path: Path) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("top secret")
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "link").symlink_to(outside)
    script = [
        act("read_file", path="../secret.txt"),
        act("read_file", path=str(outside)),
        act("read_file", path="link"),
        act("run_cmd", cmd="python -c 'print(1)'; cat /etc/passwd"),
        act("run_cmd", cmd="curl http://example.com"),
        act("write_file", path=".agentforge/tasks/t1/state.yaml", content="status: complete"),
    ]
    folder = make_task(tmp_path, script, guards={"failed_approaches": 10})
    reports = _run(folder, len(script))
    assert [r.result for r in reports] == ["refused"] * len(script)
    results = [r for r in folder.log.iter_records() if r.kind == "result"]
    assert [r.result for r in results] == ["refused"] * len(script)
    for path in folder.path.rglob("*"):
        if path.is_file():
            assert b"top secret" not in path.read_bytes()
    assert folder.load_state().status != "complete"


def test_max_steps_continue_grants_more_steps(tmp_path: Path) -> None:
    folder = make_task(
        tmp_path, [act("note", text=f"n{i}") for i in range(5)], limits={"max_steps": 2}
    )
    _run(folder, 3)
    answer(folder, "continue")
    reports = _run(folder, 2)
    assert [r.result for r in reports] == ["success", "success"]
    assert folder.load_state().step == 4


def test_regression_escalates_naming_the_step(tmp_path: Path) -> None:
    folder = make_task(
        tmp_path,
        [
            act("write_file", path="out.txt", content="x"),
            act("run_cmd", cmd="python -c \"import os; os.remove('out.txt')\""),
        ],
    )
    reports = _run(folder, 2)
    assert reports[1].status == "escalated"
    escalation = folder.load_state().pending_escalation
    assert escalation.reason == "regression" and "step 2" in escalation.question


def test_a_run_loop_says_running_between_steps_and_pauses_at_the_end(tmp_path: Path) -> None:
    from forgetui.engine.step.runner import run_steps

    folder = make_task(tmp_path, [act("note", text=f"n{i}") for i in range(3)])
    seen = []
    with Executor(folder, replay(folder)) as ex:
        for _report in run_steps(ex, max_steps=2):
            seen.append(folder.load_state().status)
    assert seen == ["running", "running"]
    assert folder.load_state().status == "paused"


def test_error_details_loads_the_failing_commands_output(tmp_path: Path) -> None:
    failing = "import sys; print('AssertionError: expected 3, got 4'); sys.exit(1)"
    script = [
        act("run_cmd", cmd=["python", "-c", failing]),
        act("load_context", item="error_details"),
    ]
    folder = make_task(tmp_path, script)
    ran, loaded = _run(folder, 2)
    assert ran.result == "failure" and loaded.result == "success"
    item = next(i for i in folder.load_memory().items if i.key == "error_details")
    assert "AssertionError: expected 3, got 4" in item.content  # the output, not "exit code 1"
    assert item.content.startswith("step 1: run_cmd python -c")


def test_progress_lists_what_was_achieved_not_command_output(tmp_path: Path) -> None:
    script = [
        act("run_cmd", cmd=["python", "-c", "print('lots of raw output')"]),
        act("write_file", path="out.txt", content="x\n"),
        act("write_file", path="out.txt", content="y\n"),
        act("note", text="remember this"),
    ]
    folder = make_task(tmp_path, script)
    _run(folder, 4)
    completed = folder.load_state().progress.completed
    assert completed == ["2: created out.txt", "2: check 'out' passes", "3: changed out.txt"]
