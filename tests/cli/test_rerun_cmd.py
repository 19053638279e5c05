"""`forgetui rerun TASK --step N --model M`: exit codes, the JSON object, the two columns, and
--adopt, through the real command."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.cli.stepped_sample import copy_task, files_of
from tests.fake_openai import FakeOpenAI, text_reply

WRITE_ANSWER = (
    '```yaml\naction: write_file\nargs:\n  path: hello.py\n  content: print("Hello, world!")\n```'
)


@pytest.fixture
def task(hello_after_two_steps: Path, tmp_path: Path) -> Path:
    return copy_task(hello_after_two_steps, tmp_path / "ws")


@pytest.fixture(autouse=True)
def no_key_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def test_rerun_json_shows_both_answers_and_changes_nothing(
    cli, task: Path, fake_openai: FakeOpenAI
) -> None:
    fake_openai.queue(text_reply(WRITE_ANSWER))
    workspace = task.parents[2]
    before = files_of(workspace)
    result = cli(
        "rerun", task, "--step", "2", "--model", "openai/fake", "--api-base", fake_openai.url,
        "--json",
    )  # fmt: skip
    assert result.code == 0, result.err
    shown = result.json()
    assert shown["step"] == 2 and shown["phase"] == "execution"
    assert shown["recorded"]["action"] == "read_file"
    assert shown["recorded"]["raw_response"].startswith("action: read_file")
    assert shown["new"]["action"] == "write_file" and shown["new"]["raw_response"] == WRITE_ANSWER
    assert shown["new"]["error"] is None and shown["same_action"] is False
    assert shown["adopted"] is None
    saved = yaml.safe_load((task / "artifacts/contexts/step-000002.yaml").read_text())
    assert fake_openai.requests[0]["messages"] == saved["messages"]
    assert files_of(workspace) == before


def test_a_failed_call_exits_1_with_the_error_in_the_json(cli, task: Path, tmp_path: Path) -> None:
    """A script that ran out fails the call as a server would (tests/engine/test_rerun.py has
    the HTTP 500 and the timeout through litellm); the exit code is the command's."""
    script = tmp_path / "short.yaml"
    script.write_text(yaml.safe_dump([{"action": "list_dir", "args": {"path": "."}}]))
    result = cli("rerun", task, "--step", "2", "--model", f"replay:{script}", "--json")
    assert result.code == 1, result.err
    new = result.json()["new"]
    assert new["call_failed"] is True and new["action"] is None
    assert new["error"] == (
        "the replay script has no step 2; take over with --model human or another model"
    )
    assert result.err == ""


def test_two_columns_for_eyes(cli, task: Path) -> None:
    result = cli("rerun", task, "--step", "1", "--model", "replay")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert "step 1 re-run (phase execution" in lines[0]
    header = next(line for line in lines if "recorded (replay)" in line)
    assert "new (replay)" in header
    action_row = next(line for line in lines if " action " in line)
    assert action_row.count("list_dir") == 2
    assert lines[-1] == "same action"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--step", "7"], "forgetui: task hello_world: step 7 is not in the log (steps 1 to 2)"),
        (["--step", "0"], "forgetui: task hello_world: step 0: steps are numbered from 1"),
        (
            ["--step", "1", "--model", "human"],
            "forgetui: rerun: the human model cannot answer a re-run; name a litellm model or"
            " replay:PATH",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(cli, task: Path, args: list[str], said: str) -> None:
    model = [] if "--model" in args else ["--model", "replay"]
    result = cli("rerun", task, *args, *model)
    assert (result.code, result.err, result.out) == (2, said + "\n", "")


def test_no_saved_context_is_one_line_and_exit_2(cli, task: Path) -> None:
    context = task / "artifacts/contexts/step-000002.yaml"
    context.unlink()
    result = cli("rerun", task, "--step", "2", "--model", "replay", "--json")
    assert result.code == 2 and result.out == ""
    said = f"forgetui: task hello_world: step 2 has no saved context to send ({context})\n"
    assert result.err == said


def test_adopt_forks_at_n_minus_1_and_runs_the_new_action(cli, task: Path, tmp_path: Path) -> None:
    script = tmp_path / "other.yaml"
    script.write_text(
        yaml.safe_dump(
            [
                {"action": "list_dir", "args": {"path": "."}},
                {"action": "write_file", "args": {"path": "hello.py", "content": "print(1)\n"}},
            ]
        )
    )
    workspace = task.parents[2]
    before = files_of(workspace)
    fork_dir = tmp_path / "fork"
    result = cli(
        "rerun", task, "--step", "2", "--model", f"replay:{script}", "--adopt", fork_dir, "--json"
    )  # fmt: skip
    assert result.code == 0, result.err
    shown = result.json()
    assert shown["new"]["action"] == "write_file" and shown["same_action"] is False
    adopted = shown["adopted"]
    assert adopted["step"] == 2 and adopted["action"] == "write_file"
    assert adopted["folder"] == str(fork_dir / ".agentforge/tasks/hello_world")
    assert (fork_dir / "hello.py").read_text() == "print(1)\n"
    log = cli("log", adopted["folder"], "--json").json_lines()
    assert [(e["step"], e["action"]) for e in log if "action" in e] == [
        (1, "list_dir"),
        (2, "write_file"),
    ]
    assert files_of(workspace) == before  # the original, byte for byte


def test_adopt_with_nothing_to_adopt_exits_1(cli, task: Path, tmp_path: Path) -> None:
    script = tmp_path / "prose.yaml"
    script.write_text(yaml.safe_dump([{"text": "no idea"}, {"text": "still no idea"}]))
    fork_dir = tmp_path / "fork"
    result = cli(
        "rerun", task, "--step", "2", "--model", f"replay:{script}", "--adopt", fork_dir, "--json"
    )  # fmt: skip
    assert result.code == 1
    assert result.err == "forgetui: nothing adopted: the answer names no action\n"
    assert result.json()["adopted"] is None and not fork_dir.exists()
