"""context_diff: why each working-memory item entered, left or changed between two steps, from
the saved contexts and the log alone. One scripted run exercises every reason."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from forgetui.engine import api
from forgetui.engine.base.errors import ForgeError
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.history.diff import DiffEntry, context_diff
from forgetui.engine.llm import make_model
from forgetui.engine.start.samples import init_sample
from forgetui.engine.step.executor import Executor

SCRIPT = [
    {"action": "load_context", "args": {"item": "full_file:test_hello.py"}},  # 1
    {"action": "list_dir", "args": {"path": "."}},  # 2
    {"action": "read_file", "args": {"path": "test_hello.py"}},  # 3
    {"action": "list_dir", "args": {"path": "."}},  # 4
    {"action": "search", "args": {"pattern": "hello"}},  # 5
    {"action": "list_dir", "args": {"path": "missing"}},  # 6
    {"action": "note", "args": {"text": "checked"}},  # 7
    {"action": "note", "args": {"text": "again"}},  # 8
]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> TaskFolder:
    """Eight steps of hello_world with operator changes between some of them:
    after 2 pin action_result@1, after 3 evict action_result@2, after 4 add a note,
    after 7 unpin action_result@1."""
    folder = init_sample("hello_world", into=tmp_path_factory.mktemp("diff") / "ws")
    script = folder.path / "script.yaml"
    script.write_text(yaml.safe_dump(SCRIPT))
    operator = {
        2: lambda: api.pin(folder, "action_result@1"),
        3: lambda: api.evict(folder, "action_result@2"),
        4: lambda: api.add_note(folder, "use the standard library"),
        7: lambda: api.pin(folder, "action_result@1", pinned=False),
    }
    with Executor(folder, make_model(f"replay:{script}", task_dir=folder.path)) as executor:
        for step in range(1, len(SCRIPT) + 1):
            executor.step()
            if step in operator:
                operator[step]()
    return folder


def test_the_first_step_has_nothing_to_compare(run: TaskFolder) -> None:
    assert context_diff(run, 1) == []


def test_a_loaded_file_and_an_action_result_enter(run: TaskFolder) -> None:
    assert context_diff(run, 2) == [
        DiffEntry("full_file:test_hello.py", "entered", "loaded"),
        DiffEntry("action_result@1", "entered", "added"),
    ]


def test_pinning_changes_an_item(run: TaskFolder) -> None:
    assert DiffEntry("action_result@1", "changed", "pinned") in context_diff(run, 3)


def test_an_operator_eviction_is_told_apart(run: TaskFolder) -> None:
    assert context_diff(run, 4) == [
        DiffEntry("action_result@3", "entered", "added"),
        DiffEntry("action_result@2", "left", "evicted"),
    ]


def test_a_loaded_file_expires_and_a_note_enters(run: TaskFolder) -> None:
    diff = context_diff(run, 5)
    assert DiffEntry("full_file:test_hello.py", "left", "expired") in diff
    assert DiffEntry("note@4", "entered", "operator") in diff
    assert [entry.change for entry in diff] == ["entered", "entered", "left"]


def test_the_oldest_unpinned_item_is_pushed_out_when_memory_is_full(run: TaskFolder) -> None:
    diff = context_diff(run, 7)
    assert DiffEntry("action_result@3", "left", "pushed out") in diff
    # the pinned one survived although it is older
    assert all(entry.ref != "action_result@1" for entry in diff)


def test_unpinning_changes_an_item(run: TaskFolder) -> None:
    assert DiffEntry("action_result@1", "changed", "unpinned") in context_diff(run, 8)


def test_a_step_with_no_saved_context_is_an_error(run: TaskFolder) -> None:
    with pytest.raises(ForgeError, match="no context saved for step 99"):
        context_diff(run, 99)


def test_describe_reads_as_a_sentence() -> None:
    assert DiffEntry("note@4", "entered", "operator").describe() == "entered note@4 (operator)"


def test_reading_is_pure(run: TaskFolder) -> None:
    before = {p: p.stat().st_mtime_ns for p in Path(run.path).rglob("*") if p.is_file()}
    context_diff(run, 5)
    after = {p: p.stat().st_mtime_ns for p in Path(run.path).rglob("*") if p.is_file()}
    assert before == after
