"""Every sample runs headless to verified completion with the replay model."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml


def _init(cli, sample: str, tmp_path: Path) -> Path:
    result = cli("init", sample, "--into", tmp_path / sample)
    assert result.code == 0, result.err
    return Path(result.out.strip())


@pytest.mark.parametrize("sample", ["hello_world", "fix_violation", "implement_feature"])
def test_sample_runs_to_complete(cli, tmp_path: Path, sample: str) -> None:
    task = _init(cli, sample, tmp_path)
    result = cli("run", task, "--json")
    assert result.code == 0, result.err + result.out
    lines = result.json_lines()
    final = lines[-1]
    assert final["final"] is True and final["status"] == "complete"
    assert final["verification"]["ready_for_completion"] is True
    steps = lines[:-1]
    assert [s["step"] for s in steps] == list(range(1, len(steps) + 1))
    assert all(s["context_tokens"] <= 8000 for s in steps)
    # every request the model got was exactly [system, user]
    for n in range(1, len(steps) + 1):
        saved = yaml.safe_load((task / "artifacts" / "contexts" / f"step-{n:06d}.yaml").read_text())
        assert [m["role"] for m in saved["messages"]] == ["system", "user"]
    # the shipped sample is untouched
    status = cli("status", task, "--json").json()
    assert status["status"] == "complete"


def test_implement_feature_goes_red_then_green(cli, tmp_path: Path) -> None:
    task = _init(cli, "implement_feature", tmp_path)
    lines = cli("run", task, "--json").json_lines()
    phases = [s["summary"] for s in lines[:-1] if s["action"] == "complete"]
    assert "implement_red done -> implement_green" in phases[0]
    red_check = next(s for s in lines if s["action"] == "run_check")
    assert red_check["verification"]["checks"]["tests"]["passing"] is False
    assert lines[-1]["verification"]["checks"]["tests"]["passing"] is True


def test_escalation_answer_changes_what_happens(cli, tmp_path: Path) -> None:
    task = _init(cli, "escalation", tmp_path)
    first = cli("run", task, "--json")
    assert first.code == 3, first.err
    final = first.json_lines()[-1]
    assert final["status"] == "escalated"
    assert final["pending_escalation"]["options"] == ["English", "French"]
    assert cli("answer", task, "French").code == 0
    second = cli("run", task, "--json")
    assert second.code == 0, second.err
    workspace = task.parents[2]
    assert "Bonjour" in (workspace / "greeting.py").read_text()
    # the decision stays in every later context
    saved = yaml.safe_load((task / "artifacts" / "contexts" / "step-000003.yaml").read_text())
    assert "French" in saved["messages"][1]["content"]


def test_until_escalation_exits_zero(cli, tmp_path: Path) -> None:
    task = _init(cli, "escalation", tmp_path)
    assert cli("run", task, "--until", "escalation").code == 0


def test_long_run_context_stays_flat(cli, tmp_path: Path) -> None:
    task = _init(cli, "long_run", tmp_path)
    result = cli("run", task, "--json", timeout=600)
    assert result.code == 0, result.err[-2000:]
    steps = result.json_lines()[:-1]
    assert len(steps) >= 300
    tokens = {s["step"]: s["context_tokens"] for s in steps}
    assert max(tokens.values()) <= 8000
    # after warm-up (memory, recent actions, progress and scratchpad full) the size holds
    assert abs(tokens[300] - tokens[50]) <= 0.10 * tokens[50], (tokens[50], tokens[300])


def test_abort_answer_ends_the_run_with_exit_4(cli, tmp_path: Path) -> None:
    task = _init(cli, "escalation", tmp_path)
    assert cli("run", task).code == 3
    assert cli("answer", task, "abort").code == 0
    result = cli("run", task, "--json")
    assert result.code == 4
    assert result.json_lines()[-1]["status"] == "aborted"


def test_answer_without_escalation_is_bad_input(cli, tmp_path: Path) -> None:
    task = _init(cli, "hello_world", tmp_path)
    result = cli("answer", task, "yes")
    assert result.code == 2 and "no pending escalation" in result.err
