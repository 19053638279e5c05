"""`forgetui doctor` against OpenAI-compatible servers on loopback: each probe gets a scripted
reply, and the verdict and options must follow from what the server did."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from typing import Any

import pytest
import yaml

from forgetui.cli import main
from forgetui.engine.folder.model_options import ModelOptions
from tests.fake_openai import (
    FakeOpenAI,
    FakeReply,
    error_reply,
    slow_reply,
    text_reply,
    tool_call_reply,
)

LABEL_WIDTH = 16
LLAMA_CPP_PYTHON_OVER_WINDOW = "Requested tokens (40012) exceed context window of 8192"


@pytest.fixture(autouse=True)
def no_key_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def usage(prompt: int, completion: int = 3) -> dict[str, int]:
    return {"prompt_tokens": prompt, "completion_tokens": completion}


def json_error(status: int, error: dict[str, Any]) -> FakeReply:
    """An error body as llama.cpp-style servers send it (extra fields beside the message)."""
    body = json.dumps({"error": {"code": status, **error}}).encode()
    return FakeReply(status=status, body=body, headers={"Content-Type": "application/json"})


def no_usage(content: str) -> FakeReply:
    """A completion with no `usage` at all, as some local servers answer."""
    body = {
        "id": "x",
        "object": "chat.completion",
        "created": 1,
        "model": "ignored: the fake names the model asked for",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                     "finish_reason": "stop"}],
    }  # fmt: skip
    return FakeReply(body=json.dumps(body).encode(), headers={"Content-Type": "application/json"})


def doctor(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["doctor", *args])
    out, err = capsys.readouterr()
    return code, out, err


def line(out: str, label: str) -> str:
    """The text of the line whose first column is `label` (aligned at LABEL_WIDTH)."""
    for text in out.splitlines():
        if text[:LABEL_WIDTH].rstrip() == label:
            assert text[LABEL_WIDTH - 1] == " " and text[LABEL_WIDTH] != " ", text
            return text[LABEL_WIDTH:]
    raise AssertionError(f"no {label!r} line in:\n{out}")


def assert_bounded_requests(fake: FakeOpenAI) -> None:
    """Every probe is short, deterministic, not streamed, and there are few of them."""
    assert 1 <= len(fake.requests) <= 8
    for body in fake.requests:
        assert body["max_tokens"] <= 64
        assert body["temperature"] == 0
        assert body.get("stream") in (None, False)
    assert fake.pending == 0, "a scripted reply was never asked for"


def test_a_healthy_server_is_usable_as_it_is(capsys, fake_openai) -> None:
    fake_openai.queue(
        text_reply("OK", usage(11)),  # reachable
        text_reply("one, two, three, four", usage(23, 60)),  # tokens/s
        tool_call_reply(("complete", {"summary": "ok"}), usage=usage(96)),  # tool calling
        text_reply("OK", usage(11 + 150)),  # system role: the prompt grew by the system text
    )
    code, out, err = doctor(capsys, "--model", "openai/gpt-4o-mini", "--api-base", fake_openai.url)
    assert (code, err) == (0, "")
    assert line(out, "reachable").startswith("yes: answered 'OK' in ")
    assert "'gpt-4o-mini'" in line(out, "model")
    assert "(60 tokens in " in line(out, "tokens/s")
    assert line(out, "tool calling") == "accepted: the model called complete"
    assert line(out, "system role") == "honoured: +150 prompt tokens for a 143-token system message"
    assert line(out, "context window") == "128000 tokens (litellm's model info)"
    assert line(out, "cost").startswith("$0.15 input, $0.6 output per 1M tokens")
    assert line(out, "verdict") == "usable"
    assert "options" not in out
    assert_bounded_requests(fake_openai)
    roles = [[m["role"] for m in body["messages"]] for body in fake_openai.requests]
    assert roles == [["user"], ["user"], ["user"], ["system", "user"]]
    tools = [body.get("tools") for body in fake_openai.requests]
    assert tools[0] is None and tools[1] is None and tools[3] is None
    assert [tool["function"]["name"] for tool in tools[2]] == ["complete"]
    # no key was set, and a local server needs none: the placeholder went
    assert set(fake_openai.authorizations) == {"Bearer not-needed"}


def test_a_gemma_like_server_gets_merge_tools_off_and_its_window(capsys, fake_openai) -> None:
    """The server drops the system message and the tool (prompt tokens do not grow), and
    says its window only when a prompt is too long: --json has it all."""
    fake_openai.queue(
        text_reply("OK", usage(10)),
        text_reply("one, two", usage(22, 64), finish_reason="length"),
        text_reply('{"name": "complete", "arguments": {"summary": "ok"}}', usage(19)),
        text_reply("", usage(19, 1)),  # the same prompt without the tool: 19 again
        text_reply("OK", usage(10)),  # with a 143-token system message: 10 again
        json_error(400, {"message": LLAMA_CPP_PYTHON_OVER_WINDOW, "type": "invalid_request_error"}),
    )
    code, out, err = doctor(
        capsys, "--model", "openai/gemma", "--api-base", fake_openai.url, "--json"
    )
    assert (code, err) == (0, "")
    report = json.loads(out)
    probes = report["probes"]
    assert set(probes) == {
        "reachable", "model", "tokens_per_s", "tools", "system_role", "context_window", "cost"
    }  # fmt: skip
    assert probes["reachable"]["status"] == "ok" and probes["reachable"]["latency_s"] > 0
    assert probes["model"]["server_model"] == "gemma"
    assert probes["model"]["listed"] == []  # the fake answers GET /models with 501
    assert probes["tokens_per_s"]["tokens"] == 64 and probes["tokens_per_s"]["tokens_per_s"] > 0
    assert probes["tools"]["status"] == "dropped"
    assert probes["tools"]["prompt_tokens_with_tool"] == probes["tools"]["prompt_tokens_without"]
    assert probes["system_role"]["status"] == "dropped"
    assert probes["context_window"] == {
        "status": "known",
        "detail": '8192 tokens (the server\'s error: "context window of 8192")',
        "tokens": 8192,
        "source": "server",
    }
    assert probes["cost"]["status"] == "unknown"
    assert report["verdict"] == "usable with options"
    assert report["why_not_usable"] is None
    assert report["options"] == {"system_role": "merge", "tools": "off", "context_window": 8192}
    assert report["flags"] == ["--system-role", "merge", "--tools", "off"]
    assert report["requests"] == len(fake_openai.requests) == 6
    # the snippet, pasted into task.yaml, is read back as these options ('off' stays a string)
    snippet = yaml.safe_load(report["task_yaml"])
    options = ModelOptions.model_validate(snippet["model_options"])
    assert (options.system_role, options.tools, options.context_window) == ("merge", "off", 8192)
    assert_bounded_requests(fake_openai)
    long_prompt = fake_openai.requests[-1]
    assert long_prompt["max_tokens"] == 1
    assert len(long_prompt["messages"][0]["content"]) > 100_000


def test_tools_rejected_with_400_and_a_llama_cpp_window_error(capsys, fake_openai) -> None:
    fake_openai.queue(
        text_reply("OK", usage(10)),
        text_reply("one", usage(20, 40)),
        json_error(400, {"message": "tools param requires --jinja flag", "type": "invalid"}),
        text_reply("OK", usage(160)),
        json_error(
            400,
            {
                "message": "the request exceeds the available context size, try increasing it",
                "type": "exceed_context_size_error",
                "n_prompt_tokens": 40012,
                "n_ctx": 3072,
            },
        ),
    )
    code, out, _ = doctor(capsys, "--model", "openai/local", "--api-base", fake_openai.url)
    assert code == 0
    assert line(out, "tool calling") == "rejected: HTTP 400: tools param requires --jinja flag"
    assert line(out, "system role").startswith("honoured: +150 prompt tokens")
    assert line(out, "context window").startswith("3072 tokens (the server's error:")
    assert line(out, "verdict") == "usable with options"
    # a small window: a smaller answer cap leaves the context room
    assert "--tools off --max-output-tokens 768" in line(out, "run with")
    assert "rejected: HTTP 400: tools param requires --jinja flag" in out
    snippet = out[out.index("model_options:") :]
    assert "tools: 'off'" in snippet and "context_window: 3072" in snippet
    assert_bounded_requests(fake_openai)


def test_a_model_that_sees_the_tool_but_answers_in_text(capsys, fake_openai) -> None:
    fake_openai.queue(
        text_reply("OK", usage(10)),
        text_reply("one", usage(20, 40)),
        text_reply("I would call complete.", usage(140)),  # the tool was rendered: +121
        text_reply("", usage(19, 1)),
        text_reply("OK", usage(160)),
    )
    code, out, _ = doctor(capsys, "--model", "openai/gpt-4o-mini", "--api-base", fake_openai.url)
    assert code == 0
    assert line(out, "tool calling") == (
        "ignored: the model saw the tool (+121 prompt tokens) but answered in text"
    )
    assert "tools: off (the model answered in text when asked to call a tool)" in out
    assert_bounded_requests(fake_openai)


def test_a_server_without_usage_says_unknown_not_wrong(capsys, fake_openai) -> None:
    """llama.cpp-like answers with no usage: counts are forgetui's, comparisons unknown."""
    fake_openai.queue(
        no_usage("OK"),
        no_usage("one, two, three, four, five"),
        no_usage("OK"),  # the tool probe: text, and no count to tell why
        no_usage("OK"),  # the system probe
        text_reply("OK", usage(40_001, 1)),  # the long prompt went through whole
    )
    code, out, _ = doctor(capsys, "--model", "openai/gemma", "--api-base", fake_openai.url)
    assert code == 0
    assert line(out, "tokens/s").endswith("counted by forgetui)")
    assert "whether the server dropped the tool is unknown" in line(out, "tool calling")
    assert line(out, "system role") == "unknown: the server reports no usage"
    assert line(out, "context window") == ">= 40001 tokens (a 40003-token prompt was accepted)"
    # text answers to a tool request: tools off; nothing about the system role is guessed
    assert "tools: off" in out and "system_role" not in out
    assert_bounded_requests(fake_openai)


def test_a_server_that_cuts_the_long_prompt_shows_its_window(capsys, fake_openai) -> None:
    """Ollama truncates an over-long prompt to its window and answers: the count says it."""
    fake_openai.queue(
        text_reply("OK", usage(10)),
        text_reply("one", usage(20, 40)),
        tool_call_reply(("complete", {"summary": "ok"}), usage=usage(90)),
        text_reply("OK", usage(160)),
        text_reply("OK", usage(4096, 1)),
    )
    code, out, _ = doctor(capsys, "--model", "openai/local", "--api-base", fake_openai.url)
    assert code == 0
    assert (
        line(out, "context window") == "4096 tokens (the server cut a 40003-token prompt to 4096)"
    )
    assert "context_window: 4096" in out
    assert "(context_window has no flag: put it in task.yaml)" in out


def test_a_template_that_refuses_the_system_role_gets_merge(capsys, fake_openai) -> None:
    """llama.cpp with Gemma's own template: a system message is an error, not dropped."""
    fake_openai.queue(
        text_reply("OK", usage(10)),
        text_reply("one", usage(20, 40)),
        tool_call_reply(("complete", {"summary": "ok"}), usage=usage(90)),
        json_error(500, {"message": "System role not supported", "type": "server_error"}),
        text_reply("OK", usage(40_001, 1)),
    )
    code, out, _ = doctor(capsys, "--model", "openai/gemma", "--api-base", fake_openai.url)
    assert code == 0
    assert line(out, "system role") == "rejected: HTTP 500: System role not supported"
    assert line(out, "options") == (
        "system_role: merge (a request with a system message was rejected: HTTP 500: System"
        " role not supported)"
    )
    assert line(out, "run with").endswith(" --system-role merge")
    assert len(fake_openai.requests) == 5  # a 500 is not retried by doctor


def test_a_window_too_small_for_any_context_is_not_usable(capsys, fake_openai) -> None:
    fake_openai.queue(
        text_reply("OK", usage(10)),
        text_reply("one", usage(20, 40)),
        tool_call_reply(("complete", {"summary": "ok"}), usage=usage(90)),
        text_reply("OK", usage(160)),
        json_error(400, {"message": "This model's maximum context length is 1024 tokens."}),
    )
    code, out, _ = doctor(capsys, "--model", "openai/tiny", "--api-base", fake_openai.url)
    assert code == 1
    assert line(out, "context window").startswith("1024 tokens (the server's error:")
    assert line(out, "verdict") == (
        "not usable: its context window of 1024 tokens is too small: forgetui's first context"
        " alone is about 1,000 tokens"
    )
    assert "run with" not in out


def test_a_model_that_always_answers_nothing_is_not_usable(capsys, fake_openai) -> None:
    """llama-cpp-python with Gemma's GGUF template: every answer is 0 tokens, "stop"."""
    fake_openai.queue(
        text_reply("", usage(13, 0)),
        text_reply("", usage(24, 0)),
        text_reply("", usage(29, 0)),
        text_reply("", usage(29, 0)),
        text_reply("", usage(162, 0)),
        json_error(400, {"message": "This model's maximum context length is 8192 tokens."}),
    )
    code, out, _ = doctor(capsys, "--model", "openai/gemma", "--api-base", fake_openai.url)
    assert code == 1
    assert line(out, "reachable").startswith("yes: answered with nothing in ")
    assert line(out, "tokens/s") == "unknown: the model answered nothing (finish_reason stop)"
    assert line(out, "verdict").startswith(
        "not usable: the model answered nothing when asked for a few dozen tokens: check the"
        " server's chat template"
    )
    assert "run with" not in out


def test_a_slow_model_gets_a_longer_timeout(capsys, fake_openai) -> None:
    """20 tokens in a second: a full 1024-token answer would take ~50 s of the 60 s default."""
    fake_openai.queue(
        text_reply("OK", usage(10)),
        slow_reply(1.0, text_reply("one, two", usage(20, 20))),
        tool_call_reply(("complete", {"summary": "ok"}), usage=usage(90)),
        text_reply("OK", usage(160)),
    )
    code, out, err = doctor(
        capsys, "--model", "openai/gpt-4o-mini", "--api-base", fake_openai.url, "--json"
    )
    assert (code, err) == (0, "")
    report = json.loads(out)
    rate = report["probes"]["tokens_per_s"]["tokens_per_s"]
    assert 10 < rate < 20.5
    assert report["options"]["timeout_s"] >= 1.5 * 1024 / rate
    assert report["flags"] == ["--timeout", f"{report['options']['timeout_s']:g}"]
    assert f"at {rate:.1f} tokens/s" in report["reasons"]["timeout_s"]


class FakeLlamaServer(FakeOpenAI):
    """The fake, plus llama.cpp's GET endpoints (/v1/models, /props) with fixed bodies."""

    def __init__(self, routes: dict[str, Any]) -> None:
        self.routes = routes
        self.gets: list[str] = []
        super().__init__()

    def _handler_class(self) -> Any:
        fake = self

        class Handler(super()._handler_class()):  # type: ignore[misc]
            def do_GET(self) -> None:
                fake.gets.append(self.path)
                body = fake.routes.get(self.path)
                if body is None:
                    self._send(error_reply(404))
                    return
                headers = {"Content-Type": "application/json"}
                self._send(FakeReply(body=json.dumps(body).encode(), headers=headers))

        return Handler


@pytest.fixture
def llama_server() -> Iterator[FakeLlamaServer]:
    server = FakeLlamaServer(
        {
            "/v1/models": {"object": "list", "data": [
                {"id": "gemma-3-270m-it-Q4_K_M.gguf", "object": "model",
                 "meta": {"n_ctx_train": 32768, "n_vocab": 262144}}]},
            "/props": {"default_generation_settings": {"n_ctx": 6144}, "total_slots": 1},
        }
    )  # fmt: skip
    server.start()
    try:
        yield server
    finally:
        server.stop()


def test_the_window_llama_cpp_states_saves_the_long_prompt(capsys, llama_server) -> None:
    llama_server.queue(
        text_reply("OK", usage(10)),
        text_reply("one", usage(20, 40)),
        tool_call_reply(("complete", {"summary": "ok"}), usage=usage(90)),
        text_reply("OK", usage(160)),
    )
    code, out, _ = doctor(capsys, "--model", "openai/gemma", "--api-base", llama_server.url)
    assert code == 0
    assert "GET /models lists gemma-3-270m-it-Q4_K_M.gguf" in line(out, "model")
    # n_ctx_train is the model's training window, not the server's: /props has the real one
    assert line(out, "context window") == "6144 tokens (the server's /props)"
    assert llama_server.gets == ["/v1/models", "/props"]
    assert len(llama_server.requests) == 4  # no over-long prompt was needed
    assert line(out, "verdict") == "usable with options"
    assert "context_window: 6144" in out


def test_a_timeout_stops_the_probing_there(capsys, fake_openai) -> None:
    """A server that timed out is still busy: nothing more is sent to queue behind it."""
    fake_openai.queue(
        text_reply("OK", usage(10)),
        slow_reply(5.0),  # tokens/s: no answer within the 1 s timeout
        text_reply("never asked for"),
    )
    code, out, _ = doctor(
        capsys, "--model", "openai/gpt-4o-mini", "--api-base", fake_openai.url, "--timeout", "1"
    )
    assert code == 0
    assert line(out, "tokens/s") == "unknown: no answer within 1 s"
    for label in ("tool calling", "system role"):
        assert line(out, label).startswith("skipped: an earlier probe got no answer within 1 s")
    assert line(out, "context window") == "128000 tokens (litellm's model info)"
    assert len(fake_openai.requests) == 2 and fake_openai.pending == 1


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_nothing_listening_is_not_usable_and_says_so_fast(cli, capsys) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    result = cli("doctor", "--model", "openai/gemma", "--api-base", url, timeout=60)
    assert result.code == 1, result.err  # within the 60 s given: no retries against nothing
    assert result.err == ""
    verdict = line(result.out, "verdict")
    assert (
        verdict
        == f"not usable: the model did not answer (connection refused: nothing listens at {url})"
    )
    assert line(result.out, "tool calling") == "skipped: the model did not answer"
    assert "options" not in result.out
    code, out, _ = doctor(capsys, "--model", "openai/gemma", "--api-base", url, "--json")
    as_json = json.loads(out)
    assert code == 1
    assert as_json["verdict"] == "not usable" and as_json["options"] == {}
    assert as_json["probes"]["reachable"]["status"] == "failed"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--api-base", "http://127.0.0.1:9/v1"], "--api-base probes a model: give --model"),
        (["--timeout", "5"], "--timeout probes a model: give --model"),
        (["--model", "replay"], "doctor checks a real model; 'replay' needs no check"),
        (["--model", "human"], "doctor checks a real model; 'human' needs no check"),
        (["--model", "openai/x", "--api-base", "localhost:8080"], "not an http(s) URL"),
        (["--model", "openai/x", "--api-base", "http://"], "not an http(s) URL"),
        (["--model", "openai/x", "--api-base", "http://h:port/v1"], "not a URL"),
        (["--model", "gemma", "--api-base", "http://127.0.0.1:9/v1"], "names no provider"),
        (["--model", "openai/x", "--timeout", "0"], "must be a number above 0"),
        (["--model", "openai/gpt-4o-mini"], "OPENAI_API_KEY is not set"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, args: list[str], message: str) -> None:
    code, out, err = doctor(capsys, *args)
    assert code == 2
    assert out == ""
    assert err.startswith("forgetui: ") and err.count("\n") == 1
    assert message in err
