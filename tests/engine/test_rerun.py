"""Re-running a step: its saved context to another model through real litellm and a loopback
server, nothing executed and nothing written; adopting the new answer in a fork."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from forgetui.engine import api
from forgetui.engine.base.errors import ForgeError
from forgetui.engine.folder.catalog import actions_of
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.history.rerun import adopt_rerun, recorded_answer, rerun_step
from tests.cli.stepped_sample import files_of
from tests.engine.helpers import act, make_task
from tests.fake_openai import FakeOpenAI, error_reply, slow_reply, text_reply

WRITE_ANSWER = (
    "I'll write it.\n```yaml\naction: write_file\nargs:\n  path: hello.py\n"
    '  content: print("Hello, world!")\n```'
)


@pytest.fixture
def stepped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> TaskFolder:
    """hello_world after its two replayed steps (list_dir, read_file)."""
    monkeypatch.setenv("FORGETUI_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    folder = api.init_sample("hello_world", into=tmp_path / "ws")
    outcome = api.run(folder.path, max_steps=2)
    assert outcome.final["step"] == 2
    return TaskFolder.open(folder.path)


def test_rerun_sends_the_saved_messages_and_writes_nothing(
    stepped: TaskFolder, fake_openai: FakeOpenAI
) -> None:
    fake_openai.queue(text_reply(WRITE_ANSWER, {"prompt_tokens": 1111, "completion_tokens": 42}))
    before = files_of(stepped.workspace)
    records = len(stepped.log)

    rerun = rerun_step(stepped, 2, "openai/fake", api_base=fake_openai.url)

    # exactly the two messages saved for step 2, with the execution phase's actions as tools
    saved = stepped.load_saved_context(2)["messages"]
    [request] = fake_openai.requests
    assert request["messages"] == saved
    assert [m["role"] for m in request["messages"]] == ["system", "user"]
    assert {t["function"]["name"] for t in request["tools"]} == {
        a.name for a in actions_of("execution")
    }
    # both answers, side by side
    assert (rerun.recorded.model, rerun.recorded.action) == ("replay", "read_file")
    assert rerun.recorded.args == {"path": "test_hello.py"}
    assert rerun.recorded.result == "success"
    assert (rerun.new.model, rerun.new.action) == ("openai/fake", "write_file")
    assert rerun.new.args == {"path": "hello.py", "content": 'print("Hello, world!")'}
    assert rerun.new.raw_response == WRITE_ANSWER
    assert (rerun.new.prompt_tokens, rerun.new.completion_tokens) == (1111, 42)
    assert rerun.new.error is None and not rerun.new.call_failed
    assert not rerun.same_action and rerun.verdict == "different action"
    assert rerun.exit_code == 0
    assert rerun.messages_tokens == stepped.load_saved_context(2)["total_tokens"] > 0
    shown = rerun.to_json()
    assert shown["same_action"] is False and shown["phase"] == "execution"
    assert shown["recorded"]["raw_response"].startswith("action: read_file")
    # nothing executed, nothing written
    assert files_of(stepped.workspace) == before
    assert len(TaskFolder.open(stepped.path).log) == records
    assert not (stepped.workspace / "hello.py").exists()


def test_replay_answers_with_its_entry_for_the_step_and_keeps_replay_pos(
    stepped: TaskFolder,
) -> None:
    position = (stepped.path / "replay.pos").read_bytes()
    rerun = rerun_step(stepped, 1, "replay")
    assert rerun.new.action == "list_dir" and rerun.same_action
    assert rerun.verdict == "same action"
    assert (stepped.path / "replay.pos").read_bytes() == position
    # entry 3 of the script answers a re-run of step 3 (if there were one); here step 2's is 2
    assert rerun_step(stepped, 2, "replay").new.action == "read_file"


@pytest.mark.parametrize(
    ("reply", "bounds", "said"),
    [
        (error_reply(500, retry_after="0"), {}, "HTTP 500"),
        (slow_reply(5.0), {"timeout_s": 0.5}, "timed out after 0.5 s"),
    ],
)
def test_a_failed_call_is_reported_not_raised(
    stepped: TaskFolder, fake_openai: FakeOpenAI, reply, bounds, said: str
) -> None:
    fake_openai.queue(reply, reply, reply)
    before = files_of(stepped.workspace)
    rerun = rerun_step(stepped, 2, "openai/fake", api_base=fake_openai.url, bounds=bounds)
    assert rerun.new.call_failed and rerun.new.action is None
    assert rerun.new.error is not None and said in rerun.new.error
    assert rerun.exit_code == 1 and rerun.verdict == "no new answer"
    assert rerun.not_adoptable == "the model call failed"
    assert files_of(stepped.workspace) == before


def test_an_unparsable_answer_is_an_answer(stepped: TaskFolder, fake_openai: FakeOpenAI) -> None:
    fake_openai.queue(text_reply("I am not sure what to do."))
    rerun = rerun_step(stepped, 2, "openai/fake", api_base=fake_openai.url)
    assert rerun.new.action is None and not rerun.new.call_failed
    assert rerun.new.outcome().startswith("unparsed: ")
    assert rerun.exit_code == 0 and not rerun.same_action
    assert rerun.not_adoptable == "the answer names no action"


def test_steps_that_cannot_be_rerun_say_why_in_one_line(stepped: TaskFolder) -> None:
    with pytest.raises(
        ForgeError, match=r"^task hello_world: step 9 is not in the log \(steps 1 to 2\)$"
    ):
        recorded_answer(stepped, 9)
    with pytest.raises(ForgeError, match="steps are numbered from 1"):
        rerun_step(stepped, 0, "replay")
    with pytest.raises(ForgeError, match="the human model cannot answer a re-run"):
        rerun_step(stepped, 1, "human")
    stepped.context_path(2).unlink()
    with pytest.raises(ForgeError, match=r"^task hello_world: step 2 has no saved context"):
        rerun_step(stepped, 2, "replay")


def test_a_step_whose_call_failed_has_nothing_to_compare(tmp_path: Path) -> None:
    folder = make_task(tmp_path, [act("list_dir", path=".")])
    api.run(folder.path, max_steps=2)  # the script has no step 2: that call fails
    with pytest.raises(ForgeError) as caught:
        rerun_step(TaskFolder.open(folder.path), 2, "replay")
    assert caught.value.message.startswith(
        "task t1: step 2 has no answer to compare: its model call failed"
    )
    assert "\n" not in caught.value.message


def test_the_phase_comes_from_before_the_step_when_the_context_does_not_say(
    tmp_path: Path,
) -> None:
    folder = make_task(
        tmp_path,
        [act("list_dir", path="."), act("complete", summary="planned")],
        phase="planning",
    )
    api.run(folder.path, max_steps=2)
    folder = TaskFolder.open(folder.path)
    assert folder.load_state().phase == "execution"
    path = folder.context_path(1)
    saved = yaml.safe_load(path.read_text())
    assert saved.pop("phase") == "planning"
    path.write_text(yaml.safe_dump(saved, sort_keys=False))  # a context saved before `phase`
    assert rerun_step(folder, 1, "replay").phase == "planning"  # checkpoint 0, not now


def test_adopting_runs_the_new_answer_as_step_n_of_a_fork(
    stepped: TaskFolder, fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    fake_openai.queue(text_reply(WRITE_ANSWER))
    rerun = rerun_step(stepped, 2, "openai/fake", api_base=fake_openai.url)
    before = files_of(stepped.workspace)

    adopted = adopt_rerun(stepped, rerun, tmp_path / "fork")

    assert adopted.step == 2 and adopted.action == "write_file" and adopted.result == "success"
    fork = TaskFolder.open(adopted.folder)
    assert fork.workspace == tmp_path / "fork"
    assert (fork.workspace / "hello.py").read_text() == 'print("Hello, world!")'
    [intent] = [r for r in fork.log.last_intents(1)]
    assert (intent.step, intent.action, intent.model) == (2, "write_file", "openai/fake")
    assert intent.raw_response == WRITE_ANSWER
    assert fork.load_state().step == 2
    assert [e["action"] for e in api.log_entries(fork) if "action" in e] == [
        "list_dir",
        "write_file",
    ]
    # the original task is untouched, and only one call was ever made
    assert files_of(stepped.workspace) == before
    assert len(fake_openai.requests) == 1
