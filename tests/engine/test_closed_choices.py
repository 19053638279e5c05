"""A question forgetui asks with fixed options (the agent says it is done: accept, or keep
working?) takes one of them, by name or a known synonym; anything else is refused naming the
options, and nothing changes. The agent's own questions keep free text beside their options."""

from __future__ import annotations

from pathlib import Path

import pytest

from forgetui.engine.base.errors import ForgeError
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.operator.verbs import answer
from forgetui.engine.step.executor import Executor
from tests.engine.helpers import act, make_task, replay

DONE = [act("complete", summary="done?"), act("note", text="more to do")]


def asked_to_confirm(tmp_path: Path) -> TaskFolder:
    tmp_path.mkdir(parents=True, exist_ok=True)
    folder = make_task(tmp_path, DONE, checks=[])
    with Executor(folder, replay(folder)) as executor:
        executor.step()
    assert folder.load_state().pending_escalation.reason == "confirm_complete"
    return folder


def files_of(folder: TaskFolder) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.path.rglob("*") if p.is_file()}


@pytest.mark.parametrize("text", ["approve", "yes", "Y", "ok", "accept", "accepted: looks right"])
def test_a_yes_accepts_the_finish(tmp_path: Path, text: str) -> None:
    folder = asked_to_confirm(tmp_path)
    answer(folder, text)
    assert folder.load_state().status == "complete"


@pytest.mark.parametrize(
    "text", ["no", "n", "continue", "keep working", "no: the README is missing"]
)
def test_a_no_keeps_the_agent_working(tmp_path: Path, text: str) -> None:
    folder = asked_to_confirm(tmp_path)
    answer(folder, text)
    state = folder.load_state()
    assert state.status == "paused" and state.pending_escalation is None
    assert state.decisions[-1].answer == text  # the operator's words reach the agent
    with Executor(folder, replay(folder)) as executor:
        report = executor.step()
    assert (report.action, report.result) == ("note", "success")  # work went on


@pytest.mark.parametrize("text", ["maybe", "nope", "yesterday", "ok, keep working", "sure"])
def test_an_answer_that_is_no_option_is_refused_and_changes_nothing(
    tmp_path: Path, text: str
) -> None:
    folder = asked_to_confirm(tmp_path)
    before = files_of(folder)
    with pytest.raises(ForgeError) as refused:
        answer(folder, text)
    message = refused.value.message
    assert "\n" not in message and "accept, keep working" in message
    assert files_of(folder) == before
    assert folder.load_state().pending_escalation.reason == "confirm_complete"


def test_take_over_and_abort_still_answer_it(tmp_path: Path) -> None:
    folder = asked_to_confirm(tmp_path)
    answer(folder, "mark failed: not what was asked")
    assert folder.load_state().status == "failed"
    folder = asked_to_confirm(tmp_path / "again")
    answer(folder, "abort")
    assert folder.load_state().status == "aborted"


def test_the_agents_own_question_keeps_free_text(tmp_path: Path) -> None:
    script = [act("escalate", question="Tabs or spaces?", options=["tabs", "spaces"])]
    folder = make_task(tmp_path, script)
    with Executor(folder, replay(folder)) as executor:
        executor.step()
    answer(folder, "neither: follow the file's own style")
    assert folder.load_state().decisions[-1].answer == "neither: follow the file's own style"
