"""`forgetui run --model M --api-base URL` with no other flag: the first run probes the server
as `doctor` does, keeps what it found in the user cache and applies it (a Gemma-like server
gets the system prompt merged, tools off and its window); later runs read the cache instead
of probing; `doctor` probes again and replaces it; a flag the user gives wins; a broken cache
is ignored with a warning and rewritten; a server that does not answer is never cached."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest

from forgetui.engine.folder.records import IntentRecord
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.llm import server_findings
from tests.fake_openai import FakeOpenAI, FakeReply, text_reply, tool_call_reply

SECRET = "sk-test-NEVER-CACHED-9191"
OVER_WINDOW = "Requested tokens (40012) exceed context window of 8192"
ANSWER = 'I look first.\n```json\n{"action": "list_dir", "args": {"path": "."}}\n```'


@pytest.fixture(autouse=True)
def probing_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """The suite turns probing off for runs against scripted servers; here it is the subject.
    Each run starts as a new process would: nothing learnt in this one carries over."""
    monkeypatch.setenv(server_findings.PROBE_VARIABLE, "1")
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setattr(server_findings, "_this_process", {})


def usage(prompt: int, completion: int = 3) -> dict[str, int]:
    return {"prompt_tokens": prompt, "completion_tokens": completion}


def over_window() -> FakeReply:
    body = {"error": {"code": 400, "message": OVER_WINDOW, "type": "invalid_request_error"}}
    return FakeReply(status=400, body=json.dumps(body).encode(),
                     headers={"Content-Type": "application/json"})  # fmt: skip


def gemma_probes() -> list[FakeReply]:
    """What a llama.cpp server with Gemma's template answers doctor's probes: the system
    message and the tool leave the prompt count unchanged, the window is in an error."""
    return [
        text_reply("OK", usage(10)),  # reachable
        text_reply("one, two", usage(22, 64), finish_reason="length"),  # tokens/s
        text_reply('{"name": "complete"}', usage(19)),  # tool calling: answered in text
        text_reply("", usage(19, 1)),  # the same prompt without the tool: 19 again
        text_reply("OK", usage(10)),  # with the system message: 10 again (dropped)
        over_window(),  # the long prompt
    ]


def healthy_probes() -> list[FakeReply]:
    return [
        text_reply("OK", usage(10)),
        text_reply("one, two", usage(22, 64)),
        tool_call_reply(("complete", {"summary": "ok"}), usage=usage(96)),
        text_reply("OK", usage(10 + 150)),  # the system message counted: honoured
        over_window(),
    ]


def cache(home: Path) -> dict[str, Any]:
    return json.loads((home / "cache" / server_findings.CACHE_NAME).read_text())


def new_task(cli_in_process: Any, tmp_path: Path, name: str) -> Path:
    return Path(cli_in_process("init", "hello_world", "--into", tmp_path / name).out.strip())


def run(cli_in_process: Any, task: Path, url: str, *flags: str) -> Any:
    return cli_in_process(
        "run", task, "--model", "openai/gemma", "--api-base", url, "--max-steps", "1",
        "--json", *flags,
    )  # fmt: skip


def sent_to_the_model(fake: FakeOpenAI) -> dict[str, Any]:
    """The run's request: the last one, the only one with a real context."""
    return fake.requests[-1]


def test_the_first_run_probes_and_caches_the_second_reads_the_cache(
    cli_in_process, tmp_path: Path, fake_openai
) -> None:
    home = tmp_path / "home"
    task = new_task(cli_in_process, tmp_path, "one")
    fake_openai.queue(*gemma_probes(), text_reply(ANSWER, usage(900, 20)))
    first = run(cli_in_process, task, fake_openai.url)
    assert first.code == 0, first.err
    assert len(fake_openai.requests) == 7 and fake_openai.pending == 0  # 6 probes, 1 step
    said = [line for line in first.err.splitlines() if "probed" in line]
    assert len(said) == 1, first.err
    assert "system prompt merged into the user message" in said[0]
    assert "tools off" in said[0] and "context window 8192 tokens" in said[0]
    # applied: one user message holding the system prompt, no tool schemas
    request = sent_to_the_model(fake_openai)
    assert [m["role"] for m in request["messages"]] == ["user"]
    assert request["messages"][0]["content"].startswith("<system>")
    assert "tools" not in request
    intent = next(
        r for r in TaskFolder.open(task).log.iter_records() if isinstance(r, IntentRecord)
    )
    assert intent.system_role == "merge" and not intent.tools_sent
    # kept per server and model, with nothing secret in it
    [(key, entry)] = cache(home)["servers"].items()
    assert key.endswith(" openai/gemma") and entry["api_base"] == fake_openai.url
    assert entry["options"] == {"system_role": "merge", "tools": "off", "context_window": 8192}
    assert SECRET not in (home / "cache" / server_findings.CACHE_NAME).read_text()

    server_findings._this_process.clear()  # a new process
    second_task = new_task(cli_in_process, tmp_path, "two")
    fake_openai.queue(text_reply(ANSWER, usage(900, 20)))
    second = run(cli_in_process, second_task, fake_openai.url)
    assert second.code == 0, second.err
    assert len(fake_openai.requests) == 8  # the step's request only: no probe
    assert "as probed" in second.err and "system prompt merged" in second.err
    assert sent_to_the_model(fake_openai)["messages"][0]["content"].startswith("<system>")


def test_doctor_probes_again_and_replaces_the_findings(
    cli_in_process, tmp_path: Path, fake_openai
) -> None:
    home = tmp_path / "home"
    fake_openai.queue(*gemma_probes())
    args = ["doctor", "--model", "openai/gemma", "--api-base", fake_openai.url]
    assert cli_in_process(*args).code == 0
    [entry] = cache(home)["servers"].values()
    assert entry["options"]["system_role"] == "merge"
    # the server got a template with a system role and tool calling: doctor says so, and keeps it
    fake_openai.queue(*healthy_probes())
    again = cli_in_process(*args)
    assert again.code == 0 and "kept for runs" in again.out
    [entry] = cache(home)["servers"].values()
    assert entry["options"] == {"context_window": 8192}

    server_findings._this_process.clear()
    task = new_task(cli_in_process, tmp_path, "run")
    fake_openai.queue(text_reply(ANSWER, usage(900, 20)))
    result = run(cli_in_process, task, fake_openai.url)
    assert result.code == 0, result.err
    request = sent_to_the_model(fake_openai)
    assert [m["role"] for m in request["messages"]] == ["system", "user"]


def test_a_flag_wins_over_the_cached_finding(cli_in_process, tmp_path: Path, fake_openai) -> None:
    fake_openai.queue(*gemma_probes())
    args = ["doctor", "--model", "openai/gemma", "--api-base", fake_openai.url]
    assert cli_in_process(*args).code == 0
    task = new_task(cli_in_process, tmp_path, "run")
    fake_openai.queue(text_reply(ANSWER, usage(900, 20)))
    result = run(cli_in_process, task, fake_openai.url, "--system-role", "system")
    assert result.code == 0, result.err
    request = sent_to_the_model(fake_openai)
    assert [m["role"] for m in request["messages"]] == ["system", "user"]  # the flag's
    assert "tools" not in request  # the finding the flag did not touch still applies
    assert "your system_role system kept" in result.err


def test_a_broken_cache_file_is_ignored_with_one_warning_and_rewritten(
    cli_in_process, tmp_path: Path, fake_openai
) -> None:
    home = tmp_path / "home"
    path = home / "cache" / server_findings.CACHE_NAME
    path.parent.mkdir(parents=True)
    path.write_text('{"version": 1, "servers": {"x": {"model": 3}}')  # cut short by hand
    task = new_task(cli_in_process, tmp_path, "run")
    fake_openai.queue(*gemma_probes(), text_reply(ANSWER, usage(900, 20)))
    result = run(cli_in_process, task, fake_openai.url)
    assert result.code == 0, result.err
    warned = [line for line in result.err.splitlines() if str(path) in line]
    assert len(warned) == 1 and "ignored" in warned[0], result.err
    assert len(fake_openai.requests) == 7  # probed, as if there were no cache
    [entry] = cache(home)["servers"].values()  # rewritten whole, readable again
    assert entry["options"]["tools"] == "off"


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_server_that_does_not_answer_is_not_cached(cli_in_process, tmp_path: Path) -> None:
    home = tmp_path / "home"
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    task = new_task(cli_in_process, tmp_path, "run")
    result = run(cli_in_process, task, url)
    assert "Traceback" not in result.err
    assert result.code == 3, result.err  # the step's call failed too: escalated, as before
    said = [line for line in result.err.splitlines() if "could not probe" in line]
    assert len(said) == 1 and "nothing cached" in said[0], result.err
    assert not (home / "cache" / server_findings.CACHE_NAME).exists()
