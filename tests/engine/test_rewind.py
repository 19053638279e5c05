"""Rewind and fork: back to the end of step N, files byte for byte from the
snapshots, state and memory from N's checkpoint; the later steps stay in the log as a superseded
branch (in place) or are left out of a new task (a fork)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from forgetui.engine import api
from forgetui.engine.folder.checkpoints import NoCheckpoint, checkpoint_path, read_checkpoint
from forgetui.engine.folder.task_folder import FORGE_DIR, TaskFolder
from forgetui.engine.history import restore
from forgetui.engine.history.rewind import KEPT_FIELDS, RewindConflict, fork_task, rewind_task
from forgetui.engine.operator.verbs import answer
from forgetui.engine.step.executor import Executor
from tests.engine.helpers import act, make_task, replay

BINARY = bytes(range(256)) * 4  # a user's file no step touches: copied exactly by a fork
SCRIPT = [
    act("write_file", path="a.txt", content="A1\n"),
    act("edit_file", path="b.txt", old="B0", new="B1"),
    act("write_file", path="a.txt", content="A2 ünïcode\n"),
    act("write_file", path="sub/c.txt", content="C3\n"),
    act("edit_file", path="b.txt", old="B1", new="B2"),
    act("note", text="six"),
]


def workspace_files(workspace: Path) -> dict[str, bytes]:
    """The user's files (the task folder left out), by path: what a rewind must restore."""
    return {
        path.relative_to(workspace).as_posix(): path.read_bytes()
        for path in workspace.rglob("*")
        if path.is_file() and FORGE_DIR not in path.relative_to(workspace).parts
    }


def task_bytes(folder: TaskFolder) -> dict[str, bytes]:
    """Every file of the task folder: what refusing must leave as it was."""
    return {
        path.relative_to(folder.path).as_posix(): path.read_bytes()
        for path in folder.path.rglob("*")
        if path.is_file()
    }


def run_task(tmp_path: Path, **spec: Any) -> tuple[TaskFolder, list[dict[str, bytes]]]:
    """The script run step by step; the workspace's files after each step (index 0: before)."""
    folder = make_task(tmp_path, SCRIPT, **spec)
    (folder.workspace / "b.txt").write_text("B0\n")
    (folder.workspace / "data.bin").write_bytes(BINARY)
    seen = [workspace_files(folder.workspace)]
    with Executor(folder, replay(folder)) as executor:
        for _ in SCRIPT:
            executor.step()
            seen.append(workspace_files(folder.workspace))
    return folder, seen


def test_every_step_leaves_a_checkpoint_and_a_new_task_has_step_0(tmp_path: Path) -> None:
    folder, _seen = run_task(tmp_path)
    names = sorted(path.name for path in folder.checkpoints_dir.iterdir())
    assert names == [f"step-{n:06d}.yaml" for n in range(7)]
    last = read_checkpoint(folder.checkpoints_dir, 6, folder.task_id)
    assert last.state == folder.load_state().model_copy(
        update={"updated_at": last.state.updated_at}
    )
    assert last.memory == folder.load_memory()
    start = read_checkpoint(folder.checkpoints_dir, 0, folder.task_id)
    assert start.state.step == 0 and start.state.status == "ready" and start.memory.items == []


def test_rewind_in_place_restores_files_state_and_memory(tmp_path: Path) -> None:
    folder, seen = run_task(tmp_path)
    before = folder.load_state()
    records = len(folder.log)
    checkpoint = read_checkpoint(folder.checkpoints_dir, 2, folder.task_id)

    report = rewind_task(folder, 2)

    # every file the later steps touched is the .before of the first of them, byte for byte
    assert workspace_files(folder.workspace) == seen[2]
    assert (folder.workspace / "a.txt").read_bytes() == b"A1\n"
    assert not (folder.workspace / "sub" / "c.txt").exists()
    assert report.restored == ["a.txt", "b.txt"] and report.removed == ["sub/c.txt"]
    assert report.superseded == (3, 6) and report.status == "paused" and report.done
    state = folder.load_state()
    for name in KEPT_FIELDS:  # numbering goes on: step 7 is next, never a step 3 again
        assert getattr(state, name) == getattr(before, name), name
    for name in ("verification", "progress", "scratchpad", "loop_guard", "probe", "phase"):
        assert getattr(state, name) == getattr(checkpoint.state, name), name
    assert [(m.to, m.first, m.last) for m in state.rewinds] == [(2, 3, 6)]
    shifted = [item.model_copy(update={"step": item.step + 4}) for item in checkpoint.memory.items]
    assert folder.load_memory().items == shifted  # each item's term goes on as it stood at 2
    # the log keeps every record, and says what happened
    assert len(folder.log) == records + 1
    rewind = folder.log.record_at(-1)
    assert rewind.kind == "operator" and rewind.op == "rewind"
    assert rewind.text == "rewind → step 2 (steps 3-6 superseded)"
    assert rewind.detail["superseded"] == [3, 6] and rewind.detail["forced"] == []


def test_superseded_branch_survives_a_reopen_and_never_reaches_the_agent(tmp_path: Path) -> None:
    folder, seen = run_task(tmp_path)
    rewind_task(folder, 2)
    reopened = TaskFolder.open(folder.path)
    rows = api.log_rows(reopened, 0, api.log_row_count(reopened))
    marked = {row.step for row in rows if row.kind == "step" and row.superseded}
    assert marked == {3, 4, 5, 6}
    assert [row.summary for row in rows if row.kind == "operator"][-1].startswith("rewind → step 2")
    entries = list(api.log_entries(reopened))
    assert [e["step"] for e in entries if e.get("superseded")] == [3, 4, 5, 6]
    assert not any(e.get("superseded") for e in entries if "operator" in e)
    recent = api.preview_context(reopened).section("recent_actions").text
    assert "step 2:" in recent and "step 1:" in recent
    assert not any(f"step {n}:" in recent for n in (3, 4, 5, 6))
    # the next step is 7 and the script goes on with its third answer (step 3's)
    with Executor(reopened, replay(reopened)) as executor:
        report = executor.step()
    assert report.step == 7 and report.action == "write_file"
    assert workspace_files(reopened.workspace) == seen[3]
    assert reopened.load_state().step == 7
    context = reopened.load_saved_context(7)["messages"][1]["content"]
    assert "step 6:" not in context and "step 2:" in context
    # the diff of step 7 is against the context it followed, step 2's (not step 6's)
    assert api.previous_on_branch(reopened, 7) == 2
    assert api.previous_on_branch(reopened, 6) == 5  # inside the branch, its own order
    step_2 = set(reopened.load_saved_context(2)["memory_refs"])
    step_7 = set(reopened.load_saved_context(7)["memory_refs"])
    diff = {(entry.ref, entry.change) for entry in api.context_diff(reopened, 7)}
    assert diff == {(ref, "entered") for ref in step_7 - step_2} | {
        (ref, "left") for ref in step_2 - step_7
    }


def test_rewind_to_0_is_the_fresh_start(tmp_path: Path) -> None:
    folder, seen = run_task(tmp_path)
    report = rewind_task(folder, 0)
    assert workspace_files(folder.workspace) == seen[0]
    assert report.superseded == (1, 6)
    state = folder.load_state()
    assert state.step == 6 and state.status == "paused" and state.scratchpad == []
    assert not state.verification.checks and folder.load_memory().items == []
    with Executor(folder, replay(folder)) as executor:  # the script starts over at step 7
        assert executor.step().step == 7
    assert workspace_files(folder.workspace) == seen[1]


def test_rewinding_twice_follows_the_live_run(tmp_path: Path) -> None:
    """A second rewind goes back along the live run: the branch left first stays left."""
    folder, seen = run_task(tmp_path)
    rewind_task(folder, 4)
    with Executor(folder, replay(folder)) as executor:
        executor.step()  # step 7: the script's fifth answer (b.txt B1 -> B2)
    assert workspace_files(folder.workspace) == seen[5]
    report = rewind_task(folder, 1)
    assert workspace_files(folder.workspace) == seen[1]
    assert report.superseded == (2, 7)
    with pytest.raises(api.ForgeError, match="branch a rewind left behind"):
        rewind_task(folder, 5)
    assert api.repair_task(folder.path).fixes == []


def test_a_file_changed_by_hand_stops_the_rewind_until_forced(tmp_path: Path) -> None:
    folder, seen = run_task(tmp_path)
    (folder.workspace / "a.txt").write_text("my own edit\n")
    kept_task, kept_files = task_bytes(folder), workspace_files(folder.workspace)
    with pytest.raises(RewindConflict) as refused:
        rewind_task(folder, 2)
    assert refused.value.report.conflicts == ["a.txt"]
    assert "nothing changed; --force overwrites them" in refused.value.message
    assert task_bytes(folder) == kept_task and workspace_files(folder.workspace) == kept_files
    assert not (folder.path / "lock").exists()
    report = rewind_task(folder, 2, force=True)
    assert report.conflicts == ["a.txt"]
    assert workspace_files(folder.workspace) == seen[2]
    assert folder.log.record_at(-1).detail["forced"] == ["a.txt"]


def test_refusals_are_one_line_and_change_nothing(tmp_path: Path) -> None:
    folder, _seen = run_task(tmp_path)
    kept = task_bytes(folder)
    for to, said in (
        (-1, "--to -1: a step number is 0 or more"),
        (9, "has no step 9: it is at step 6"),
        (6, "at the end of step 6 already: nothing to rewind"),
    ):
        with pytest.raises(api.ForgeError, match=said):
            rewind_task(folder, to)
    checkpoint_path(folder.checkpoints_dir, 3).unlink()
    with pytest.raises(NoCheckpoint, match="step 3 has no checkpoint"):
        rewind_task(folder, 3)
    kept.pop("artifacts/checkpoints/step-000003.yaml")
    assert task_bytes(folder) == kept
    assert not (folder.path / "lock").exists()


def test_a_step_waiting_for_approval_is_settled_first(tmp_path: Path) -> None:
    folder = make_task(tmp_path, SCRIPT, approval="confirm_writes")
    (folder.workspace / "b.txt").write_text("B0\n")
    with Executor(folder, replay(folder)) as executor:
        assert executor.step().result == "escalated"
        answer(folder, "approve")
        assert executor.step().result == "success"  # step 1 ran
        assert executor.step().result == "escalated"  # step 2 waits
    kept = task_bytes(folder)
    with pytest.raises(api.ForgeError, match="step 2 \\(edit_file\\) has no result yet"):
        rewind_task(folder, 0)
    assert task_bytes(folder) == kept


def test_another_writer_holding_the_lock_is_named(tmp_path: Path) -> None:
    folder, _seen = run_task(tmp_path)
    take = (
        "import sys; from pathlib import Path; from forgetui.engine.folder.lock import TaskLock; "
        f"TaskLock(Path({str(folder.path)!r})).acquire('forgetui run elsewhere'); "
        "print('held', flush=True); sys.stdin.read()"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", take], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        kept = task_bytes(folder)
        with pytest.raises(api.ForgeError, match=f"locked by pid {holder.pid} \\(forgetui run"):
            rewind_task(folder, 2)
        assert task_bytes(folder) == kept
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=30)


def test_a_crash_after_a_rewind_resumes(tmp_path: Path) -> None:
    """The next step's result lost on its way to the log (a crash after state.yaml): the
    writer's open restores it, as for any step, and its checkpoint (written first) is there."""
    folder, _seen = run_task(tmp_path)
    rewind_task(folder, 2)
    with Executor(folder, replay(folder)) as executor:
        executor.step()
    log = folder.log.path
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join(lines[:-1]))  # step 7's result never reached the log
    with Executor(folder, replay(folder)) as executor:
        assert any("step 7: result restored" in notice for notice in executor.notices)
        assert executor.step().step == 8
    assert checkpoint_path(folder.checkpoints_dir, 7).is_file()
    assert api.repair_task(folder.path).fixes == []


def test_fork_copies_restores_and_leaves_the_original_untouched(tmp_path: Path) -> None:
    folder, seen = run_task(tmp_path)
    # b.txt, which step 5 changed, was changed by hand too: the copy is restored all the same
    (folder.workspace / "b.txt").write_text("hand edit after the run\n")
    original_task, original_files = task_bytes(folder), workspace_files(folder.workspace)
    dest = tmp_path / "fork"

    report = fork_task(folder, 3, dest)

    assert task_bytes(folder) == original_task
    assert workspace_files(folder.workspace) == original_files
    assert workspace_files(dest) == seen[3]
    assert (dest / "data.bin").read_bytes() == BINARY
    assert report.fork and report.superseded is None and report.status == "paused"
    assert report.removed == ["sub/c.txt"] and report.restored == ["b.txt"]
    fork = TaskFolder.open(report.folder)
    assert fork.workspace == dest.absolute()
    assert (fork.path / "task.yaml").read_bytes() == (folder.path / "task.yaml").read_bytes()
    state = fork.load_state()
    assert state.step == 3 and api.task_change(fork, state) is None  # the seal accepts it
    assert [r.step for r in fork.log.iter_records() if r.kind == "result"] == [1, 2, 3]
    last = fork.log.record_at(-1)
    assert last.op == "fork" and last.detail == {"from": str(folder.path), "to": 3}
    assert sorted(p.name for p in fork.checkpoints_dir.iterdir())[-1] == "step-000003.yaml"
    # the fork runs on with the script from its fourth answer, to the same files as the run
    with Executor(fork, replay(fork)) as executor:
        reports = [executor.step() for _ in range(3)]
    assert [r.step for r in reports] == [4, 5, 6]
    assert workspace_files(dest) == seen[6]
    assert api.repair_task(fork.path).fixes == []


def test_fork_needs_a_new_or_empty_directory_outside_the_workspace(tmp_path: Path) -> None:
    folder, _seen = run_task(tmp_path)
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "x").write_text("mine")
    with pytest.raises(api.ForgeError, match="not empty"):
        fork_task(folder, 1, taken)
    with pytest.raises(api.ForgeError, match="inside the workspace"):
        fork_task(folder, 1, folder.workspace / "copy")
    empty = tmp_path / "empty"
    empty.mkdir()
    report = fork_task(folder, 0, empty)
    assert report.status == "ready" and workspace_files(empty) == {
        "b.txt": b"B0\n",
        "data.bin": BINARY,
    }
    assert (taken / "x").read_text() == "mine"


def test_implement_feature_rewound_to_red_runs_green_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sample run to completion, back to the end of RED (step 4), and on to completion
    again: the same files as the first run, the GREEN steps numbered 8 to 10."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")  # the checks' pytest: no plugins
    folder = api.init_sample("implement_feature", into=tmp_path / "run")
    assert api.run(folder.path).exit_code == 0
    done = workspace_files(folder.workspace)
    report = rewind_task(folder, 4)
    assert report.removed == ["mathx/__init__.py"] and report.restored == []
    state = folder.load_state()
    assert state.phase == "implement_green" and state.status == "paused"
    outcome = api.run(folder.path)
    assert outcome.exit_code == 0 and folder.load_state().status == "complete"
    assert folder.load_state().step == 10
    assert {k: v for k, v in workspace_files(folder.workspace).items() if "cache" not in k} == {
        k: v for k, v in done.items() if "cache" not in k
    }


def test_repair_of_an_emptied_state_keeps_the_branches_superseded(tmp_path: Path) -> None:
    folder, _seen = run_task(tmp_path)
    rewind_task(folder, 2)
    (folder.path / "state.yaml").write_bytes(b"")
    done = api.repair_task(folder.path, apply=True)
    assert [fix.kind for fix in done.fixes] == ["empty_state"]
    state = TaskFolder.open(folder.path).load_state()
    assert state.step == 6 and [(m.to, m.first, m.last) for m in state.rewinds] == [(2, 3, 6)]
    recent = api.preview_context(TaskFolder.open(folder.path)).section("recent_actions").text
    assert "step 2:" in recent and "step 6:" not in recent


def test_files_a_command_changed_are_named_not_restored(tmp_path: Path) -> None:
    make = "open('gen.txt', 'w').write('made by a command')"
    script = [act("list_dir", path="."), act("run_cmd", cmd=["python", "-c", make])]
    folder = make_task(tmp_path, script)
    with Executor(folder, replay(folder)) as executor:
        executor.step()
        executor.step()
    report = rewind_task(folder, 1)
    assert report.untracked == ["step 2: run_cmd python -c " + make]
    assert report.untracked_note == (
        "step 2 ran commands: the files they changed have no snapshot and stay as they are"
    )
    assert (folder.workspace / "gen.txt").read_text() == "made by a command"


@pytest.mark.parametrize("put_back", [True, False], ids=["put-back", "put-back-fails"])
def test_a_write_failing_midway_is_undone_and_logged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, put_back: bool
) -> None:
    """The workspace changes between the checks and the writes: `sub` becomes a link just as
    sub/c.txt is to be removed. The files written before it are put back (all of them, or the
    ones that can be: here a.txt may have become a directory too), state.yaml does not move,
    and the log says what happened."""
    folder, seen = run_task(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "c.txt").write_text("not the workspace's\n")
    before = folder.load_state()
    real = restore.open_write_target

    def racing(workspace: Path, rel: str, **options: Any) -> Any:
        sub = folder.workspace / "sub"
        if rel == "sub/c.txt" and not sub.is_symlink():
            shutil.rmtree(sub)
            sub.symlink_to(outside)
            if not put_back:
                (folder.workspace / "a.txt").unlink()
                (folder.workspace / "a.txt").mkdir()
        return real(workspace, rel, **options)

    monkeypatch.setattr(restore, "open_write_target", racing)
    with pytest.raises(api.ForgeError) as failed:
        rewind_task(folder, 2)

    assert (outside / "c.txt").read_text() == "not the workspace's\n"
    assert (folder.workspace / "b.txt").read_bytes() == seen[6]["b.txt"]
    if put_back:
        assert (folder.workspace / "a.txt").read_bytes() == seen[6]["a.txt"]
    assert folder.load_state() == before and not (folder.path / "lock").exists()
    record = folder.log.record_at(-1)
    assert record.kind == "operator" and record.op == "rewind_failed"
    assert record.detail["failed"] == "sub/c.txt" and record.detail["to"] == 2
    assert record.detail["written"] == ["a.txt", "b.txt"]
    assert record.detail["not_put_back"] == ([] if put_back else ["a.txt"])
    said = failed.value.message
    assert said.startswith("rewind to step 2 stopped: writing sub/c.txt failed (")
    if put_back:
        assert said.endswith("2 files written before it put back; the workspace is as it was; "
                             "the task stays at step 6")  # fmt: skip
    else:
        assert "could not put back a.txt" in said and "rewind again" in said
    assert api.repair_task(folder.path).fixes == []


def test_a_fork_failing_midway_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The disk refuses the fork's task folder once the workspace is copied: the directories
    the fork made on its way are gone, and the error is one line naming the fork."""
    folder, _seen = run_task(tmp_path)
    kept = task_bytes(folder)

    def full(*_args: Any) -> Path:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("forgetui.engine.history.fork._lay_out_fork", full)
    dest = tmp_path / "new" / "deep" / "fork"
    with pytest.raises(api.ForgeError) as failed:
        fork_task(folder, 3, dest)
    assert failed.value.message == (
        f"--fork {dest}: cannot make the fork there: No space left on device"
    )
    assert not (tmp_path / "new").exists()
    assert task_bytes(folder) == kept


def test_a_fork_while_a_step_waits_for_approval_does_not_wait(tmp_path: Path) -> None:
    """A step waiting for the operator's approval, its writer still open (as the workbench
    keeps it): its intent has no result, but nothing is being written, so the fork goes on."""
    folder = make_task(tmp_path, SCRIPT, approval="confirm_writes")
    (folder.workspace / "b.txt").write_text("B0\n")
    with Executor(folder, replay(folder)) as executor:
        assert executor.step().result == "escalated"
        answer(folder, "approve")
        assert executor.step().result == "success"  # step 1 wrote a.txt
        assert executor.step().result == "escalated"  # step 2 waits, the lock held
        assert folder.lock.holder() is not None
        report = fork_task(folder, 1, tmp_path / "fork")
    assert report.to == 1 and workspace_files(tmp_path / "fork") == {
        "a.txt": b"A1\n",
        "b.txt": b"B0\n",
    }
