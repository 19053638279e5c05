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
        "the replay script has no step 2; another model must take over"
        " (a litellm model, or the human model: you type the actions)"
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


@pytest.fixture
def answered(cli, tmp_path: Path) -> Path:
    """The escalation sample run to the end: step 1 asks which language, the operator answers
    French, and the script's `match:` on that decision writes the French greeting at step 2."""
    task = Path(cli("init", "escalation", "--into", tmp_path / "esc").out.strip())
    assert cli("run", task).code == 3
    assert cli("answer", task, "French").code == 0
    finished = cli("run", task)
    assert finished.code == 0, finished.err
    return task


def test_a_replay_rerun_matches_on_the_decision_its_step_was_asked_under(
    cli, answered: Path
) -> None:
    for step in (1, 3, 4):
        result = cli("rerun", answered, "--step", str(step), "--model", "replay", "--json")
        assert result.code == 0, result.err
        assert result.json()["same_action"] is True, step
    result = cli("rerun", answered, "--step", "2", "--model", "replay")
    assert result.code == 0, result.err
    assert result.out.splitlines()[-1] == "same action"
    assert "Bonjour" in result.out  # the French alternative, both columns


def test_same_action_with_other_args_names_them(cli, task: Path, tmp_path: Path) -> None:
    script = tmp_path / "other.yaml"
    script.write_text(
        yaml.safe_dump(
            [
                {"action": "list_dir", "args": {"path": "."}},
                {"action": "read_file", "args": {"path": "README.md"}},
            ]
        )
    )
    shown = cli("rerun", task, "--step", "2", "--model", f"replay:{script}", "--json").json()
    assert shown["same_action"] is False and shown["different_args"] == ["path"]
    plain = cli("rerun", task, "--step", "2", "--model", f"replay:{script}")
    assert plain.out.splitlines()[-1] == "same action read_file, different args: path"
    other = cli("rerun", task, "--step", "1", "--model", f"replay:{script}", "--json").json()
    assert other["different_args"] == []  # list_dir both times, same args
    elsewhere = tmp_path / "elsewhere.yaml"
    elsewhere.write_text(yaml.safe_dump([{"action": "search", "args": {"pattern": "x"}}] * 2))
    plain = cli("rerun", task, "--step", "2", "--model", f"replay:{elsewhere}")
    assert plain.out.splitlines()[-1] == "different action"


def test_adopt_where_the_task_stood_escalated_leaves_nothing(
    cli, answered: Path, tmp_path: Path
) -> None:
    """Step 2 ran on the operator's answer to step 1's question: a fork at step 1 would stand
    on that question unanswered and take no step. Refused before anything is made."""
    workspace = answered.parents[2]
    before = files_of(workspace)
    fork_dir = tmp_path / "forks" / "fork"
    result = cli("rerun", answered, "--step", "2", "--model", "replay", "--adopt", fork_dir)
    assert result.code == 2 and result.out == ""
    assert result.err.startswith(
        "forgetui: rerun --adopt: the task stood escalated after step 1 (agent: Which language"
    )
    assert "nothing made" in result.err and result.err.count("\n") == 1
    assert not (tmp_path / "forks").exists()
    assert files_of(workspace) == before  # the original, byte for byte


def test_an_adopt_that_fails_after_forking_leaves_no_fork(
    cli_in_process, task: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from forgetui.engine.base.errors import ForgeError
    from forgetui.engine.step.executor import Executor

    stepped: list[Path] = []

    def failing_step(self: Executor, model: object = None) -> None:
        stepped.append(self.folder.path)  # the fork was made and its step began
        raise ForgeError("the fork's step failed")

    monkeypatch.setattr(Executor, "step", failing_step)
    workspace = task.parents[2]
    before = files_of(workspace)
    fork_dir = tmp_path / "new" / "fork"
    empty = tmp_path / "empty"
    empty.mkdir()
    for dest, gone in ((fork_dir, tmp_path / "new"), (empty, None)):
        result = cli_in_process("rerun", task, "--step", "2", "--model", "replay", "--adopt", dest)
        assert (result.code, result.err) == (2, "forgetui: the fork's step failed\n")
        assert stepped[-1] == dest / ".agentforge/tasks/hello_world"
        if gone is not None:
            assert not gone.exists()
    assert list(empty.iterdir()) == []  # an empty directory given stays, empty
    assert files_of(workspace) == before


def test_a_replay_rerun_after_a_rewind_answers_as_the_run_did(cli, task: Path) -> None:
    """Steps 3-5 superseded by a rewind to 2; steps 6-8 took the script's entries 3-5 again."""
    assert cli("run", task).code == 0
    assert cli("rewind", task, "--to", "2").code == 0
    assert cli("run", task).code == 0
    for step in (1, 2, 3, 6, 7, 8):
        result = cli("rerun", task, "--step", str(step), "--model", "replay", "--json")
        assert result.code == 0, result.err
        shown = result.json()
        assert shown["same_action"] is True, (step, shown["new"], shown["recorded"])


def test_each_branch_reruns_under_its_own_decision(cli, answered: Path) -> None:
    """Back to step 1 and answered English this time: the superseded branch (steps 2-4) was
    asked under French, the new one (5-7) under English; each re-runs as it ran."""
    assert cli("rewind", answered, "--to", "1").code == 0
    assert cli("answer", answered, "English").code == 0
    assert cli("run", answered).code == 0
    for step, greeting in ((2, "Bonjour"), (5, "Hello")):
        shown = cli("rerun", answered, "--step", str(step), "--model", "replay", "--json").json()
        assert shown["same_action"] is True, (step, shown["new"], shown["recorded"])
        assert greeting in shown["new"]["args"]["content"]
    for step in (6, 7):
        shown = cli("rerun", answered, "--step", str(step), "--model", "replay", "--json").json()
        assert shown["same_action"] is True, (step, shown["new"], shown["recorded"])
