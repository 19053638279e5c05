"""`forgetui run` through litellm for real, against an OpenAI-compatible server on loopback.

The first test runs the real command in a child process, end to end; the others call the CLI
in this process (`cli_in_process`), so litellm is imported once, not once a command."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.cli.conftest import run_on_fake
from tests.fake_openai import error_reply, garbage_reply, slow_reply, text_reply, tool_call_reply

SECRET = "sk-test-DO-NOT-WRITE-4242"
NO_KEY = (
    "forgetui: OPENAI_API_KEY is not set: export it, or point --api-base at an"
    " OpenAI-compatible server\n"
)


@pytest.fixture(autouse=True)
def no_key_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs before `cli` copies the environment: a test that wants a key passes one."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


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
    # the key that is set is the key that is sent
    assert set(fake_openai.authorizations) == {f"Bearer {SECRET}"}
    # usage from the server is recorded per step
    entries = cli("log", task, "--json").json_lines()
    assert all(e["prompt_tokens"] == 120 and e["model"] for e in entries if "action" in e)
    # the key never reaches a file
    workspace = task.parents[2]
    home = tmp_path / "home"
    for path in _files_under(workspace, home):
        assert SECRET.encode() not in path.read_bytes(), path


def test_model_that_keeps_failing_escalates_instead_of_crashing(
    cli_in_process, tmp_path: Path, fake_openai
) -> None:
    task = Path(cli_in_process("init", "hello_world", "--into", tmp_path / "run").out.strip())
    fake_openai.queue(*[error_reply(500, retry_after="0")] * 3)  # no backoff to wait out
    result = cli_in_process(
        "run", task, "--model", "openai/gpt-4o-mini", "--api-base", fake_openai.url, "--json"
    )
    assert result.code == 3, result.err
    final = result.json_lines()[-1]
    assert final["pending_escalation"]["reason"] == "model_error"
    assert final["pending_escalation"]["question"] == (
        f"The model call failed: HTTP 500 from {fake_openai.url} after 3 attempts: "
        "fake error 500. Retry?"
    )
    assert "Traceback" not in result.err


def test_human_model_on_stdin(cli_in_process, tmp_path: Path) -> None:
    task = Path(cli_in_process("init", "hello_world", "--into", tmp_path / "run").out.strip())
    typed = (
        "\n".join(
            [
                "write_file path=hello.py content='print(\"Hello, world!\")'",
                "complete summary=done",
            ]
        )
        + "\n"
    )
    result = cli_in_process("run", task, "--model", "human", "--json", stdin=typed)
    assert result.code == 0, result.err
    assert [s["action"] for s in result.json_lines()[:-1]] == ["write_file", "complete"]


def test_every_request_is_bounded_by_default(cli_in_process, tmp_path: Path, fake_openai) -> None:
    task = Path(cli_in_process("init", "hello_world", "--into", tmp_path / "run").out.strip())
    fake_openai.queue(tool_call_reply(("read_file", {"path": "test_hello.py"})))
    result = run_on_fake(cli_in_process, task, fake_openai)
    assert result.code == 0, result.err
    [body] = fake_openai.requests
    assert (body["max_tokens"], body["temperature"]) == (1024, 0)
    [entry] = [e for e in cli_in_process("log", task, "--json").json_lines() if "action" in e]
    assert entry["action"] == "read_file"


def test_flags_win_over_task_yaml_which_wins_over_defaults(
    cli_in_process, tmp_path: Path, fake_openai
) -> None:
    task = Path(cli_in_process("init", "hello_world", "--into", tmp_path / "run").out.strip())
    spec = yaml.safe_load((task / "task.yaml").read_text())
    spec["model_options"] = {"max_output_tokens": 256, "temperature": 0.3}
    (task / "task.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
    cli_in_process("accept-task-change", task)
    fake_openai.queue(
        tool_call_reply(("read_file", {"path": "test_hello.py"})),
        tool_call_reply(("list_dir", {"path": "."})),
    )
    assert run_on_fake(cli_in_process, task, fake_openai).code == 0
    assert run_on_fake(cli_in_process, task, fake_openai, "--max-output-tokens", "64").code == 0
    from_task, from_flag = fake_openai.requests
    assert (from_task["max_tokens"], from_task["temperature"]) == (256, 0.3)
    assert (from_flag["max_tokens"], from_flag["temperature"]) == (64, 0.3)


def test_a_timeout_is_tried_once_and_the_escalation_says_so(
    cli_in_process, tmp_path: Path, fake_openai
) -> None:
    task = Path(cli_in_process("init", "hello_world", "--into", tmp_path / "run").out.strip())
    fake_openai.queue(slow_reply(30), tool_call_reply(("list_dir", {"path": "."})))
    result = run_on_fake(cli_in_process, task, fake_openai, "--timeout", "0.5")
    assert result.code == 3, result.err
    assert len(fake_openai.requests) == 1 and fake_openai.pending == 1
    step, final = result.json_lines()
    reason = (
        f"timed out after 0.5 s waiting for {fake_openai.url} "
        "(not retried: a server that timed out may still be busy with the request)"
    )
    assert step["summary"] == f"model call failed: {reason}"
    escalation = final["pending_escalation"]
    assert escalation["reason"] == "model_error"
    assert escalation["question"] == f"The model call failed: {reason}. Retry?"


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (
            ("--max-output-tokens", "0"),
            "argument --max-output-tokens: must be a number above 0, not 0",
        ),
        (("--timeout", "soon"), "argument --timeout: not a number: 'soon'"),
        (("--timeout", "inf"), "argument --timeout: must be a number above 0, not inf"),
        (("--timeout", "nan"), "argument --timeout: must be a number above 0, not nan"),
        (("--model", ""), "argument --model: an empty model name"),
        (("--model", " "), "argument --model: an empty model name"),
        (("--temperature", "3"), "argument --temperature: must be between 0 and 2, not 3"),
    ],
)
def test_bad_bounds_are_one_line_and_exit_2(
    cli_in_process, tmp_path: Path, fake_openai, flags: tuple[str, str], message: str
) -> None:
    task = Path(cli_in_process("init", "hello_world", "--into", tmp_path / "run").out.strip())
    result = run_on_fake(cli_in_process, task, fake_openai, *flags)
    assert result.code == 2
    assert result.err == f"forgetui: run: {message}\n"
    assert fake_openai.requests == []


def test_a_bad_model_option_in_task_yaml_names_the_field(cli_in_process, tmp_path: Path) -> None:
    task = Path(cli_in_process("init", "hello_world", "--into", tmp_path / "run").out.strip())
    spec = yaml.safe_load((task / "task.yaml").read_text())
    spec["model_options"] = {"max_output_tokens": 1024, "temprature": 0.5}
    (task / "task.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
    result = cli_in_process("status", task)
    assert result.code == 2
    assert "task.yaml" in result.err and "model_options.temprature" in result.err
    assert len(result.err.strip().splitlines()) == 1


def test_api_base_without_a_key_sends_a_placeholder(
    cli_in_process, tmp_path: Path, fake_openai
) -> None:
    task = Path(cli_in_process("init", "hello_world", "--into", tmp_path / "run").out.strip())
    fake_openai.queue(tool_call_reply(("read_file", {"path": "test_hello.py"})))
    result = run_on_fake(cli_in_process, task, fake_openai)
    assert result.code == 0, result.err
    assert fake_openai.authorizations == ["Bearer not-needed"]
    [entry] = [e for e in cli_in_process("log", task, "--json").json_lines() if "action" in e]
    assert entry["action"] == "read_file"


def test_a_missing_key_without_api_base_exits_2_before_any_call(
    cli_in_process, tmp_path: Path
) -> None:
    task = Path(cli_in_process("init", "hello_world", "--into", tmp_path / "run").out.strip())
    result = cli_in_process("run", task, "--model", "openai/gpt-4o-mini", "--json")
    assert (result.code, result.out, result.err) == (2, "", NO_KEY)
    status = cli_in_process("status", task, "--json").json()
    assert status["step"] == 0
    assert [e for e in cli_in_process("log", task, "--json").json_lines() if "action" in e] == []


def test_system_role_merge_flag_sends_one_user_message(
    cli_in_process, tmp_path: Path, fake_openai
) -> None:
    task = Path(cli_in_process("init", "hello_world", "--into", tmp_path / "run").out.strip())
    fake_openai.queue(
        tool_call_reply(("read_file", {"path": "test_hello.py"})),
        tool_call_reply(("list_dir", {"path": "."})),
    )
    assert run_on_fake(cli_in_process, task, fake_openai).code == 0
    assert run_on_fake(cli_in_process, task, fake_openai, "--system-role", "merge").code == 0
    two, one = fake_openai.requests
    assert [m["role"] for m in two["messages"]] == ["system", "user"]
    [merged] = one["messages"]
    assert merged["role"] == "user"
    # the saved context keeps the two messages as compiled; the request carries both, in order
    *_, second = sorted((task / "artifacts" / "contexts").glob("step-*.yaml"))
    saved = yaml.safe_load(second.read_text())
    assert saved["step"] == 2
    system, user = (m["content"] for m in saved["messages"])
    assert merged["content"] == f"<system>\n{system.strip()}\n</system>\n\n{user}"


def test_a_bad_system_role_is_one_line_and_exit_2(
    cli_in_process, tmp_path: Path, fake_openai
) -> None:
    task = Path(cli_in_process("init", "hello_world", "--into", tmp_path / "run").out.strip())
    result = run_on_fake(cli_in_process, task, fake_openai, "--system-role", "user")
    assert result.code == 2
    assert len(result.err.strip().splitlines()) == 1 and "--system-role" in result.err
    assert fake_openai.requests == []
