"""Where the local model is required (FORGETUI_REQUIRE_LOCAL_MODEL=1, which .ci/run sets once
`make local-model` succeeded), a local_model test that cannot get it fails; elsewhere it skips
and says why. Run by a pytest of its own, pointed at a llama Python that does not exist."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.inner_pytest import run_pytest
from tests.local_model.conftest import REQUIRE_VARIABLE

LOCAL_MODEL_TESTS = "tests/local_model/test_local_model.py"


def run_without_the_model(tmp_path: Path, required: bool) -> subprocess.CompletedProcess[str]:
    no_python = {"FORGETUI_LLAMA_PYTHON": str(tmp_path / "no-such-python")}
    return run_pytest(LOCAL_MODEL_TESTS, REQUIRE_VARIABLE, required, no_python)


def test_without_the_model_its_tests_skip_and_say_why(tmp_path: Path) -> None:
    done = run_without_the_model(tmp_path, required=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 skipped" in done.stdout, done.stdout
    assert f"no local model ({REQUIRE_VARIABLE} is not 1)" in done.stdout  # -rs: the reason


def test_without_the_model_where_it_is_required_its_tests_fail(tmp_path: Path) -> None:
    done = run_without_the_model(tmp_path, required=True)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "skipped" not in done.stdout, done.stdout
    assert "2 errors" in done.stdout, done.stdout  # the server fixture fails each test's setup
    assert f"no local model, and {REQUIRE_VARIABLE}=1" in done.stdout
