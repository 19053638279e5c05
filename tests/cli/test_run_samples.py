"""Every sample runs headless to verified completion with the replay model.

The commands run in this process (`cli_in_process`); test_plain_install runs every sample as
a child process. A sample's run to its end is made once for the module and read by the tests
that look at it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml

from tests.cli.conftest import Result, cli_env, run_main, without_fsync

Finished = Callable[[str], tuple[Path, Result]]


def _init(cli, sample: str, tmp_path: Path) -> Path:
    result = cli("init", sample, "--into", tmp_path / sample)
    assert result.code == 0, result.err
    return Path(result.out.strip())


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Finished]:
    """finished(sample) -> its task folder and its `run --json`, run once for the module."""
    base = tmp_path_factory.mktemp("samples")
    runs: dict[str, tuple[Path, Result]] = {}
    with pytest.MonkeyPatch.context() as patch, without_fsync():
        for name, value in cli_env(base / "home").items():
            patch.setenv(name, value)

        def run(sample: str) -> tuple[Path, Result]:
            if sample not in runs:
                init = run_main(["init", sample, "--into", base / sample])
                assert init.code == 0, init.err
                task = Path(init.out.strip())
                runs[sample] = task, run_main(["run", task, "--json"])
            return runs[sample]

        yield run


@pytest.mark.parametrize("sample", ["hello_world", "fix_violation", "implement_feature"])
def test_sample_runs_to_complete(cli_in_process, finished: Finished, sample: str) -> None:
    task, result = finished(sample)
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
    status = cli_in_process("status", task, "--json").json()
    assert status["status"] == "complete"


def test_implement_feature_goes_red_then_green(finished: Finished) -> None:
    _task, result = finished("implement_feature")
    lines = result.json_lines()
    phases = [s["summary"] for s in lines[:-1] if s["action"] == "complete"]
    assert "implement_red done -> implement_green" in phases[0]
    red_check = next(s for s in lines if s["action"] == "run_check")
    assert red_check["verification"]["checks"]["tests"]["passing"] is False
    assert lines[-1]["verification"]["checks"]["tests"]["passing"] is True


def test_escalation_answer_changes_what_happens(cli_in_process, tmp_path: Path) -> None:
    cli = cli_in_process
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


def test_until_escalation_exits_zero(cli_in_process, tmp_path: Path) -> None:
    task = _init(cli_in_process, "escalation", tmp_path)
    assert cli_in_process("run", task, "--until", "escalation").code == 0


def test_long_run_context_stays_flat(cli_in_process, tmp_path: Path) -> None:
    task = _init(cli_in_process, "long_run", tmp_path)
    with without_fsync():  # 303 steps: durability is not what this proves
        result = cli_in_process("run", task, "--json", timeout=600)
    assert result.code == 0, result.err[-2000:]
    steps = result.json_lines()[:-1]
    assert len(steps) >= 300
    tokens = {s["step"]: s["context_tokens"] for s in steps}
    assert max(tokens.values()) <= 8000
    # after warm-up (memory, recent actions, progress and scratchpad full) the size holds
    assert abs(tokens[300] - tokens[50]) <= 0.10 * tokens[50], (tokens[50], tokens[300])


def test_abort_answer_ends_the_run_with_exit_4(cli_in_process, tmp_path: Path) -> None:
    cli = cli_in_process
    task = _init(cli, "escalation", tmp_path)
    assert cli("run", task).code == 3
    assert cli("answer", task, "abort").code == 0
    result = cli("run", task, "--json")
    assert result.code == 4
    assert result.json_lines()[-1]["status"] == "aborted"


def test_answer_without_escalation_is_bad_input(cli_in_process, tmp_path: Path) -> None:
    task = _init(cli_in_process, "hello_world", tmp_path)
    result = cli_in_process("answer", task, "yes")
    assert result.code == 2 and "no pending escalation" in result.err
