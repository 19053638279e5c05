"""The probed findings of a server: what a run's line and the header say for each option, what
is kept (never a password in a URL, never an unfinished probe) and what an explicit setting
keeps."""

from __future__ import annotations

from pathlib import Path

import pytest

from forgetui.engine.folder.model_options import ModelOptions
from forgetui.engine.llm import server_findings
from forgetui.engine.llm.server_findings import Findings, server_url
from tests.fake_openai import FakeOpenAI, slow_reply, text_reply

ALL = {
    "system_role": "merge",
    "tools": "off",
    "context_window": 8192,
    "max_output_tokens": 512,
    "timeout_s": 140.0,
}


@pytest.fixture(autouse=True)
def probing_on(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(server_findings.PROBE_VARIABLE, "1")
    monkeypatch.setenv("FORGETUI_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setattr(server_findings, "_this_process", {})


def test_every_finding_has_its_words_in_the_line_and_the_tag() -> None:
    found = Findings("openai/gemma", "http://127.0.0.1:8080/v1", "cached", ALL, {}, "T")
    options = ModelOptions()
    assert found.tag(options) == "merged system, tools off, 8K window, cap 512, 140 s"
    line = found.line(options)
    assert line.startswith("openai/gemma at http://127.0.0.1:8080/v1 as probed T: ")
    for words in (
        "system prompt merged into the user message",
        "tools off",
        "context window 8192 tokens",
        "answers capped at 512 tokens",
        "timeout 140 s",
    ):
        assert words in line
    applied = found.apply(options)
    assert (applied.system_role, applied.tools, applied.context_window) == ("merge", "off", 8192)
    assert (applied.max_output_tokens, applied.timeout_s) == (512, 140.0)


def test_what_the_user_set_is_kept_and_said() -> None:
    found = Findings("openai/gemma", "http://h/v1", "cached", ALL)
    mine = ModelOptions().with_overrides(tools="on", timeout_s=600)  # flags, config or task
    applied = found.apply(mine)
    assert (applied.tools, applied.timeout_s, applied.system_role) == ("on", 600, "merge")
    said = found.line(mine)
    assert "your tools on kept" in said and "your timeout_s 600 kept" in said
    assert "tools" not in found.tag(mine) and "merged system" in found.tag(mine)
    # a setting equal to the finding is not "kept over" it
    same = ModelOptions().with_overrides(tools="off")
    assert "kept" not in found.line(same).split(";")[-2]


def test_the_kept_url_has_no_password_or_query() -> None:
    assert server_url("http://me:s3cret@gpu-box:8000/v1/?api_key=k") == "http://gpu-box:8000/v1"
    assert server_url("https://[::1]:8443/v1") == "https://[::1]:8443/v1"


def test_a_probe_that_timed_out_is_used_once_and_not_kept(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue(text_reply("OK"), slow_reply(5.0))  # the speed probe gets no answer in 1 s
    found = server_findings.server_findings("openai/gemma", fake_openai.url, timeout_s=1.0)
    assert found is not None and found.source == "probed"
    assert len(fake_openai.requests) == 2  # nothing sent after the timeout
    assert not server_findings.cache_file().exists()
    # the same process does not probe a second time (the run builds its model after the line)
    again = server_findings.server_findings("openai/gemma", fake_openai.url, timeout_s=1.0)
    assert again is found and len(fake_openai.requests) == 2


def test_probing_off_reads_and_probes_nothing(
    monkeypatch: pytest.MonkeyPatch, fake_openai: FakeOpenAI
) -> None:
    monkeypatch.setenv(server_findings.PROBE_VARIABLE, "0")
    assert server_findings.server_findings("openai/gemma", fake_openai.url) is None
    assert fake_openai.requests == []
