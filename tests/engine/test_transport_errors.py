"""A failed model call is the operator's problem: logged and escalated, never in the agent's
memory, last errors, recent actions or decisions."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from forgetui.engine.folder.records import ResultRecord
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.operator.verbs import answer
from forgetui.engine.step.executor import Executor
from tests.engine.helpers import litellm_at, make_task
from tests.fake_openai import FakeOpenAI, error_reply, tool_call_reply


def _user_text(body: dict[str, object]) -> str:
    messages = body["messages"]
    assert isinstance(messages, list)
    return "\n".join(str(m["content"]) for m in messages)


def _saved(folder: TaskFolder, step: int) -> dict[str, object]:
    path = folder.path / "artifacts" / "contexts" / f"step-{step:06d}.yaml"
    return yaml.safe_load(path.read_text())


def _without_step_numbers(text: str) -> str:
    """The step counter moves on; everything else the model sees must not."""
    return re.sub(r"\d+", "N", text)


def test_failed_model_call_stays_out_of_the_next_context(
    tmp_path: Path, fake_openai: FakeOpenAI
) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "notes.txt").write_text("remember me\n")
    folder = make_task(tmp_path, [])
    fake_openai.queue(
        tool_call_reply(("read_file", {"path": "notes.txt"})),
        error_reply(500),
        error_reply(500),
        error_reply(500),
    )
    with Executor(folder, litellm_at(fake_openai)) as ex:
        assert ex.step().result == "success"
        failed = ex.step()
    assert failed.result == "error"
    assert failed.escalation is not None and failed.escalation.reason == "model_error"
    error_text = "fake error 500"
    assert error_text in failed.escalation.question

    answer(folder, "retry")
    fake_openai.queue(tool_call_reply(("write_file", {"path": "out.txt", "content": "hi\n"})))
    with Executor(folder, litellm_at(fake_openai)) as ex:
        after = ex.step()
    assert (after.action, after.result) == ("write_file", "success")
    assert fake_openai.pending == 0

    # the model got the same context after the failure as at the failed step: no error text
    requests = fake_openai.requests
    assert len(requests) == 5  # step 1, step 2's three attempts, step 3
    before, next_step = requests[1], requests[4]
    assert error_text not in _user_text(next_step)
    assert "model call failed" not in _user_text(next_step)
    assert _without_step_numbers(_user_text(next_step)) == _without_step_numbers(_user_text(before))
    saved_before, saved_after = _saved(folder, 2), _saved(folder, 3)
    assert saved_after["total_tokens"] == saved_before["total_tokens"]
    assert saved_after["sections"] == saved_before["sections"]

    # the operator still sees the failed step in the log, marked as a transport failure
    results = [r for r in folder.log.tail(10, ("result",)) if isinstance(r, ResultRecord)]
    assert [(r.step, r.result, r.transport) for r in results] == [
        (1, "success", None),
        (2, "error", True),
        (3, "success", None),
    ]
    assert results[1].error is not None and error_text in results[1].error

    # nothing of it in the agent's memory, last errors, failed streak or decisions
    memory = folder.load_memory()
    remembered = [i.step for i in memory.items if i.type == "action_result"]
    assert 2 not in remembered and 1 in remembered and 3 in remembered
    state = folder.load_state()
    assert not any(error_text in e for e in state.probe.last_errors)
    assert state.failed_streak == 0
    assert state.decisions == []
