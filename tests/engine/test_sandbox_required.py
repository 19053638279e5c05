"""Where bubblewrap is required (FORGETUI_REQUIRE_BWRAP=1, which .ci/run sets once bwrap is on
PATH), a bwrap test that cannot run fails; elsewhere it skips and says why. Either way the run
says it: a green suite never hides an untested sandbox."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from forgetui.engine.sandbox.mode import probe_bwrap
from tests.engine.sandbox_helpers import NO_BWRAP, REQUIRE_VARIABLE, REQUIRED
from tests.inner_pytest import run_pytest

# one bwrap-only test, run by a pytest of its own where bwrap is not on PATH
BWRAP_TEST = "tests/engine/test_sandbox.py::test_bwrap_mode_runs_commands_inside_it"


def test_bubblewrap_runs_where_it_is_required() -> None:
    """Once here, rather than in each bwrap test's own failure."""
    found, why = probe_bwrap()
    if found is None and not REQUIRED:
        pytest.skip(NO_BWRAP)
    assert found is not None, f"{REQUIRE_VARIABLE}=1, but bubblewrap cannot run here: {why}"


def run_without_bwrap(tmp_path: Path, required: bool) -> subprocess.CompletedProcess[str]:
    """A pytest run of BWRAP_TEST with nothing on PATH but an empty folder and this Python's."""
    empty = tmp_path / "empty-bin"
    empty.mkdir(exist_ok=True)
    return run_pytest(
        BWRAP_TEST, REQUIRE_VARIABLE, required, {"PATH": f"{empty}:{Path(sys.executable).parent}"}
    )


def test_without_bwrap_a_bwrap_test_skips_and_says_why(tmp_path: Path) -> None:
    done = run_without_bwrap(tmp_path, required=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 skipped" in done.stdout
    assert f"SKIPPED [1] {BWRAP_TEST.split('::')[0]}" in done.stdout  # -rs: with its reason
    assert f"({REQUIRE_VARIABLE} is not 1)" in done.stdout


def test_without_bwrap_where_it_is_required_a_bwrap_test_fails(tmp_path: Path) -> None:
    done = run_without_bwrap(tmp_path, required=True)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 failed" in done.stdout and "skipped" not in done.stdout, done.stdout
    assert f"FAILED {BWRAP_TEST}" in done.stdout
