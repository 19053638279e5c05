"""After an in-place rewind, the next step's context is compared with the step rewound to, and
why an item changed comes from what happened on the live run only: the abandoned branch's
operator changes were undone by the rewind, so they explain nothing."""

from __future__ import annotations

from pathlib import Path

from forgetui.engine import api
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.llm import make_model
from forgetui.engine.start.samples import init_sample
from forgetui.engine.step.executor import Executor


def steps(folder: TaskFolder, count: int) -> None:
    with Executor(folder, make_model("replay", task_dir=folder.path)) as executor:
        for _ in range(count):
            executor.step()


def test_the_operator_s_changes_since_the_rewind_explain_the_next_step(tmp_path: Path) -> None:
    folder = init_sample("hello_world", into=tmp_path / "ws")
    api.add_note(folder, "use the standard library")  # note@0, in every context from step 1
    steps(folder, 3)
    api.pin(folder, "note@0")  # after step 3: undone by the rewind below
    assert api.rewind_task(folder, 1).superseded == (2, 3)
    assert [(i.ref, i.pinned) for i in folder.load_memory().items if i.ref == "note@0"] == [
        ("note@0", False)
    ]
    api.pin(folder, "note@0")  # after the rewind: this one stands
    api.pin(folder, "note@0", pinned=False)  # ... and this, its last word
    steps(folder, 1)  # step 4, after step 1 on the live run
    reopened = TaskFolder.open(folder.path)
    assert api.previous_on_branch(reopened, 4) == 1
    changed = {e.ref: e.reason for e in api.context_diff(reopened, 4) if e.change == "changed"}
    assert changed == {"note@0": "unpinned"}


def test_no_change_since_the_rewind_means_no_reason(tmp_path: Path) -> None:
    folder = init_sample("hello_world", into=tmp_path / "ws")
    api.add_note(folder, "use the standard library")
    steps(folder, 3)
    api.pin(folder, "note@0")  # on the branch the rewind leaves
    api.rewind_task(folder, 1)
    steps(folder, 1)
    diff = api.context_diff(TaskFolder.open(folder.path), 4)
    assert "note@0" not in {entry.ref for entry in diff}  # shown unchanged since step 1
