"""Every success criterion of a bundled sample is proven by a check, so a finished run of the
sample marks each one met (the workbench marks a criterion by the checks naming it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from forgetui.engine.base.yamlio import load_model
from forgetui.engine.folder.task_spec import TaskSpec
from forgetui.engine.start.samples import find_sample, sample_names
from tests.cli.conftest import without_fsync


def _spec(sample: str) -> TaskSpec:
    folder = find_sample(sample)
    assert folder is not None
    return load_model(folder / "task.yaml", TaskSpec)


@pytest.mark.parametrize("sample", sample_names())
def test_every_criterion_is_named_by_a_check(sample: str) -> None:
    spec = _spec(sample)
    named = {check.criterion for check in spec.checks if check.criterion}
    assert [c for c in spec.success_criteria if c not in named] == []
    assert named <= set(spec.success_criteria)  # a typo would prove nothing


@pytest.mark.parametrize("sample", ["implement_feature", "long_run"])
def test_a_finished_run_meets_every_criterion(cli_in_process, tmp_path: Path, sample: str) -> None:
    task = Path(cli_in_process("init", sample, "--into", tmp_path / sample).out.strip())
    with without_fsync():  # long_run is 303 steps: durability is not what this proves
        result = cli_in_process("run", task, "--json", timeout=600)
    assert result.code == 0, result.err[-2000:]
    status = cli_in_process("status", task, "--json").json()
    assert status["status"] == "complete"
    passing = status["verification"]["checks"]
    for criterion in _spec(sample).success_criteria:
        proving = [c.name for c in _spec(sample).checks if c.criterion == criterion]
        assert proving and all(passing[name]["passing"] for name in proving), criterion
