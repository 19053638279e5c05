"""real_repo is the sample whose outputs are real-size: whole modules read, the full suite run
with its tracebacks after each fix, searches across the tree. Run with its replay script to its
verified finish as a user would, it sends at step 50 at most a twentieth of what the whole
conversation would have by then (measured 21.5x; bench/results/naive.txt)."""

from __future__ import annotations

from pathlib import Path

import yaml

from forgetui.engine.start.samples import find_sample
from tests.cli.conftest import without_fsync
from tests.cli.test_never_above_naive import TOLERANCE

SAVING_AT_50 = 20  # naive / sent at step 50, rounded down from the measured figure


def test_real_repo_sends_a_twentieth_of_the_conversation_by_step_50(
    cli_in_process, tmp_path: Path
) -> None:
    cli = cli_in_process
    sample = find_sample("real_repo")
    assert sample is not None
    script = yaml.safe_load((sample / "replay.yaml").read_text("utf-8"))
    task = Path(cli("init", "real_repo", "--into", tmp_path / "rr").out.strip())
    with without_fsync():  # what is proven is a token count, not durability
        result = cli("run", task, timeout=600)
    assert result.code == 0, result.err[-2000:]
    # a verified finish: the suite really ran and passed, the rounding check holds
    status = cli("status", task, "--json").json()
    assert status["status"] == "complete"
    checks = status["verification"]["checks"]
    assert all(check["passing"] for check in checks.values()), checks
    assert "passed" in checks["tests"]["details"] and "failed" not in checks["tests"]["details"]
    stats = cli("stats", task, "--json").json()
    steps = {row["step"]: row for row in stats["steps"]}
    assert len(steps) == len(script) > 50  # every scripted action ran once, none refused
    at_50 = steps[50]
    assert at_50["naive"] >= SAVING_AT_50 * at_50["sent"], at_50
    over = [row for row in steps.values() if row["sent"] > row["naive"] * TOLERANCE]
    assert over == []
