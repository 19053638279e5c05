"""The workbench's first step against a server probes it (as `forgetui run` does); the header
says, beside the model, what the probe changed (the system prompt merged, tools off, the
server's window), and the next step's preview is compiled under that window."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.llm import server_findings
from forgetui.tui.app import ForgeApp
from forgetui.tui.header import StatusHeader
from tests.fake_openai import FakeOpenAI, FakeReply, text_reply

from .conftest import SIZE, press, settle

pytestmark = pytest.mark.anyio

OVER_WINDOW = "Requested tokens (40012) exceed context window of 8192"
ANSWER = 'I look first.\n```json\n{"action": "list_dir", "args": {"path": "."}}\n```'


@pytest.fixture(autouse=True)
def probing_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(server_findings.PROBE_VARIABLE, "1")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setattr(server_findings, "_this_process", {})


def usage(prompt: int, completion: int = 3) -> dict[str, int]:
    return {"prompt_tokens": prompt, "completion_tokens": completion}


def gemma_probes() -> list[FakeReply]:
    body = {"error": {"code": 400, "message": OVER_WINDOW, "type": "invalid_request_error"}}
    return [
        text_reply("OK", usage(10)),
        text_reply("one, two", usage(22, 64), finish_reason="length"),
        text_reply('{"name": "complete"}', usage(19)),
        text_reply("", usage(19, 1)),
        text_reply("OK", usage(10)),  # the system message dropped
        FakeReply(status=400, body=json.dumps(body).encode(),
                  headers={"Content-Type": "application/json"}),
    ]  # fmt: skip


def header(app: ForgeApp) -> str:
    return app.workbench.query_one(StatusHeader).render_line(0).text


async def test_the_header_tags_the_model_with_what_the_probe_changed(
    workbench: Callable[..., ForgeApp], quick_hello: Path, fake_openai: FakeOpenAI
) -> None:
    fake_openai.queue(*gemma_probes(), text_reply(ANSWER, usage(900, 20)))
    app = workbench(quick_hello, model="openai/gemma", api_base=fake_openai.url, engine="thread")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "model openai/gemma │" in header(app)  # nothing probed yet: no tag
        before = app.reader.snapshot().context
        assert before is not None and before.max_tokens > 8192 - 1024  # no window known yet
        await press(pilot, "s")
        assert len(fake_openai.requests) == 7 and fake_openai.pending == 0
        sent = fake_openai.requests[-1]
        assert [m["role"] for m in sent["messages"]] == ["user"] and "tools" not in sent
        assert TaskFolder.open(app.reader.path).load_state().step == 1
        await settle(pilot)
        line = header(app)
        assert "model openai/gemma (merged system, tools off, 8K window)" in line, line
        # the next step's preview is compiled as the step will be: under the server's window
        # less the answer's cap (1,024)
        cap = app.reader.snapshot().context
        assert cap is not None and cap.max_tokens <= 8192 - 1024, line
