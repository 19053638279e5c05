"""A run that stops on an escalation says how to answer it, naming the real task folder."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

from forgetui.engine.start.samples import init_sample


def test_the_escalation_hint_names_the_task_folder(tmp_path: Path) -> None:
    folder = init_sample("escalation", into=tmp_path / "my work").path
    workspace = tmp_path / "my work"
    plain = subprocess.run(
        [sys.executable, "-m", "forgetui", "run", str(workspace)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert plain.returncode == 3, plain.stderr
    hint = f"answer with: forgetui answer {shlex.quote(str(folder))} TEXT"
    assert hint in plain.stdout
    answered = subprocess.run(
        [sys.executable, "-m", "forgetui", "answer", str(folder), "French"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert answered.returncode == 0, answered.stderr

    again = init_sample("escalation", into=tmp_path / "second").path
    run = subprocess.run(
        [sys.executable, "-m", "forgetui", "run", str(again), "--json"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert json.loads(run.stdout.splitlines()[-1])["task"] == str(again)
