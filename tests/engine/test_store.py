"""The task folder: create, open (folder or workspace), validated loads, atomic writes, the lock
between writers and readers, artifacts."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import yaml

from forgetui.engine.base import yamlio
from forgetui.engine.base.errors import ForgeError, StateFileError, TaskNotFoundError
from forgetui.engine.folder.action_log import encode_record
from forgetui.engine.folder.memory import MemoryItem, WorkingMemory
from forgetui.engine.folder.records import IntentRecord, ResultRecord
from forgetui.engine.folder.task_folder import TaskFolder, find_tasks
from forgetui.engine.folder.task_spec import Plan, PlanTask, Subtask, TaskSpec
from forgetui.engine.folder.task_state import TaskState

BAD_TASK_YAML = """\
id: hand-made
goal: Fix the thing.
task_type: generic
limits:
  max_steps: lots
  max_tokens: 8000
"""


def make_spec(task_id: str = "demo", **extra: object) -> TaskSpec:
    return TaskSpec.model_validate({"id": task_id, "goal": "Make the tests pass.", **extra})


def snapshot_files(folder: Path) -> dict[Path, bytes]:
    return {path: path.read_bytes() for path in folder.rglob("*") if path.is_file()}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "repo"
    ws.mkdir()
    return ws


@pytest.fixture
def task(workspace: Path) -> TaskFolder:
    return TaskFolder.create(workspace, make_spec())


# -- create and open --------------------------------------------------------------------------


def test_create_writes_the_folder_of_section_3(workspace: Path) -> None:
    plan = Plan(goal="g", tasks=[PlanTask(title="t", subtasks=[Subtask(title="s")])])
    memory = WorkingMemory(items=[MemoryItem(type="note", key="hint", content="read the spec")])
    spec = make_spec(task_type="write_tests", plan=plan.model_dump())
    folder = TaskFolder.create(workspace, spec, memory=memory)

    assert folder.path == (workspace / ".agentforge" / "tasks" / "demo").resolve()
    assert folder.workspace == workspace.resolve()
    names = sorted(p.relative_to(folder.path).as_posix() for p in folder.path.rglob("*"))
    assert names == [
        "actions.yaml", "artifacts", "artifacts/checkpoints",
        "artifacts/checkpoints/step-000000.yaml", "artifacts/contexts", "artifacts/inputs",
        "artifacts/outputs", "artifacts/snapshots", "artifacts/task.accepted.yaml",
        "state.yaml", "task.yaml", "working_memory.yaml",
    ]  # fmt: skip
    assert (folder.path / "actions.yaml").read_bytes() == b""
    assert TaskSpec.model_validate(yaml.safe_load((folder.path / "task.yaml").read_text())) == spec
    state = folder.load_state()
    assert (state.task_id, state.phase, state.step, state.status) == (
        "demo", "write_tests", 0, "ready",
    )  # fmt: skip
    assert state.plan == plan
    assert folder.load_memory() == memory
    assert [p.name for p in (workspace / ".agentforge" / "tasks").iterdir()] == ["demo"]


def test_create_refuses_an_existing_task(workspace: Path, task: TaskFolder) -> None:
    before = snapshot_files(task.path)
    with pytest.raises(ForgeError, match="already exists"):
        TaskFolder.create(workspace, make_spec(goal="Something else."))
    assert snapshot_files(task.path) == before
    assert find_tasks(workspace) == [task.path]  # nothing half-made left behind


def test_create_needs_an_existing_workspace(tmp_path: Path) -> None:
    with pytest.raises(ForgeError, match="not a directory"):
        TaskFolder.create(tmp_path / "missing", make_spec())


def test_open_a_task_folder_or_a_workspace_with_one_task(workspace: Path, task: TaskFolder) -> None:
    for path in (task.path, workspace, task.path / "task.yaml"):
        opened = TaskFolder.open(path)
        assert opened.path == task.path and opened.spec == task.spec
        assert opened.workspace == workspace.resolve()


def test_open_a_workspace_with_two_tasks_lists_them(workspace: Path, task: TaskFolder) -> None:
    second = TaskFolder.create(workspace, make_spec("other"))
    with pytest.raises(ForgeError) as caught:
        TaskFolder.open(workspace)
    assert not isinstance(caught.value, TaskNotFoundError)
    assert "holds 2 tasks" in str(caught.value)
    assert str(task.path) in str(caught.value) and str(second.path) in str(caught.value)


def test_open_a_path_without_tasks(tmp_path: Path, workspace: Path) -> None:
    with pytest.raises(TaskNotFoundError, match=re.escape(str(workspace))):
        TaskFolder.open(workspace)
    missing = tmp_path / "nowhere"
    with pytest.raises(TaskNotFoundError, match=re.escape(str(missing))):
        TaskFolder.open(missing)


def test_a_bad_field_in_a_hand_written_task_yaml(workspace: Path) -> None:
    folder = workspace / ".agentforge" / "tasks" / "hand-made"
    folder.mkdir(parents=True)
    (folder / "task.yaml").write_text(BAD_TASK_YAML)
    before = snapshot_files(workspace)
    with pytest.raises(StateFileError) as caught:
        TaskFolder.open(workspace)
    error = caught.value
    assert (error.line, error.field) == (5, "limits.max_steps")
    assert str(error).startswith(f"{folder.resolve() / 'task.yaml'}:5: field 'limits.max_steps'")
    assert snapshot_files(workspace) == before


def test_a_bad_state_file_is_reported_and_left_alone(task: TaskFolder) -> None:
    path = task.path / "state.yaml"
    path.write_text(path.read_text().replace("step: 0", "step: -3"))
    before = path.read_bytes()
    with pytest.raises(StateFileError) as caught:
        TaskFolder.open(task.path).load_state()
    assert caught.value.field == "step" and caught.value.line is not None
    assert path.read_bytes() == before


# -- the lock between writers and readers -----------------------------------------------------


def test_writes_need_the_lock(task: TaskFolder) -> None:
    state, memory = task.load_state(), task.load_memory()
    record = IntentRecord(step=1, at="t", action="read_file")
    attempts = [
        lambda: task.save_state(state),
        lambda: task.save_memory(memory),
        lambda: task.save_context(1, [{"role": "user", "content": "x"}], {}),
        lambda: task.snapshot(1, "a.py", "x", "y"),
        lambda: task.log.append(record),
    ]
    before = snapshot_files(task.path)
    for attempt in attempts:
        with pytest.raises(ForgeError, match=r"lock|read-only"):
            attempt()
    assert snapshot_files(task.path) == before

    assert task.acquire() is None
    task.save_state(state)
    task.log.append(record)
    task.release()
    assert len(task.log) == 1


def test_acquire_reports_a_torn_tail(task: TaskFolder) -> None:
    with open(task.log.path, "ab") as handle:
        handle.write(encode_record(IntentRecord(step=1, at="t", action="x"))[:25])
    torn = task.acquire(command="test")
    try:
        assert torn is not None and torn.bytes == 25
        assert task.log.path.read_bytes() == b""
    finally:
        task.release()


def test_taking_the_lock_checks_the_files_before_any_repair(task: TaskFolder) -> None:
    """Every way of becoming the writer (`acquire`, `with folder.lock:`) refuses files that
    disagree before it moves a torn tail aside; only `repair` goes past, its work being them."""
    with open(task.log.path, "ab") as handle:
        handle.write(b"garbage here\n")
        handle.write(encode_record(IntentRecord(step=1, at="t", action="x"))[:25])
    before = snapshot_files(task.path)
    for become_writer in (task.acquire, task.lock.acquire, task.lock.__enter__):
        with pytest.raises(StateFileError, match=r"actions\.yaml:1: .*forgetui repair"):
            become_writer()
        assert not task.lock.held_by_me() and task.lock.holder() is None  # let go
    assert snapshot_files(task.path) == before

    torn = task.acquire(command="forgetui repair", check=False)
    try:
        assert torn is not None and torn.bytes == 25
    finally:
        task.release()


def test_a_writer_already_holding_the_lock_is_not_checked_again(task: TaskFolder) -> None:
    """Within a step the files may briefly disagree (state.yaml saved, the log not yet): a
    nested take of the lock by the same writer must not refuse it."""
    record = ResultRecord(step=1, at="t", action="x", result="success", summary="s")
    with task.lock:
        task.log.append(record)  # the log is now a step ahead of state.yaml
        with task.lock:
            assert task.acquire() is None
            task.release()


def test_a_reader_opens_while_another_process_writes(workspace: Path, task: TaskFolder) -> None:
    script = textwrap.dedent(
        f"""
        import sys
        from pathlib import Path
        from forgetui.engine.folder.records import IntentRecord
        from forgetui.engine.folder.task_folder import TaskFolder
        folder = TaskFolder.open(Path({str(workspace)!r}))
        folder.acquire(command="forgetui run")
        state = folder.load_state()
        state.step = 4
        state.status = "running"
        folder.save_state(state)
        folder.log.append(IntentRecord(step=5, at="t", action="run_command"))
        print("ready", flush=True)
        sys.stdin.read()
        folder.release()
        """
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        reader = TaskFolder.open(workspace)
        holder = reader.lock.holder()
        assert holder is not None and holder.pid == proc.pid
        assert reader.load_state().status == "running"
        status = reader.log.last_step_status()
        assert status is not None and (status.step, status.complete) == (5, False)
        with pytest.raises(ForgeError, match="locked by pid"):
            reader.acquire()
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(timeout=30)
    assert reader.lock.holder() is None


# -- state files: atomic writes and the cache -------------------------------------------------


def test_a_failed_write_leaves_the_old_file(
    task: TaskFolder, monkeypatch: pytest.MonkeyPatch
) -> None:
    task.acquire()
    try:
        state = task.load_state()
        state.step = 3
        task.save_state(state)
        before = (task.path / "state.yaml").read_bytes()

        def crash(*_args: object) -> None:
            raise OSError("disk gone")

        monkeypatch.setattr(yamlio.os, "replace", crash)
        state.step = 4
        with pytest.raises(OSError, match="disk gone"):
            task.save_state(state)
        monkeypatch.undo()
        assert (task.path / "state.yaml").read_bytes() == before
        assert TaskFolder.open(task.path).load_state().step == 3
        assert task.load_state().step == 3
        assert not [p for p in task.path.iterdir() if p.name.endswith(".tmp")]
    finally:
        task.release()


def test_sigkill_between_state_writes_leaves_a_valid_file(task: TaskFolder) -> None:
    script = textwrap.dedent(
        f"""
        from pathlib import Path
        from forgetui.engine.folder.task_folder import TaskFolder
        folder = TaskFolder.open(Path({str(task.path)!r}))
        folder.acquire()
        state = folder.load_state()
        while True:
            state.step += 1
            state.scratchpad = ["x" * 2000] * (state.step % 5)
            folder.save_state(state)
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", script])
    try:
        deadline = time.monotonic() + 30
        while task.load_state().step < 20:
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.01)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    survivor = TaskFolder.open(task.path).load_state()
    assert survivor.step >= 20
    assert len(survivor.scratchpad) == survivor.step % 5


def test_loads_are_cached_copies_that_follow_other_writers(task: TaskFolder) -> None:
    first = task.load_state()
    first.step = 99  # changing a loaded state does not change the next load
    assert task.load_state().step == 0
    assert task.load_state() is not task.load_state()

    other = TaskFolder.open(task.path)  # another writer in this process
    with other.lock:
        state = other.load_state()
        state.step = 7
        other.save_state(state)
        memory = WorkingMemory(max_items=3)
        other.save_memory(memory)
    assert task.load_state().step == 7
    assert task.load_state().updated_at is not None
    assert task.load_memory().max_items == 3


def test_save_state_stamps_updated_at(task: TaskFolder) -> None:
    with task.lock:
        state = TaskState(task_id="demo", phase="planning", updated_at="2000-01-01T00:00:00Z")
        task.save_state(state)
    assert task.load_state().updated_at != "2000-01-01T00:00:00Z"


# -- artifacts --------------------------------------------------------------------------------


def test_saved_contexts_keep_the_exact_messages(task: TaskFolder) -> None:
    messages = [
        {"role": "system", "content": "You fix violations.\nOne action per reply.\n"},
        {"role": "user", "content": "task_frame:\n  goal: x   \n\ttabbed\n trailing  "},
    ]
    with task.lock:
        relative = task.save_context(7, messages, {"total_tokens": 812, "sections": {"a": 1}})
        task.save_context(8, messages[:1], {"total_tokens": 5})
    assert relative == "artifacts/contexts/step-000007.yaml"
    assert (task.path / relative).is_file()
    saved = task.load_saved_context(7)
    assert saved == {
        "step": 7,
        "total_tokens": 812,
        "sections": {"a": 1},
        "messages": messages,
    }
    assert list(saved) == ["step", "total_tokens", "sections", "messages"]
    readable = (task.path / "artifacts/contexts/step-000008.yaml").read_text()
    assert "content: |" in readable  # block style where it loses nothing
    with pytest.raises(ForgeError, match="no context saved for step 9"):
        task.load_saved_context(9)


def test_snapshots(task: TaskFolder) -> None:
    with task.lock:
        paths = task.snapshot(7, "src/pkg/mod.py", "old\n", "new\n")
        created = task.snapshot(8, "new.bin", None, b"\x00\xff")
        with pytest.raises(ForgeError, match="relative"):
            task.snapshot(9, "../outside.py", "a", "b")
        with pytest.raises(ForgeError, match="relative"):
            task.snapshot(9, "/etc/passwd", "a", "b")
    assert paths == [
        "artifacts/snapshots/step-000007/src/pkg/mod.py.before",
        "artifacts/snapshots/step-000007/src/pkg/mod.py.after",
    ]
    assert [(task.path / p).read_text() for p in paths] == ["old\n", "new\n"]
    assert created == ["artifacts/snapshots/step-000008/new.bin.after"]
    assert (task.path / created[0]).read_bytes() == b"\x00\xff"
    assert not (task.path / "artifacts/snapshots/step-000009").exists()


def test_a_log_written_through_the_folder_reads_back(task: TaskFolder) -> None:
    with task.lock:
        for step in (1, 2):
            task.log.append(IntentRecord(step=step, at="t", action="read_file"))
            task.log.append(
                ResultRecord(step=step, at="t", action="read_file", result="success", summary="ok")
            )
    reopened = TaskFolder.open(task.path)
    assert len(reopened.log) == 4
    assert [entry["step"] for entry in reopened.log.merged()] == [1, 2]
    assert os.path.getsize(reopened.log.path) > 0
