"""A server that was down when a long-lived process (the workbench) first probed it is probed
again once RETRY_AFTER_S has passed, not remembered as down for the process's whole life; within
that time the failure stands, so one run's line and its run share one probe."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from forgetui.engine.llm import server_findings
from tests.fake_openai import FakeOpenAI, FakeReply, text_reply, tool_call_reply

OVER_WINDOW = "Requested tokens (40012) exceed context window of 8192"


@pytest.fixture(autouse=True)
def probing_on(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(server_findings.PROBE_VARIABLE, "1")
    monkeypatch.setenv("FORGETUI_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-retry-probe")
    monkeypatch.setattr(server_findings, "_this_process", {})


def usage(prompt: int, completion: int = 3) -> dict[str, int]:
    return {"prompt_tokens": prompt, "completion_tokens": completion}


def healthy(server: FakeOpenAI) -> None:
    error = {"error": {"code": 400, "message": OVER_WINDOW, "type": "invalid_request_error"}}
    server.queue(
        text_reply("OK", usage(10)),
        text_reply("one, two", usage(22, 64)),
        tool_call_reply(("complete", {"summary": "ok"}), usage=usage(96)),
        text_reply("OK", usage(10 + 150)),
        FakeReply(status=400, body=json.dumps(error).encode(),
                  headers={"Content-Type": "application/json"}),
    )  # fmt: skip


def test_a_server_down_at_start_is_probed_again_after_a_while(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first = FakeOpenAI()
    first.start()
    url, port = first.url, first.port
    first.stop()  # down: its port refuses connections
    now = [1000.0]
    monkeypatch.setattr(server_findings, "_clock", lambda: now[0])

    down = server_findings.server_findings("openai/gemma", url, timeout_s=2.0)
    assert down is not None and down.source == "failed"

    up = FakeOpenAI(port=port)  # the operator starts the server
    up.start()
    try:
        healthy(up)
        now[0] += server_findings.RETRY_AFTER_S / 2
        still = server_findings.server_findings("openai/gemma", url, timeout_s=2.0)
        assert still is down and up.requests == []  # not asked again so soon
        now[0] += server_findings.RETRY_AFTER_S / 2
        found = server_findings.server_findings("openai/gemma", url, timeout_s=2.0)
        assert found is not None and found.source == "probed", found
        assert up.requests  # the probe reached the server that is up now
        assert server_findings.cache_file().exists()  # complete: kept for later runs
    finally:
        up.stop()
