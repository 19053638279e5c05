"""A pytest run of some of this suite in a child process, with one "required" variable set or
not: how the suite shows that a test which needs bwrap or the local model skips, or fails,
where it cannot run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_pytest(
    target: str, require_variable: str, required: bool, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """`target` run alone (no xdist, none of this run's addopts), `env` on top of ours."""
    child = {
        key: value
        for key, value in os.environ.items()
        if key not in (require_variable, "PYTEST_XDIST_WORKER", "PYTEST_ADDOPTS")
    }
    child.update(env)
    if required:
        child[require_variable] = "1"
    return subprocess.run(
        [sys.executable, "-m", "pytest", target, "-p", "no:xdist"],
        cwd=ROOT,
        env=child,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
