"""A crash after an edit landed but before its result was recorded: re-running the step must
not fail on an `old` text that is already gone. The re-run sees the file equals the step's
`.after` snapshot and records the edit as done, without running it again."""

from __future__ import annotations

from pathlib import Path

import pytest

from forgetui.engine.base.clock import now_iso
from forgetui.engine.folder.records import IntentRecord, ResultRecord
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.operator.verbs import answer
from forgetui.engine.step.executor import Executor
from tests.engine.helpers import act, last_results, make_task, replay

EDIT = {"path": "f.txt", "old": "one", "new": "two"}


def _interrupted_edit(tmp_path: Path, landed: bool) -> TaskFolder:
    """Step 1 wrote f.txt; step 2's edit was logged as intended and snapshotted, and (if
    `landed`) reached the file, then the process died before its result."""
    script = [act("write_file", path="f.txt", content="one\n"), act("edit_file", **EDIT)]
    script.append(act("note", text="after"))
    folder = make_task(tmp_path, script, checks=[])
    with Executor(folder, replay(folder)) as executor:
        executor.step()
    with folder.lock:
        folder.log.append(IntentRecord(step=2, at=now_iso(), action="edit_file", args=EDIT))
        folder.snapshot(2, "f.txt", "one\n", "two\n")
    if landed:
        (folder.workspace / "f.txt").write_text("two\n")
    return folder


@pytest.mark.parametrize("landed", [True, False])
def test_re_running_an_interrupted_edit(tmp_path: Path, landed: bool) -> None:
    folder = _interrupted_edit(tmp_path, landed)
    with Executor(folder, replay(folder)) as executor:
        assert folder.load_state().pending_escalation is not None  # interrupted: asked
        answer(folder, "re-run")
        report = executor.step()
    assert report.step == 2
    result = last_results(folder.log, 1)[0]
    assert isinstance(result, ResultRecord)
    assert result.result == "success", result.summary
    assert result.files_changed == ["f.txt"]
    if landed:
        assert "already applied before the interruption" in result.summary
    else:
        assert result.summary.startswith("edited f.txt")
    assert (folder.workspace / "f.txt").read_text() == "two\n"
