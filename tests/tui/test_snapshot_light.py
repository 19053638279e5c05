"""The first view counted in the launcher's child reaches the workbench pickled: reading it back
must load only the values it holds, not the engine's file layer (pydantic, yaml, the task folder
models), which the workbench would otherwise import before its first paint."""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from forgetui.engine import api
from forgetui.tui.task_views import TaskSnapshot

from .conftest import ROOT

pytestmark = pytest.mark.timeout(120)

# A fresh interpreter, as the workbench is when the child's answer arrives: it unpickles the
# answer and sends back what that imported (of what it must not) and the snapshot it read.
UNPICKLE = r"""
import pickle, sys
answer = pickle.loads(sys.stdin.buffer.read())
heavy = sorted(
    name for name in sys.modules
    if name in ("pydantic", "yaml", "tiktoken") or name.startswith("forgetui.engine.folder")
)
sys.stdout.buffer.write(pickle.dumps((heavy, answer[2])))
"""


def _first_view(task: Path) -> bytes:
    """The launcher's child, run as the launcher runs it: its pickled answer."""
    child = subprocess.run(
        [sys.executable, "-P", "-m", "forgetui.tui.first_view", "task", str(task), "", "", "{}"],
        stdin=subprocess.DEVNULL, capture_output=True, cwd=ROOT, timeout=90, check=False,
    )  # fmt: skip
    assert child.returncode == 0, child.stderr.decode()
    return child.stdout


def _read_back(answer: bytes) -> tuple[list[str], TaskSnapshot]:
    fresh = subprocess.run(
        [sys.executable, "-P", "-c", UNPICKLE],
        input=answer, capture_output=True, cwd=ROOT, timeout=60, check=False,
    )  # fmt: skip
    assert fresh.returncode == 0, fresh.stderr.decode()
    heavy, snapshot = pickle.loads(fresh.stdout)
    return heavy, snapshot


def test_the_childs_snapshot_unpickles_without_the_engines_file_layer(
    quick_hello: Path, tmp_path: Path
) -> None:
    task = api.init_sample(quick_hello, into=tmp_path / "run").path
    assert api.run(task, max_steps=2).exit_code == 0  # a log, memory items, a token series
    answer = _first_view(task)
    counted = pickle.loads(answer)[2]
    assert isinstance(counted, TaskSnapshot) and not counted.loading
    # every kind of engine value a first view holds is in this one
    assert counted.tail_rows and counted.memory and counted.token_series
    assert counted.health is not None and counted.health.sections
    assert counted.sandbox is not None and counted.environment is not None

    heavy, read = _read_back(answer)
    assert heavy == []
    assert read == counted
    assert [row.action for row in read.tail_rows] == ["list_dir", "read_file"]


@pytest.mark.xfail(
    strict=True,
    reason="a waiting question (and a plan) are state.yaml's and task.yaml's pydantic models",
)
def test_a_snapshot_with_a_waiting_question_unpickles_without_pydantic(tmp_path: Path) -> None:
    task = api.init_sample("escalation", into=tmp_path / "run").path
    api.run(task, max_steps=1, until="escalation")
    answer = _first_view(task)
    assert pickle.loads(answer)[2].escalation is not None
    heavy, _ = _read_back(answer)
    assert heavy == []
