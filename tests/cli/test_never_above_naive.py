"""No step of any bundled sample sends more tokens than the whole conversation would have by then
(naive), within a 5% allowance for the counting: each sample is run with its replay script and
`forgetui stats --json` read as a user would. The two long samples are taken to their first
steps only (early steps are where a compiled context could outgrow a short conversation; later
the conversation only grows)."""

from __future__ import annotations

from pathlib import Path

import pytest

from forgetui.engine.start.samples import sample_names
from tests.cli.conftest import without_fsync

TOLERANCE = 1.05
FIRST_STEPS = {"long_run": 60, "real_repo": 30}  # the rest run to their end


@pytest.mark.parametrize("sample", sample_names())
def test_no_step_sends_more_than_the_whole_conversation(
    cli_in_process, tmp_path: Path, sample: str
) -> None:
    cli = cli_in_process
    task = Path(cli("init", sample, "--into", tmp_path / sample).out.strip())
    bound = ["--max-steps", str(FIRST_STEPS[sample])] if sample in FIRST_STEPS else []
    with without_fsync():  # what is proven is a token count, not durability
        result = cli("run", task, *bound, timeout=600)
        if result.code == 3:  # the escalation sample asks which language
            assert cli("answer", task, "French").code == 0
            result = cli("run", task, *bound, timeout=600)
    assert result.code == 0, result.err[-2000:]
    stats = cli("stats", task, "--json").json()
    steps = stats["steps"]
    assert len(steps) == FIRST_STEPS.get(sample, stats["summary"]["steps"]) and len(steps) > 3
    over = [(s["step"], s["sent"], s["naive"]) for s in steps if s["sent"] > s["naive"] * TOLERANCE]
    assert over == [], f"{sample}: steps sending more than naive x {TOLERANCE}: {over}"
    # the measure is live: the whole conversation grew with every step
    assert steps[-1]["naive"] > steps[0]["naive"] == steps[0]["sent"]
