"""The provider's count of the last prompt beside forgetui's: budgets stay in one
tokenizer, but `status` shows what the server counted too; `context` shows the tool schemas
sent with the request as a line of their own."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.fake_openai import FakeOpenAI, text_reply, tool_call_reply

MODEL = "openai/local-model"
SERVER_COUNT = 1126


@pytest.fixture(autouse=True)
def no_key_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def _task(cli, tmp_path: Path, **options: object) -> Path:
    """hello_world with `options` as its model_options, the change accepted."""
    task = Path(cli("init", "hello_world", "--into", tmp_path / "run").out.strip())
    spec_file = task / "task.yaml"
    spec = yaml.safe_load(spec_file.read_text())
    spec["model_options"] = options
    spec_file.write_text(yaml.safe_dump(spec, sort_keys=False))
    accepted = cli("accept-task-change", task)
    assert accepted.code == 0, accepted.err
    return task


@pytest.mark.parametrize("tools", ["off", "on"])
def test_status_shows_the_providers_prompt_count_beside_forgetuis(
    cli, tmp_path: Path, fake_openai: FakeOpenAI, tools: str
) -> None:
    task = _task(cli, tmp_path, tools=tools)
    before = cli("status", task, "--json")
    assert before.code == 0, before.err
    assert before.json()["prompt_tokens"] == {"forgetui": 0, "provider": None}

    usage = {"prompt_tokens": SERVER_COUNT, "completion_tokens": 12}
    if tools == "on":
        fake_openai.queue(tool_call_reply(("read_file", {"path": "test_hello.py"}), usage=usage))
    else:
        answer = "```yaml\naction: read_file\nargs: {path: test_hello.py}\n```"
        fake_openai.queue(text_reply(answer, usage))
    ran = cli(
        "run", task, "--model", MODEL, "--api-base", fake_openai.url, "--max-steps", "1", "--json"
    )
    assert ran.code == 0, ran.err + ran.out
    assert len(fake_openai.requests) == 1

    saved = yaml.safe_load((task / "artifacts" / "contexts" / "step-000001.yaml").read_text())
    assert (saved["tool_tokens"] > 0) is (tools == "on")
    ours = saved["total_tokens"] + saved["tool_tokens"]  # the whole request, as budgeted
    status = cli("status", task, "--json").json()
    assert status["prompt_tokens"] == {"forgetui": ours, "provider": SERVER_COUNT}

    text = cli("status", task)
    assert text.code == 0, text.err
    assert f"last prompt: {ours:,} tokens by forgetui's count, the provider 1,126" in text.out


def test_a_replay_run_has_no_provider_count(cli, tmp_path: Path) -> None:
    task = Path(cli("init", "hello_world", "--into", tmp_path / "run").out.strip())
    assert cli("run", task, "--max-steps", "1", "--json").code == 0
    counts = cli("status", task, "--json").json()["prompt_tokens"]
    assert counts["forgetui"] > 0 and counts["provider"] is None
    assert "(the provider reported none)" in cli("status", task).out


def test_context_shows_the_tool_schemas_as_a_line_of_their_own(cli, tmp_path: Path) -> None:
    task = _task(cli, tmp_path, tools="on")
    data = cli("context", task, "--model", MODEL, "--json").json()
    assert data["tool_tokens"] > 800
    assert data["request_tokens"] == data["total_tokens"] + data["tool_tokens"]
    out = cli("context", task, "--model", MODEL).out
    rows = [line.split("│") for line in out.splitlines() if "│" in line]
    cells = {row[1].strip(): [cell.strip() for cell in row[2:4]] for row in rows if len(row) > 3}
    assert cells["+ tool schemas"] == [str(data["tool_tokens"]), ""]
    assert cells["total"] == [str(data["request_tokens"]), str(data["max_tokens"])]

    off = cli("context", task, "--model", "replay", "--json").json()  # a script takes no tools
    assert off["tool_tokens"] == 0
