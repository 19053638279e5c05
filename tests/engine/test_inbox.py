"""The escalation inbox: every question asked and its answer, routine approvals included, from
the log; an answer promoted to a pinned working-memory note the next context shows."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from forgetui.engine.api import preview_context
from forgetui.engine.base.errors import ForgeError
from forgetui.engine.folder import action_log as actionlog
from forgetui.engine.folder.records import IntentRecord, OperatorRecord, ResultRecord
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.folder.task_state import Decision, FoldedDecisions
from forgetui.engine.operator.inbox import NOT_RECORDED, escalation_inbox, promote_answer
from forgetui.engine.operator.verbs import answer, pin
from forgetui.engine.step.executor import Executor
from tests.engine.helpers import act, make_task, replay

LANGUAGE = "Which language should out.txt be written in?"


def asked_four_times(tmp_path: Path) -> TaskFolder:
    """Step 1 asks (answered French), step 2's write waits for approval (approved), step 3 asks
    (answered), step 4 asks and waits."""
    script = [
        act("escalate", question=LANGUAGE, options=["English", "French"]),
        act("write_file", path="out.txt", content="Bonjour\n"),
        act("escalate", question="Keep the trailing newline?"),
        act("escalate", question="Add a second line?", options=["yes", "no"]),
    ]
    folder = make_task(tmp_path, script, approval="confirm_writes")
    with Executor(folder, replay(folder)) as executor:
        executor.step()
        answer(folder, "French")
        executor.step()
        answer(folder, "approve")
        executor.step()  # the approved write runs
        executor.step()
        answer(folder, "keep it: the check reads whole lines")
        executor.step()
    return folder


@pytest.fixture
def folder(tmp_path: Path) -> TaskFolder:
    return asked_four_times(tmp_path)


def test_every_question_with_its_answer_in_order_the_open_one_last(folder: TaskFolder) -> None:
    entries = escalation_inbox(folder)
    assert [(e.id, e.reason, e.question, e.answer) for e in entries] == [
        ("1", "agent", LANGUAGE, "French"),
        ("2", "approval", "Approve write_file out.txt?", "approve"),  # routine: no decision
        ("3", "agent", "Keep the trailing newline?", "keep it: the check reads whole lines"),
        ("4", "agent", "Add a second line?", None),
    ]
    assert [e.pending for e in entries] == [False, False, False, True]
    assert entries[-1].options == ("yes", "no")
    assert [e.answered_step for e in entries] == [1, 1, 3, None]
    assert not any(e.promoted for e in entries)
    assert entries[0].to_json() == {
        "id": "1",
        "step": 1,
        "reason": "agent",
        "question": LANGUAGE,
        "options": [],
        "answer": "French",
        "answered_step": 1,
        "answered_at": entries[0].answered_at,
        "pending": False,
        "promoted": False,
        "undone_by_rewind": None,
        "key": "answer@1",
    }
    assert entries[0].answered_at and entries[0].answered_at.endswith("Z")


def test_a_promoted_answer_is_a_pinned_note_the_next_context_shows(folder: TaskFolder) -> None:
    assert promote_answer(folder, "1") == "pinned answer@1"
    item = next(i for i in folder.load_memory().items if i.key == "answer@1")
    assert item.pinned and item.type == "note"
    assert item.content == f"Q: {LANGUAGE} / A: French"
    record = folder.log.tail(1, None)[0]
    assert isinstance(record, OperatorRecord)
    assert (record.op, record.key) == ("note", "answer@1")
    assert [e.promoted for e in escalation_inbox(folder)] == [True, False, False, False]
    user = preview_context(folder).messages[1]["content"]
    assert "A: French" in user

    # again: said, nothing written
    log_size = folder.log.path.stat().st_size
    assert promote_answer(folder, "answer@1") == "answer@1 is already pinned"
    assert folder.log.path.stat().st_size == log_size

    # a routine approval can be promoted too; unpinned by hand, promoting pins it again
    said = promote_answer(folder, "2")  # memory is full: what it pushed out is said
    assert said.startswith("pinned answer@2; pushed out action_result@1"), said
    pin(folder, "answer@2", pinned=False)
    assert promote_answer(folder, "2") == "pinned answer@2"
    keys = [i.key for i in folder.load_memory().items]
    assert keys.count("answer@2") == 1


def test_the_open_question_and_an_unknown_step_are_refused(folder: TaskFolder) -> None:
    before = folder.log.path.read_bytes(), folder.load_memory()
    with pytest.raises(ForgeError, match="question of step 4 is not answered yet"):
        promote_answer(folder, "4")
    with pytest.raises(
        ForgeError, match=r"no question at step 9 in the inbox \(steps: 1, 2, 3, 4\)"
    ):
        promote_answer(folder, "9")
    assert (folder.log.path.read_bytes(), folder.load_memory()) == before
    assert not (folder.path / "lock").exists()


def test_two_questions_at_one_step_are_told_apart(tmp_path: Path) -> None:
    """A step that stops at the step limit before its call, then asks for approval: both are
    questions of step 2."""
    script = [act("list_dir", path="."), act("write_file", path="out.txt", content="x\n")]
    folder = make_task(tmp_path, script, approval="confirm_writes", limits={"max_steps": 1})
    with Executor(folder, replay(folder)) as executor:
        executor.step()
        executor.step()  # the limit
        answer(folder, "continue for 5 more")
        executor.step()  # the approval
        answer(folder, "reject not yet")
    entries = escalation_inbox(folder)
    assert [(e.id, e.reason) for e in entries] == [("2", "max_steps"), ("2.2", "approval")]
    assert promote_answer(folder, "2.2") == "pinned answer@2.2"
    assert "A: reject not yet" in str(folder.load_memory().items[-1].content)


def test_answers_logged_before_questions_were_find_them_in_decisions(tmp_path: Path) -> None:
    """An older log's answer records name no question: a decision's is found, in state.yaml
    or in the folded decisions' file; a routine one says it was not recorded."""
    folder = make_task(tmp_path, [])
    decisions_file = "artifacts/decisions.yaml"
    folded = [Decision(step=2, question="Old question?", answer="old answer", at="t")]
    (folder.path / decisions_file).write_text(yaml.safe_dump([d.model_dump() for d in folded]))
    with folder.lock:
        state = folder.load_state()
        state.step = 6
        state.decisions = [Decision(step=5, question="Newer question?", answer="yes", at="t")]
        state.folded_decisions = FoldedDecisions(
            count=1, first_step=2, last_step=2, file=decisions_file
        )
        folder.save_state(state)
        for step, op, text in (
            (2, "answer", "old answer"),
            (3, "approve", "ok"),
            (4, "answer", "yes"),
        ):
            folder.log.append(
                OperatorRecord(step=step, at="t", op=op, text=text, detail={"reason": "agent"})
            )
    assert [(e.step, e.question, e.answer) for e in escalation_inbox(folder)] == [
        (2, "Old question?", "old answer"),
        (3, NOT_RECORDED, "ok"),
        (5, "Newer question?", "yes"),
    ]


def test_only_operator_lines_are_parsed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A long log costs the inbox a scan, not a parse of every step's records."""
    folder = make_task(tmp_path, [])
    with folder.log.path.open("ab") as log:
        for step in range(1, 501):
            intent = IntentRecord(step=step, at="t", action="read_file", raw_response="x" * 300)
            result = ResultRecord(
                step=step, at="t", action="read_file", result="success", summary="read"
            )
            log.write(actionlog.encode_record(intent) + actionlog.encode_record(result))
            if step % 100 == 0:
                detail = {"reason": "agent", "question": f"Q{step}?", "asked_step": step}
                note = OperatorRecord(step=step, at="t", op="answer", text="a", detail=detail)
                log.write(actionlog.encode_record(note))
    decoded: list[bytes] = []
    real = actionlog.decode_line

    def counting(line: bytes) -> actionlog.AnyRecord:
        decoded.append(line)
        return real(line)

    monkeypatch.setattr(actionlog, "decode_line", counting)
    entries = escalation_inbox(folder)
    assert [e.question for e in entries] == [f"Q{n}?" for n in range(100, 501, 100)]
    assert len(decoded) == 5


def test_an_answer_a_rewind_went_back_before_is_marked_undone(folder: TaskFolder) -> None:
    """Rewinding to step 3 restores its escalation: its answer is undone, the question waits
    again, and the answers given before step 3 stand."""
    from forgetui.engine.history.rewind import rewind_task

    rewind_task(folder, 3)
    entries = escalation_inbox(folder)
    assert [(e.id, e.answer, e.pending, e.undone_by_rewind) for e in entries] == [
        ("1", "French", False, None),
        ("2", "approve", False, None),
        ("3", "keep it: the check reads whole lines", False, 3),
        ("3.2", None, True, None),
    ]
    assert entries[2].to_json()["undone_by_rewind"] == 3
