"""Answers that never parse escalate as such, with the raw answers to look at: not a model
error with a "retry" that cannot help."""

from __future__ import annotations

from pathlib import Path

from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.llm.litellm_model import LiteLLMModel
from forgetui.engine.operator.verbs import answer
from forgetui.engine.step.executor import UNPARSED_ESCALATION, Executor
from tests.engine.helpers import litellm_at, make_task
from tests.fake_openai import FakeOpenAI, text_reply, tool_call_reply

RAMBLE = [
    "I think the best approach would be to look at the files first.",
    "Sure! Let me help you with that task. First, we need to understand the code.",
    "<start_of_turn>model\nThe answer is 42.",
]


def _folder(tmp_path: Path) -> TaskFolder:
    (tmp_path / "ws").mkdir()
    return make_task(tmp_path, [])


def test_three_unparseable_answers_escalate_with_the_raw_answers(
    tmp_path: Path, fake_openai: FakeOpenAI
) -> None:
    folder = _folder(tmp_path)
    fake_openai.queue(*(text_reply(text) for text in RAMBLE))
    with Executor(folder, litellm_at(fake_openai, use_tools=False)) as ex:
        reports = [ex.step() for _ in range(UNPARSED_ESCALATION)]
    assert [r.result for r in reports] == ["failure"] * 3
    assert [r.escalation is None for r in reports[:2]] == [True, True]
    escalation = reports[-1].escalation
    assert escalation is not None and escalation.reason == "unparseable"
    assert "could not be parsed" in escalation.question
    assert "retry" not in escalation.options
    # every raw answer is there for the operator, newest last
    for step, text in enumerate(RAMBLE, start=1):
        assert any(
            line.startswith(f"step {step}: ") and text in line for line in escalation.evidence
        )
    state = folder.load_state()
    assert state.status == "escalated" and state.unparsed_streak == 3
    assert len(fake_openai.requests) == 3  # nothing asked after the third


def test_a_parsed_answer_resets_the_count_and_continue_is_routine(
    tmp_path: Path, fake_openai: FakeOpenAI
) -> None:
    folder = _folder(tmp_path)
    fake_openai.queue(
        text_reply(RAMBLE[0]),
        text_reply(RAMBLE[1]),
        text_reply("```yaml\naction: list_dir\nargs: {path: .}\n```"),
        text_reply(RAMBLE[2]),
        text_reply(RAMBLE[0]),
    )
    with Executor(folder, litellm_at(fake_openai, use_tools=False)) as ex:
        reports = [ex.step() for _ in range(5)]
    assert [r.result for r in reports] == ["failure", "failure", "success", "failure", "failure"]
    assert all(r.escalation is None for r in reports)
    assert folder.load_state().unparsed_streak == 2

    fake_openai.queue(text_reply(RAMBLE[1]))
    with Executor(folder, litellm_at(fake_openai, use_tools=False)) as ex:
        third = ex.step()
    assert third.escalation is not None and third.escalation.reason == "unparseable"
    answer(folder, "continue")
    state = folder.load_state()
    assert state.unparsed_streak == 0 and state.status == "paused"
    assert state.decisions == []  # going on after the model's problem decides nothing


def test_bad_arguments_are_not_unparseable(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    folder = _folder(tmp_path)
    model = LiteLLMModel("openai/gpt-4o-mini", api_base=fake_openai.url, timeout_s=5.0)
    fake_openai.queue(*(tool_call_reply(("read_file", {"nope": 1})) for _ in range(3)))
    with Executor(folder, model) as ex:
        reports = [ex.step() for _ in range(3)]
    assert reports[-1].escalation is not None
    assert reports[-1].escalation.reason == "failed_approaches"
