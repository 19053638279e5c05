"""Ctrl+C during a headless run: the files agree afterwards, the interrupted step says what it
had done, and `--on-interrupt` resumes an unattended run."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from forgetui.engine.folder.interrupts import interrupts_deferred
from forgetui.engine.folder.records import IntentRecord
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.step.executor import Executor
from tests.engine.helpers import act, make_task, replay

STEPS = 16


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _agree(folder: TaskFolder) -> None:
    """Memory, state and log describe the same last step."""
    state = folder.load_state()
    results = [r.step for r in folder.log.iter_records() if r.kind == "result"]
    assert (results[-1] if results else 0) == state.step
    remembered = [item.step for item in folder.load_memory().items if item.type == "action_result"]
    assert all((step or 0) <= state.step for step in remembered), (remembered, state.step)


def test_ctrl_c_again_and_again_leaves_the_files_agreeing(tmp_path: Path) -> None:
    slow = {
        "name": "slow",
        "kind": "command",
        "cmd": ["python", "-c", "import time; time.sleep(0.1)"],
    }
    script = [act("write_file", path=f"f{i:02d}.txt", content=f"{i}\n") for i in range(STEPS)]
    folder = make_task(tmp_path, script, checks=[slow])
    rng = random.Random(7)
    interrupts = 0
    seen: list[str] = []  # each run's exit code and last line of stderr, for a failure's message
    for _round in range(40):
        if folder.load_state().step >= STEPS:
            break
        proc = subprocess.Popen(
            [sys.executable, "-m", "forgetui", "run", str(folder.path), "--json",
             "--on-interrupt", "rerun"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
            # as from a terminal: a worker that ran a TUI test before may ignore SIGINT, and a
            # child inherits an ignored signal (the run would never see the Ctrl+C)
            preexec_fn=_default_sigint,
        )  # fmt: skip
        assert proc.stdout is not None
        if proc.stdout.readline() and interrupts < 8:
            time.sleep(rng.uniform(0.0, 0.3))
            proc.send_signal(signal.SIGINT)  # what Ctrl+C sends
            interrupts += 1
        _out, err = proc.communicate(timeout=120)
        assert "Traceback" not in err, err
        seen.append(f"{proc.returncode}: {(err.strip().splitlines() or [''])[-1]}")
        _agree(folder)
    assert interrupts >= 5, seen
    assert folder.load_state().step >= STEPS
    results = [r.step for r in folder.log.iter_records() if r.kind == "result"]
    assert results == list(range(1, len(results) + 1))  # no step lost or doubled


def test_memory_saved_ahead_of_state_is_brought_back_in_line(tmp_path: Path) -> None:
    folder = make_task(tmp_path, [act("note", text="one"), act("note", text="two")])
    with Executor(folder, replay(folder)) as ex:
        ex.step()
    # what an interrupt between saving memory and saving state left behind
    state = folder.load_state()
    with folder.lock:
        memory = folder.load_memory()
        item = memory.items[-1].model_copy(update={"step": 2})
        folder.save_memory(memory.model_copy(update={"items": [*memory.items, item]}))
        folder.log.append(
            IntentRecord(step=2, at="t", action="note", args={"text": "two"}, model="replay")
        )
    with Executor(folder, replay(folder)) as ex:
        assert "working memory brought back in line with step 1" in ex.notices
    _agree(folder)
    assert folder.load_state().step == state.step


@pytest.mark.parametrize(
    ("action", "snapshot", "landed", "says"),
    [
        ("write_file", True, True, "it had already changed out.txt"),
        # killed between its snapshot and the change: the file is still as it was
        ("write_file", True, False, "it had not changed any file yet"),
        ("write_file", False, False, "it had not changed any file yet"),
        ("run_cmd", False, False, "the command may have run in part or in full"),
        ("read_file", False, False, "re-running it is safe"),
    ],
)
def test_the_interrupted_escalation_says_what_the_action_had_done(
    tmp_path: Path, action: str, snapshot: bool, landed: bool, says: str
) -> None:
    folder = make_task(tmp_path, [act("note", text="x")])
    with folder.lock:
        folder.log.append(IntentRecord(step=1, at="t", action=action, args={"path": "out.txt"}))
        if snapshot:
            folder.snapshot(1, "out.txt", None, "new\n")
        if landed:
            (folder.workspace / "out.txt").write_text("new\n")
    with Executor(folder, replay(folder)):
        pass
    pending = folder.load_state().pending_escalation
    assert pending is not None and pending.reason == "interrupted"
    assert says in pending.question and pending.options == ["re-run", "skip"]


def test_an_interrupt_while_recording_waits_for_the_record() -> None:
    finished = []
    with pytest.raises(KeyboardInterrupt), interrupts_deferred():
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)
        finished.append(True)  # not cut short
    assert finished == [True]


def test_a_write_that_failed_leaves_no_snapshot_to_mislead_recovery_or_rewind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from forgetui.engine.workspace.safe_write import WriteTarget

    def disk_full(self: WriteTarget, text: str) -> None:
        raise OSError(28, "No space left on device")

    folder = make_task(tmp_path, [act("write_file", path="out.txt", content="new\n")])
    monkeypatch.setattr(WriteTarget, "replace", disk_full)
    with Executor(folder, replay(folder)) as ex:
        report = ex.step()
    assert report.result == "failure"
    step_dir = folder.snapshots_dir / "step-000001"
    assert not [p for p in step_dir.rglob("*") if p.is_file()] if step_dir.exists() else True
    assert not (folder.workspace / "out.txt").exists()
