"""Taking over from the command line: `limits` mid-run, and answers that end the task."""

from __future__ import annotations

from pathlib import Path


def _init(cli, sample: str, tmp_path: Path) -> Path:
    result = cli("init", sample, "--into", tmp_path / sample)
    assert result.code == 0, result.err
    return Path(result.out.strip())


def test_limits_sets_the_step_limit_and_the_run_stops_there(cli, tmp_path: Path) -> None:
    task = _init(cli, "long_run", tmp_path)
    assert cli("run", task, "--max-steps", "4").code == 0
    result = cli("limits", task, "--max-steps", "6")
    assert result.code == 0 and "max_steps 6" in result.out
    run = cli("run", task, "--json")
    assert run.code == 3
    final = run.json_lines()[-1]
    assert final["step"] == 6 and final["pending_escalation"]["reason"] == "max_steps"
    entries = cli("log", task, "--json").json_lines()
    limits = [entry for entry in entries if entry.get("operator") == "limits"]
    assert [entry["step"] for entry in limits] == [4]


def test_limits_needs_a_limit(cli, tmp_path: Path) -> None:
    task = _init(cli, "hello_world", tmp_path)
    result = cli("limits", task)
    assert result.code == 2 and "--max-steps N or --max-cost X" in result.err


def test_the_operator_marks_an_escalated_task_failed(cli, tmp_path: Path) -> None:
    task = _init(cli, "escalation", tmp_path)
    assert cli("run", task).code == 3
    assert cli("answer", task, "mark failed: not needed after all").code == 0
    assert cli("status", task, "--json").json()["status"] == "failed"
    result = cli("run", task, "--json")
    assert result.code == 4 and result.json_lines()[-1]["status"] == "failed"
