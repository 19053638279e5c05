"""Tools on purpose: `tools: on|off|auto` decides whether schemas go with the
request; when they do, available_actions names the actions only, and the schemas' tokens are
counted against max_tokens and saved with the step's context."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from forgetui.engine import api
from forgetui.engine.base.tokens import counter_for
from forgetui.engine.context import compile_context, context_inputs
from forgetui.engine.context.inputs import ModelFit
from forgetui.engine.folder.catalog import actions_of
from forgetui.engine.llm import tool_schemas
from forgetui.engine.start.samples import init_sample, sample_names
from forgetui.engine.step.executor import Executor
from forgetui.engine.step.runner import model_for
from tests.engine.helpers import make_task
from tests.fake_openai import FakeOpenAI, text_reply, tool_call_reply

MODEL = "openai/local-model"
NOTE = '```yaml\naction: note\nargs: {text: "looked"}\n```'


def _schema_tokens(phase: str) -> int:
    return counter_for(MODEL).count(json.dumps(tool_schemas(actions_of(phase))))


@pytest.mark.parametrize(("tools", "sent"), [("on", True), ("off", False), ("auto", True)])
def test_the_tools_option_decides_what_goes_and_what_is_counted(
    tmp_path: Path, fake_openai: FakeOpenAI, tools: str, sent: bool
) -> None:
    folder = make_task(tmp_path, [], model_options={"tools": tools})
    preview = api.preview_context(folder, MODEL, api_base=fake_openai.url)
    fake_openai.queue(tool_call_reply(("note", {"text": "looked"})) if sent else text_reply(NOTE))
    with Executor(folder, model_for(folder, MODEL, fake_openai.url)) as ex:
        report = ex.step()
    assert (report.action, report.result) == ("note", "success")
    [request] = fake_openai.requests
    assert ("tools" in request) is sent
    saved = folder.load_saved_context(1)
    user = saved["messages"][1]["content"]
    if sent:
        names = [tool["function"]["name"] for tool in request["tools"]]
        # more than available_actions' 800-token budget: counted beside it, against the total
        assert saved["tool_tokens"] == _schema_tokens("execution") > 800
        assert f"names: {', '.join(names)}" in user
        assert "sent with this request as tools" in user
    else:
        assert saved["tool_tokens"] == 0
    described = "read_file(path, start_line?, end_line?, max_bytes?): file text with line numbers"
    assert (described in user) is not sent  # with tools, the schemas alone describe them
    assert saved["total_tokens"] + saved["tool_tokens"] <= saved["max_tokens"]
    # the preview counted and showed what the step sent
    assert preview.tool_tokens == saved["tool_tokens"]
    assert [m["content"] for m in preview.messages] == [m["content"] for m in saved["messages"]]


def test_the_preview_decides_tools_from_the_task_options(tmp_path: Path) -> None:
    """on and off agree with the step; auto previews tools only where it knows the server."""
    folder = make_task(tmp_path, [], model_options={"tools": "on"})
    assert api.preview_context(folder, MODEL).tool_tokens == _schema_tokens("execution")
    assert api.preview_context(folder, "replay").tool_tokens == 0  # a script takes no tools
    (tmp_path / "auto").mkdir()
    auto = make_task(tmp_path / "auto", [])
    assert api.preview_context(auto, MODEL).tool_tokens == 0
    assert api.preview_context(auto, MODEL, api_base="http://127.0.0.1:9/v1").tool_tokens > 0


def test_max_tokens_includes_the_schemas(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "app.py").write_text("".join(f"x_{n} = {n}\n" for n in range(600)))
    folder = make_task(tmp_path, [], target_files=["app.py"], limits={"max_tokens": 2500})
    without = compile_context(context_inputs(folder, MODEL, fit=ModelFit()))
    ctx = compile_context(context_inputs(folder, MODEL, fit=ModelFit(tools_sent=True)))
    assert ctx.tool_tokens > 800 and not ctx.over_budget
    assert ctx.request_tokens == ctx.total_tokens + ctx.tool_tokens <= 2500
    assert ctx.total_tokens < without.total_tokens  # the file excerpt gave way to the schemas
    cut = ctx.section("current_state").compressions
    assert any("to fit max_tokens 2500" in note for note in cut)
    assert ctx.to_json()["tool_tokens"] == ctx.tool_tokens


@pytest.mark.parametrize("sample", sample_names())
def test_every_sample_fits_its_default_budgets_with_tools(tmp_path: Path, sample: str) -> None:
    folder = init_sample(sample, tmp_path / sample)
    ctx = compile_context(context_inputs(folder, MODEL, fit=ModelFit(tools_sent=True)))
    assert ctx.tool_tokens > 0
    assert not ctx.over_budget, ctx.over_budget
    assert ctx.request_tokens <= ctx.max_tokens == folder.spec.limits.max_tokens
    actions = ctx.section("available_actions")
    assert actions.tokens <= actions.budget and not actions.compressions
