"""The context is held under the model's window, and a prompt over it escalates as such: a
window the step knows of caps the context before the call, one too small escalates before any
request, and a server that says the prompt is over its window is asked once, not three times."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from forgetui.engine import api
from forgetui.engine.context import compile_context, context_inputs
from forgetui.engine.context.inputs import ModelFit
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.llm.litellm_model import LiteLLMModel
from forgetui.engine.step.executor import Executor
from forgetui.engine.step.runner import model_for
from tests.engine.helpers import make_task
from tests.fake_openai import FakeOpenAI, FakeReply, error_reply, text_reply

MODEL = "openai/local-model"  # a name litellm knows nothing of: only the option gives a window
NOTE = '```yaml\naction: note\nargs: {text: "read the file"}\n```'


def _task(tmp_path: Path, **options: Any) -> TaskFolder:
    """A task whose target file alone is larger than a 3,000-token window leaves room for."""
    (tmp_path / "ws").mkdir()
    lines = [
        f"def handler_{n}(request):\n    return respond(request, code={n})\n" for n in range(300)
    ]
    (tmp_path / "ws" / "app.py").write_text("".join(lines))
    return make_task(tmp_path, [], target_files=["app.py"], model_options=options)


def _reply(status: int, message: str) -> FakeReply:
    body = {"error": {"message": message, "type": "invalid_request_error", "code": None}}
    return FakeReply(
        status=status, body=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )


def test_a_window_of_3000_caps_the_context_and_says_so(
    tmp_path: Path, fake_openai: FakeOpenAI
) -> None:
    folder = _task(tmp_path, context_window=3000, max_output_tokens=1024, tools="off")
    uncapped = compile_context(context_inputs(folder, MODEL, fit=ModelFit()))
    assert uncapped.total_tokens > 2000  # the file alone would not fit
    preview = api.preview_context(folder, MODEL)
    cap = int((3000 - 1024) * 0.8)
    assert preview.max_tokens == cap == 1580
    assert preview.total_tokens <= cap
    assert preview.window_problem is None and not preview.over_budget
    said = "to fit the model's window (1,580 = 3,000 - 1,024 output, less 20%)"
    assert any(said in note for note in preview.section("current_state").compressions)

    fake_openai.queue(text_reply(NOTE))
    with Executor(folder, model_for(folder, MODEL, fake_openai.url)) as ex:
        report = ex.step()
    assert (report.action, report.result) == ("note", "success")
    [request] = fake_openai.requests
    assert request["max_tokens"] == 1024
    saved = folder.load_saved_context(1)
    assert saved["max_tokens"] == cap
    assert saved["total_tokens"] <= cap
    # what the step sent is what the preview showed
    assert [m["content"] for m in saved["messages"]] == [m["content"] for m in preview.messages]


def test_a_window_too_small_escalates_before_any_request(
    tmp_path: Path, fake_openai: FakeOpenAI
) -> None:
    folder = _task(tmp_path, context_window=1024)  # and the default 1,024-token output cap
    with Executor(folder, model_for(folder, MODEL, fake_openai.url)) as ex:
        report = ex.step()
    assert fake_openai.requests == []
    assert report.result == "escalated" and not report.model_called
    escalation = report.escalation
    assert escalation is not None and escalation.reason == "context_window"
    question = escalation.question
    for figure in ("1,024 tokens", "1,024-token output cap", "leave 0 for the context"):
        assert figure in question
    assert "larger window" in question and "max_output_tokens" in question
    state = folder.load_state()
    assert state.step == 0 and state.status == "escalated"  # no step was consumed
    # a preview that knows the server (tools: auto sends them there) says the same
    assert api.preview_context(folder, MODEL, api_base=fake_openai.url).window_problem == question


def test_tool_schemas_too_large_for_the_window_say_tools_off(tmp_path: Path) -> None:
    folder = _task(tmp_path, context_window=2048, tools="on")
    ctx = api.preview_context(folder, MODEL)
    assert ctx.tool_tokens > ctx.max_tokens == 819
    assert ctx.window_problem is not None
    assert f"the tool schemas take {ctx.tool_tokens:,} of them" in ctx.window_problem
    assert "--tools off" in ctx.window_problem


def test_a_replay_model_has_no_window(tmp_path: Path) -> None:
    folder = _task(tmp_path, context_window=1024)
    ctx = api.preview_context(folder, "replay")
    assert ctx.window is None and ctx.max_tokens == 8000 and ctx.window_problem is None


def test_the_option_wins_over_litellms_model_info() -> None:
    known = LiteLLMModel("openai/gpt-4o-mini")
    window = known.context_window()
    assert isinstance(window, int) and window > 8000  # from litellm's model info
    known.window_option = 4096
    assert known.context_window() == 4096
    assert LiteLLMModel(MODEL, api_base="http://127.0.0.1:9/v1").context_window() is None


LLAMA_CPP = "Requested tokens (1200) exceed context window of 1024"
OPENAI = "This model's maximum context length is 1024 tokens. However, you requested 1200 tokens."


@pytest.mark.parametrize("message", [LLAMA_CPP, OPENAI])
def test_a_context_window_error_is_not_retried(fake_openai: FakeOpenAI, message: str) -> None:
    fake_openai.queue(_reply(400, message), text_reply(NOTE))
    model = LiteLLMModel(MODEL, api_base=fake_openai.url, timeout_s=5, deadline_s=60)
    reply = model.complete(
        [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}], []
    )
    assert len(fake_openai.requests) == 1 and fake_openai.pending == 1
    assert reply.transport_failed and reply.error is not None
    assert "not retried: the prompt is over the model's context window" in reply.error
    assert "1024" in reply.error  # the server's own words


def test_another_400_is_not_taken_for_a_window_error(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue(error_reply(400))
    model = LiteLLMModel(MODEL, api_base=fake_openai.url, timeout_s=5, deadline_s=60)
    reply = model.complete([{"role": "user", "content": "u"}], [])
    assert reply.error is not None and "HTTP 400" in reply.error
    assert "context window" not in reply.error


def test_a_servers_window_error_escalates_as_context_window_after_one_request(
    tmp_path: Path, fake_openai: FakeOpenAI
) -> None:
    folder = _task(tmp_path)  # no window known: the server is the one to say it
    fake_openai.queue(_reply(400, LLAMA_CPP), text_reply(NOTE), text_reply(NOTE))
    with Executor(folder, model_for(folder, MODEL, fake_openai.url)) as ex:
        report = ex.step()
    assert len(fake_openai.requests) == 1
    escalation = report.escalation
    assert escalation is not None and escalation.reason == "context_window"
    assert "exceed context window of 1024" in escalation.question
    assert "retry" not in escalation.options  # the same prompt cannot fit again
