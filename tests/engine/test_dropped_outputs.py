"""An output pushed out of working memory leaves a one-line trace in the context (what it was,
how large, when and why it left) instead of vanishing; reading it again takes the trace away."""

from __future__ import annotations

from pathlib import Path

import pytest

from forgetui.engine import api
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.step.executor import Executor
from tests.engine.helpers import act, make_task, replay

pytestmark = pytest.mark.timeout(120)


def _steps(folder: TaskFolder, count: int) -> None:
    with Executor(folder, replay(folder)) as executor:
        for _ in range(count):
            executor.step()


def _state_text(folder: TaskFolder) -> str:
    return api.preview_context(folder).section("current_state").text


def _task(tmp_path: Path, script: list[dict[str, object]]) -> TaskFolder:
    folder = make_task(tmp_path, script)
    big = "".join(f"line {n}: {'x' * 40}\n" for n in range(1, 201))
    (folder.workspace / "big.py").write_text(big)
    for n in range(1, 7):
        (folder.workspace / f"d{n}").mkdir()
    return folder


def test_a_pushed_out_output_leaves_a_trace_with_its_size_and_step(tmp_path: Path) -> None:
    script = [
        act("read_file", path="big.py"),
        *(act("list_dir", path=f"d{n}") for n in range(1, 6)),
    ]
    folder = _task(tmp_path, script)
    _steps(folder, 6)  # memory holds 5: the read at step 1 is pushed out at step 6
    text = _state_text(folder)
    (trace,) = folder.load_state().dropped_outputs
    assert trace.ref == "action_result@1" and trace.step == 6 and trace.reason == "pushed out"
    assert trace.tokens > 1000  # 200 lines of about 50 characters
    assert f"{trace.what}: {trace.tokens:,} tokens, pushed out at step 6" in text
    assert "big.py" in trace.what


def test_reading_it_again_takes_the_trace_away_and_a_note_leaves_none(tmp_path: Path) -> None:
    script = [
        act("read_file", path="big.py"),
        *(act("list_dir", path=f"d{n}") for n in range(1, 5)),
        act("note", text="a note pushes nothing of its own"),
        act("read_file", path="big.py"),
    ]
    folder = _task(tmp_path, script)
    _steps(folder, 6)
    assert "pushed out at step 6" in _state_text(folder)
    _steps(folder, 1)  # read again: the output is back in memory
    assert "pushed out at step 6" not in _state_text(folder)
    assert all(t.ref.startswith("action_result") for t in folder.load_state().dropped_outputs)
