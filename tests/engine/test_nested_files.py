"""A task file nested 100,000 levels deep, in either of the forms forgetui reads (YAML, or the
JSON of a checkpoint and of the action log): the user gets one line naming the file and exit 2,
never a RecursionError traceback, and nothing in the task changes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from forgetui.engine.base import yamlio
from forgetui.engine.base.errors import StateFileError
from tests.engine.test_hostile_files import ROOT, _bounded, assert_unlocked, files_of, stepped

DEPTH = 100_000
NESTED = "[" * DEPTH + "]" * DEPTH


def _forgetui(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The CLI in a child with capped memory and CPU: a parser gone recursive or quadratic
    fails the test rather than the machine."""
    return subprocess.run(
        [sys.executable, "-m", "forgetui", *args],
        capture_output=True,
        text=True,
        timeout=120,  # a hang guard; the CPU limit fails it far sooner
        cwd=ROOT,
        env={**os.environ, "FORGETUI_HOME": str(tmp_path / "home"), "NO_COLOR": "1"},
        preexec_fn=_bounded(memory_bytes=1 << 30, cpu_s=60),
    )


@pytest.mark.parametrize(
    ("name", "text", "command"),
    [
        ("artifacts/checkpoints/step-000001.yaml", NESTED + "\n", ["rewind", "--to", "1"]),
        ("artifacts/checkpoints/step-000001.yaml", '{"step": 1, "state": ' + NESTED + "}\n",
         ["rewind", "--to", "1"]),
        ("state.yaml", "task_id: " + NESTED + "\n", ["status"]),
        ("working_memory.yaml", "items: " + NESTED + "\n", ["status"]),
        ("actions.yaml", "--- " + NESTED + "\n", ["log"]),
    ],
    ids=["checkpoint", "checkpoint-field", "state", "working_memory", "actions"],
)  # fmt: skip
def test_deep_nesting_is_one_line_naming_the_file(
    tmp_path: Path, name: str, text: str, command: list[str]
) -> None:
    folder = stepped(tmp_path)
    path = folder.path / name
    assert path.exists(), path  # the file the run wrote, replaced by a hostile one
    if name == "actions.yaml":  # a record line appended to the log
        path.write_text(path.read_text() + text)
    else:
        path.write_text(text)
    before = files_of(folder.path)
    proc = _forgetui(tmp_path, command[0], str(folder.path), *command[1:])
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert "RecursionError" not in proc.stderr, proc.stderr[-2000:]
    assert proc.returncode == 2, proc.stderr[-2000:]
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr[-2000:]
    assert lines[0].startswith(f"forgetui: {path}"), lines[0]
    if name != "state.yaml" and name != "working_memory.yaml":  # libyaml's bound, its words
        assert "nested deeper than" in lines[0], lines[0]
    assert_unlocked(folder.path)
    assert files_of(folder.path) == before


def test_json_nested_past_the_recursion_limit_is_a_value_error() -> None:
    """What every JSON reader of task files catches already (a ValueError), not a
    RecursionError; JSON within the limit loads as it always did."""
    with pytest.raises(ValueError, match="nested deeper than"):
        yamlio.load_json(NESTED)
    with pytest.raises(StateFileError) as caught:
        yamlio.parse_json_or_yaml(NESTED, Path("step-000001.yaml"))
    assert str(caught.value).startswith("step-000001.yaml: nested deeper than")
    assert yamlio.parse_json_or_yaml('{"a": [[[1]]]}', Path("x.yaml")) == {"a": [[[1]]]}
    assert yamlio.parse_json_or_yaml("a: [1]\n", Path("x.yaml")) == {"a": [1]}


def test_a_deep_package_json_is_ignored_by_new_not_a_traceback(tmp_path: Path) -> None:
    """The workspace's own files are read when a task is laid out: a hostile package.json is
    named and ignored, and the task is still made."""
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "package.json").write_text(NESTED)
    proc = _forgetui(tmp_path, "new", "--workspace", str(ws), "--goal", "g", "--no-check")
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert proc.returncode == 0, proc.stderr[-2000:]
    named = [line for line in proc.stderr.splitlines() if "package.json: not valid JSON" in line]
    assert len(named) == 1 and named[0].endswith("ignored; detection went on without it")
    assert Path(proc.stdout.strip(), "task.yaml").is_file()
