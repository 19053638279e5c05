"""The checks run once when a task is laid out, as step 0: step 1 knows what passes, a check
that hangs is stopped by its timeout, and a layout killed mid-check leaves a valid task."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import yaml

from forgetui.engine.api import init_sample, open_task
from forgetui.engine.context import compile_context, context_inputs
from forgetui.engine.folder.checkpoints import read_checkpoint
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.folder.task_spec import TaskSpec
from forgetui.engine.start.layout_checks import check_at_layout

SLEEPER = "import time; time.sleep(60)"


def spec_with(*checks: dict[str, object]) -> TaskSpec:
    return TaskSpec.model_validate(
        {"id": "t", "goal": "g", "phase": "execution", "checks": list(checks)}
    )


def test_init_runs_the_samples_checks_as_step_0(tmp_path: Path) -> None:
    folder = init_sample("hello_world", into=tmp_path / "run")
    state = folder.load_state()
    verification = state.verification
    assert (state.step, verification.step) == (0, 0) and verification.checked_at
    assert {name: r.passing for name, r in verification.checks.items()} == {
        "tests": False,
        "script-exists": False,
    }
    assert "hello.py does not exist" in verification.checks["script-exists"].details
    kept = folder.load_check_output("tests")
    assert kept is not None and kept.step == 0 and "hello" in kept.output  # pytest ran
    checkpoint = read_checkpoint(folder.checkpoints_dir, 0, folder.task_id)
    assert checkpoint.state.verification == verification  # a rewind to 0 finds it again
    ctx = compile_context(context_inputs(folder))
    status = ctx.section("verification_status").text
    assert "not run" not in status and "tests: failing" in status
    assert check_at_layout(folder) is None  # once: the verification is there now


def test_a_hanging_check_is_stopped_by_its_timeout(tmp_path: Path) -> None:
    (tmp_path / "here.txt").write_text("x\n")
    folder = TaskFolder.create(
        tmp_path,
        spec_with(
            {"name": "hangs", "kind": "command", "cmd": ["python", "-c", SLEEPER], "timeout_s": 1},
            {"name": "exists", "kind": "file_exists", "path": "here.txt"},
        ),
    )
    verification = check_at_layout(folder)
    assert verification is not None
    hangs = verification.checks["hangs"]
    assert not hangs.passing and hangs.details == "timed out after 1s"
    assert verification.checks["exists"].passing  # the other checks still ran
    assert open_task(folder.path).load_state().verification == verification
    assert not folder.lock.held_by_me()


def test_no_checks_nothing_to_run(tmp_path: Path) -> None:
    folder = TaskFolder.create(tmp_path, spec_with())
    assert check_at_layout(folder) is None
    assert folder.load_state().verification.checked_at is None


def test_a_layout_killed_while_its_check_runs_leaves_a_valid_task(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    env = {**os.environ, "FORGETUI_HOME": str(tmp_path / "home")}
    cmd = f"python -c '{SLEEPER}'"
    proc = subprocess.Popen(
        [sys.executable, "-m", "forgetui", "new", "--workspace", ws, "--goal", "g",
         "--check-cmd", cmd],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
    )  # fmt: skip
    task = ws / ".agentforge" / "tasks" / "g"
    try:
        deadline = time.monotonic() + 60
        while not (task / "lock").exists():  # laid out, and the check under way
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the check never started"
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == -signal.SIGKILL  # killed, not finished
    status = subprocess.run(
        [sys.executable, "-m", "forgetui", "status", ws, "--json"],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert status.returncode == 0, status.stderr
    shown = json.loads(status.stdout)
    assert shown["status"] == "ready" and shown["step"] == 0
    assert shown["verification"]["checks"] == {}  # not run: the next writer will see to it
    spec = yaml.safe_load((task / "task.yaml").read_text())
    assert spec["checks"][0]["cmd"] == ["python", "-c", SLEEPER]
    folder = open_task(task)
    with folder.lock:  # the dead layout's lock is stale: a writer takes it over
        assert folder.load_state().verification.checked_at is None
