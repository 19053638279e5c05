"""`forgetui run` through litellm for real, against an OpenAI-compatible server on loopback."""

from __future__ import annotations

from pathlib import Path

from tests.fake_openai import error_reply, garbage_reply, text_reply, tool_call_reply

SECRET = "sk-test-DO-NOT-WRITE-4242"


def _files_under(*roots: Path) -> list[Path]:
    return [p for root in roots for p in root.rglob("*") if p.is_file()]


def test_hello_world_through_litellm_tool_calls(cli, tmp_path: Path, fake_openai) -> None:
    task = Path(cli("init", "hello_world", "--into", tmp_path / "run").out.strip())
    fake_openai.queue(
        tool_call_reply(("read_file", {"path": "test_hello.py"})),
        error_reply(429, retry_after="0"),  # rate-limited once: retried, not a failed step
        tool_call_reply(
            ("write_file", {"path": "hello.py", "content": 'print("Hello, world!")\n'})
        ),
        garbage_reply(),  # a garbage body: retried too
        text_reply('Verified.\n```json\n{"action": "complete", "args": {"summary": "ok"}}\n```'),
    )
    result = cli(
        "run",
        task,
        "--model",
        "openai/gpt-4o-mini",
        "--api-base",
        fake_openai.url,
        "--json",
        extra_env={"OPENAI_API_KEY": SECRET},
    )
    assert result.code == 0, result.err + result.out
    lines = result.json_lines()
    assert [s["action"] for s in lines[:-1]] == ["read_file", "write_file", "complete"]
    assert lines[-1]["status"] == "complete"
    # every request was a fresh two-message conversation, with the phase's actions as tools
    assert len(fake_openai.requests) >= 5
    for body in fake_openai.requests:
        assert [m["role"] for m in body["messages"]] == ["system", "user"]
        assert {t["function"]["name"] for t in body["tools"]} >= {"write_file", "complete"}
    # usage from the server is recorded per step
    entries = cli("log", task, "--json").json_lines()
    assert all(e["prompt_tokens"] == 120 and e["model"] for e in entries if "action" in e)
    # the key never reaches a file
    workspace = task.parents[2]
    home = tmp_path / "home"
    for path in _files_under(workspace, home):
        assert SECRET.encode() not in path.read_bytes(), path


def test_model_that_keeps_failing_escalates_instead_of_crashing(
    cli, tmp_path: Path, fake_openai
) -> None:
    task = Path(cli("init", "hello_world", "--into", tmp_path / "run").out.strip())
    fake_openai.queue(error_reply(500), error_reply(500), error_reply(500))
    result = cli(
        "run",
        task,
        "--model",
        "openai/gpt-4o-mini",
        "--api-base",
        fake_openai.url,
        "--json",
        extra_env={"OPENAI_API_KEY": SECRET},
    )
    assert result.code == 3, result.err
    final = result.json_lines()[-1]
    assert final["pending_escalation"]["reason"] == "model_error"
    assert "Traceback" not in result.err


def test_human_model_on_stdin(cli, tmp_path: Path) -> None:
    task = Path(cli("init", "hello_world", "--into", tmp_path / "run").out.strip())
    typed = (
        "\n".join(
            [
                "write_file path=hello.py content='print(\"Hello, world!\")'",
                "complete summary=done",
            ]
        )
        + "\n"
    )
    result = cli("run", task, "--model", "human", "--json", stdin=typed)
    assert result.code == 0, result.err
    assert [s["action"] for s in result.json_lines()[:-1]] == ["write_file", "complete"]
