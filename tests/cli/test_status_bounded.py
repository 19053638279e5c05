"""`forgetui status` stays fast on a long log: it reads state.yaml and the files beside it,
never actions.yaml, and imports neither the model layer (litellm, the tokenizer) nor the
context compiler. Each run is a fresh interpreter, as the command is."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from forgetui.engine.folder.action_log import encode_record
from forgetui.engine.folder.records import IntentRecord, ResultRecord
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.folder.task_spec import TaskSpec
from forgetui.engine.folder.task_state import CheckResult, Verification

from .conftest import cli_env

STEPS = 5_000  # 10,000 records

# Runs the command as `forgetui status TASK --json` does, and says what it opened and imported.
PROBE = """
import contextlib, io, json, sys
opened = []

def audit(event, args):
    if event == "open" and str(args[0]).endswith("actions.yaml"):
        opened.append(str(args[0]))

sys.addaudithook(audit)
from forgetui.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = main(["status", sys.argv[1], "--json"])
heavy = ("litellm", "tiktoken", "textual", "forgetui.engine.llm", "forgetui.engine.actions",
         "forgetui.engine.context.compiler", "forgetui.engine.history.stats")
imported = sorted(m for m in sys.modules if m.startswith(tuple(h + "." for h in heavy))
                  or m in heavy)
print(json.dumps({"code": code, "status": json.loads(out.getvalue()), "opened": opened,
                  "imported": imported}))
"""


def long_task(root: Path, steps: int) -> TaskFolder:
    """A paused task at step `steps` whose log holds `steps` intent+result pairs."""
    workspace = root / "repo"
    workspace.mkdir()
    spec = TaskSpec(id="long", goal="Keep the tests green.", success_criteria=["tests pass"])
    folder = TaskFolder.create(workspace, spec)
    with folder.lock:
        state = folder.load_state()
        state.step, state.status = steps, "paused"
        state.verification = Verification(
            step=steps, checks={"tests": CheckResult(passing=True, details="12 passed")}
        )
        folder.save_state(state)
    with open(folder.log.path, "ab") as log:
        for step in range(1, steps + 1):
            args = {"path": f"src/module_{step % 40}.py"}
            log.write(
                encode_record(
                    IntentRecord(
                        step=step,
                        at="2025-01-01T00:00:00Z",
                        action="read_file",
                        args=args,
                        context_tokens=3000,
                    )
                )
            )
            log.write(encode_record(ResultRecord(
                step=step, at="2025-01-01T00:00:01Z", action="read_file", args=args,
                result="success", summary=f"read module {step % 40}")))  # fmt: skip
    return folder


def probe(task: Path, home: Path) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(task)],
        capture_output=True, text=True, check=True, timeout=120,
        env={**os.environ, **cli_env(home)},
    )  # fmt: skip
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_status_on_a_long_log_reads_state_not_the_log(tmp_path: Path) -> None:
    folder = long_task(tmp_path, STEPS)
    before = probe(folder.path, tmp_path / "home")
    assert before["code"] == 0
    status = before["status"]
    assert status["step"] == STEPS and status["status"] == "paused"
    assert status["verification"]["checks"]["tests"] == {"passing": True, "details": "12 passed"}
    assert before["opened"] == []  # the log's size costs status nothing

    with open(folder.log.path, "ab") as log:  # the log grows; status says the same
        for step in range(STEPS + 1, STEPS + 201):
            log.write(encode_record(ResultRecord(
                step=step, at="2025-01-01T00:00:01Z", action="read_file",
                args={"path": "a.py"}, result="success", summary="read a.py")))  # fmt: skip
    after = probe(folder.path, tmp_path / "home")
    assert after["status"] == status and after["opened"] == []


def test_status_imports_no_model_layer_nor_the_compiler(tmp_path: Path) -> None:
    folder = long_task(tmp_path, 3)
    result = probe(folder.path, tmp_path / "home")
    assert result["code"] == 0 and result["status"]["step"] == 3
    assert result["imported"] == []
