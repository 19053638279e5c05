"""The usage tier of the last context compiled is kept in state.yaml: the next step learns
from it whether it crosses into the alert tier without reading the saved context back, a
rewind puts back the tier of the step it returns to, and a task saved before the tier was
kept still steps (its last saved context says, once)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.history.rewind import rewind_task
from forgetui.engine.step.executor import Executor

from .helpers import act, make_task, replay

CAP = 1200  # notes fill it step by step: tiers 70, 80, 80, 80, then 90 from step 5


def noting_task(tmp_path: Path, steps: int = 8) -> TaskFolder:
    script = [act("note", text=f"finding {i}: " + "detail " * 15) for i in range(steps)]
    return make_task(tmp_path, script, limits={"max_tokens": CAP})


def run_steps(folder: TaskFolder, steps: int) -> list[int]:
    """Step `steps` times; the steps that alerted."""
    alerted: list[int] = []

    def seen(event: object) -> None:
        if getattr(event, "stage", "") == "alert":
            alerted.append(getattr(event, "step", 0))

    with Executor(folder, replay(folder), seen) as executor:
        for _ in range(steps):
            executor.step()
    return alerted


def saved_tier(folder: TaskFolder, step: int) -> int:
    return int(yaml.safe_load(folder.context_path(step).read_text())["usage_tier"])


def test_the_tier_is_kept_in_state_and_never_read_back_from_a_context(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = noting_task(tmp_path)
    reads: list[int] = []
    load = TaskFolder.load_saved_context

    def counted(self: TaskFolder, step: int) -> object:
        reads.append(step)
        return load(self, step)

    monkeypatch.setattr(TaskFolder, "load_saved_context", counted)
    tiers = []
    for _ in range(6):
        alerted = run_steps(folder, 1)
        state = folder.load_state()
        assert state.last_context_tier == saved_tier(folder, state.step)
        tiers.append((state.last_context_tier, bool(alerted)))
    assert reads == []  # every step knew the tier before from state.yaml
    assert [tier for tier, _ in tiers] == [70, 80, 80, 80, 90, 90]
    assert [alerted for _, alerted in tiers] == [False] * 4 + [True, False]  # once, crossing


def test_a_rewind_restores_the_tier_and_the_crossing_alerts_again(tmp_path: Path) -> None:
    folder = noting_task(tmp_path)
    assert run_steps(folder, 6) == [5]
    rewind_task(folder, 4)  # back before the crossing: step 4's context was at 80%
    state = folder.load_state()
    assert state.last_context_tier == saved_tier(folder, 4) == 80
    # step 7 goes from where step 4 ended, crossing into 90% again: the operator hears it
    assert run_steps(folder, 1) == [7]
    assert saved_tier(folder, 7) == 90 == folder.load_state().last_context_tier


def test_a_state_saved_before_the_tier_was_kept_reads_its_last_context_once(
    tmp_path: Path,
) -> None:
    folder = noting_task(tmp_path)
    assert run_steps(folder, 5) == [5]
    path = folder.path / "state.yaml"
    data = yaml.safe_load(path.read_text())
    del data["last_context_tier"]
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    assert folder.load_state().last_context_tier is None  # an older state.yaml still loads
    assert run_steps(folder, 1) == []  # step 5's saved context says 90: no second alert
    assert folder.load_state().last_context_tier == 90  # kept from here on
