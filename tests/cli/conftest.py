"""CLI tests run the real command in a subprocess: exit codes, stdout JSON, stderr lines."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Result:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)

    def json_lines(self) -> list[Any]:
        return [json.loads(line) for line in self.out.splitlines() if line.strip()]


@pytest.fixture
def cli(tmp_path: Path) -> Any:
    home = tmp_path / "home"
    env = {
        **os.environ,
        "FORGETUI_HOME": str(home),
        "NO_COLOR": "1",
        "COLUMNS": "160",
        # the samples run pytest as a check; this venv's plugins add ~3 s to each run
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
    }

    def run(
        *args: str | Path,
        stdin: str | None = None,
        extra_env: dict[str, str] | None = None,
        timeout: float = 120,
    ) -> Result:
        proc = subprocess.run(
            [sys.executable, "-m", "forgetui", *map(str, args)],
            capture_output=True,
            text=True,
            env={**env, **(extra_env or {})},
            cwd=tmp_path,
            input=stdin,
            timeout=timeout,
        )
        return Result(proc.returncode, proc.stdout, proc.stderr)

    return run


def write_hand_task(workspace: Path, target_lines: int = 3000) -> Path:
    """A task folder written by hand from DESIGN.md sections 3 and 5."""
    task = workspace / ".agentforge" / "tasks" / "fix-help"
    (task / "artifacts" / "inputs").mkdir(parents=True)
    (workspace / "cli" / "commands").mkdir(parents=True)
    lines = ['"""Spec commands."""', "import click", ""]
    while len(lines) < target_lines - 1:
        n = len(lines)
        lines += ["@click.command()", f"def cmd_{n}():", f"    return {n}", ""]
    lines = [*lines[: target_lines - 1], "# last line of spec.py"]
    (workspace / "cli" / "commands" / "spec.py").write_text("\n".join(lines) + "\n")
    (task / "task.yaml").write_text(
        """id: fix-help
goal: Add a help parameter to every click command in cli/commands/spec.py.
success_criteria:
  - every @click.command in cli/commands passes help=
  - tests/test_cli.py passes
constraints:
  - do not change command behaviour
task_type: fix_violation
phase: fix_violation
violation: "CLI-007: click commands without help text in cli/commands/spec.py"
check_definition:
  rule: every @click.command(...) call passes help=
target_files: [cli/commands/spec.py]
checks:
  - name: tests
    kind: command                 # exit code 0 passes; pytest's summary -> passed/total
    cmd: ["pytest", "-q", "tests/test_cli.py"]
  - name: help-param
    kind: regex                   # pattern must / must_not match in the files
    path: "cli/commands/*.py"
    must_not_match: "@click.command\\\\(\\\\)\\\\s*\\\\ndef"
limits:
  max_steps: 50
"""
    )
    (task / "state.yaml").write_text(
        "task_id: fix-help\nphase: fix_violation\nstatus: ready\nstep: 8\n"
    )
    # the working-memory example of DESIGN.md section 5, verbatim
    design_memory = Path(__file__).parents[1] / "data" / "working_memory.design.yaml"
    (task / "working_memory.yaml").write_text(
        design_memory.read_text().replace(
            'content: "..."', 'content: "def spec(): ...  # loaded by hand"'
        )
    )
    (task / "actions.yaml").write_text("")
    return task


@pytest.fixture
def hand_task(tmp_path: Path) -> Path:
    return write_hand_task(tmp_path / "ws")
