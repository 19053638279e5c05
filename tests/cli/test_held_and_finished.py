"""`status` of a task another process holds says it runs and who runs it; a finished task's
memory is history: every memory change is refused with one line, nothing written."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.cli.stepped_sample import copy_task

_HOLDER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from forgetui.engine.folder.lock import TaskLock
    TaskLock(Path(sys.argv[1])).acquire(command="forgetui run")
    print("held", flush=True)
    sys.stdin.read()
    """
)


@pytest.fixture
def task(hello_after_two_steps: Path, tmp_path: Path) -> Path:
    return copy_task(hello_after_two_steps, tmp_path / "copy")


def test_status_of_a_held_task_says_running_and_who_holds_it(cli: Any, task: Path) -> None:
    before = cli("status", task, "--json").json()
    assert before["status"] != "running" and before["in_use_by"] is None
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(task)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        info = cli("status", task, "--json").json()
        assert info["status"] == "running"
        assert info["saved_status"] == before["status"]  # state.yaml untouched
        assert info["in_use_by"]["pid"] == holder.pid
        assert info["in_use_by"]["command"] == "forgetui run"
        text = cli("status", task)
        assert text.code == 0, text.err
        assert f"status running (pid {holder.pid}, forgetui run)" in text.out
    finally:
        holder.kill()
        holder.wait()
    after = cli("status", task, "--json").json()
    assert after["status"] == before["status"] and after["in_use_by"] is None


def test_a_finished_tasks_memory_cannot_change(cli: Any, task: Path) -> None:
    run = cli("run", task, "--json")
    assert run.code == 0, run.err
    assert run.json_lines()[-1]["status"] == "complete"
    memory = (task / "working_memory.yaml").read_bytes()
    log = (task / "actions.yaml").read_bytes()
    ref = cli("memory", task, "list", "--json").json_lines()[0]["ref"]
    refusal = "forgetui: the task is complete: rewind or fork to change its memory"
    for change in (["pin", ref], ["evict", ref], ["edit", ref, "new"], ["note", "too late"]):
        refused = cli("memory", task, *change)
        assert refused.code == 2, change
        assert refused.err.splitlines() == [refusal], change
    assert (task / "working_memory.yaml").read_bytes() == memory
    assert (task / "actions.yaml").read_bytes() == log
