"""Project memory: entries that outlive a task, kept in <workspace>/.agentforge/memory/, fed by
promotion from a task, shown in every task's context within their own budget, never followed
through a link and never crashing a step over a bad hand edit."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from forgetui.engine.api import preview_context
from forgetui.engine.base.errors import ForgeError, StateFileError
from forgetui.engine.base.tokens import counter_for
from forgetui.engine.folder.records import OperatorRecord
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.folder.task_spec import TaskSpec
from forgetui.engine.operator.project_memory import (
    promote_answer_to_project,
    promote_to_project,
)
from forgetui.engine.operator.verbs import add_note, answer
from forgetui.engine.step.executor import Executor
from forgetui.engine.workspace.project_memory import (
    ProjectMemoryError,
    add_entry,
    edit_entry,
    load_project_memory,
    remove_entry,
)
from tests.engine.helpers import act, make_task, replay


def memory_dir(workspace: Path) -> Path:
    return workspace / ".agentforge" / "memory"


def state_text(folder: TaskFolder) -> str:
    return preview_context(folder).section("current_state").text


def project_block(text: str) -> str:
    """current_state's project_memory element, up to the next element of current_state."""
    lines = text.splitlines()
    start = lines.index("  project_memory:")
    end = next(
        (i for i in range(start + 1, len(lines)) if re.match(r"^  \S", lines[i])), len(lines)
    )
    return "\n".join(lines[start:end]) + "\n"


def second_task(workspace: Path) -> TaskFolder:
    spec = TaskSpec.model_validate(
        {"id": "t2", "goal": "Another task", "task_type": "generic", "phase": "execution"}
    )
    return TaskFolder.create(workspace, spec)


def test_entries_are_readable_yaml_one_file_per_kind(tmp_path: Path) -> None:
    add_entry(tmp_path, "lesson", "pytest needs the venv: run .venv/bin/pytest")
    add_entry(tmp_path, "lesson", "the fixtures live in tests/conftest.py")
    add_entry(tmp_path, "convention", "docstrings say why, not what")
    lessons = yaml.safe_load((memory_dir(tmp_path) / "lessons.yaml").read_text())
    assert [e["id"] for e in lessons] == ["lesson-1", "lesson-2"]
    assert lessons[0]["text"] == "pytest needs the venv: run .venv/bin/pytest"
    edit_entry(tmp_path, "lesson-2", "fixtures: tests/conftest.py")
    remove_entry(tmp_path, "lesson-1")
    memory = load_project_memory(tmp_path, strict=True)
    assert [(e.id, e.text) for e in memory.entries] == [
        ("convention-1", "docstrings say why, not what"),
        ("lesson-2", "fixtures: tests/conftest.py"),
    ]
    # a new entry never reuses an id still in the file
    assert add_entry(tmp_path, "lesson", "third").id == "lesson-3"
    # no temporary file is left beside them
    assert sorted(p.name for p in memory_dir(tmp_path).iterdir()) == [
        "conventions.yaml",
        "lessons.yaml",
    ]


def test_secrets_are_cut_before_anything_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEPLOY_TOKEN", "s3cr3t-deploy-value")
    add_entry(tmp_path, "command", "deploy with DEPLOY_TOKEN=s3cr3t-deploy-value make ship")
    add_entry(tmp_path, "knowledge", "the key was sk-abcdefghijklmnopqrstu")
    written = "".join(p.read_text() for p in memory_dir(tmp_path).iterdir())
    assert "s3cr3t-deploy-value" not in written
    assert "sk-abcdefghijklmnopqrstu" not in written
    assert "[redacted $DEPLOY_TOKEN]" in written


def test_a_symlinked_memory_folder_is_refused_not_followed(tmp_path: Path) -> None:
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    (workspace / ".agentforge").mkdir(parents=True)
    outside.mkdir()
    memory_dir(workspace).symlink_to(outside)
    with pytest.raises(ProjectMemoryError, match=r"\.agentforge/memory is a symlink"):
        add_entry(workspace, "lesson", "escape")
    assert list(outside.iterdir()) == []  # nothing landed outside the workspace
    memory = load_project_memory(workspace)  # a reader says why instead of failing
    assert memory.entries == ()
    assert "is a symlink" in memory.problems[0]


def test_a_symlinked_memory_file_is_refused_and_its_target_unchanged(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.yaml"
    target.write_text("- id: lesson-1\n  text: outside\n")
    memory_dir(tmp_path / "ws").mkdir(parents=True)
    (memory_dir(tmp_path / "ws") / "lessons.yaml").symlink_to(target)
    with pytest.raises(ProjectMemoryError, match=r"lessons\.yaml is a symlink"):
        add_entry(tmp_path / "ws", "lesson", "second")
    assert target.read_text() == "- id: lesson-1\n  text: outside\n"


def test_a_bad_hand_edit_is_one_line_and_left_out_of_the_context(tmp_path: Path) -> None:
    folder = make_task(tmp_path, [])
    workspace = folder.workspace
    add_entry(workspace, "convention", "tabs are refused in *.py")
    (memory_dir(workspace) / "lessons.yaml").write_text(
        "- id: lesson-1\n  text: fine\n- id: lesson-2\n  txet: typo\n"
    )
    with pytest.raises(StateFileError) as caught:
        load_project_memory(workspace, strict=True)
    assert caught.value.message.startswith(
        ".agentforge/memory/lessons.yaml:3: entry 2: field 'text': Field required"
    )
    assert "\n" not in caught.value.message
    text = state_text(folder)  # the step still compiles, and says what it left out and why
    assert "tabs are refused in *.py" in text
    assert "lessons.yaml:3: entry 2" in text and "file left out" in text
    with pytest.raises(ForgeError):  # and nothing rewrites the broken file behind the operator
        add_entry(workspace, "lesson", "another")
    assert "txet: typo" in (memory_dir(workspace) / "lessons.yaml").read_text()


def test_a_promoted_note_is_logged_and_shown_to_every_task_of_the_workspace(
    tmp_path: Path,
) -> None:
    folder = make_task(tmp_path, [])
    ref = add_note(folder, "the API client retries on 503 already: do not wrap it again")
    said = promote_to_project(folder, ref, kind="lesson")
    assert "lesson-1" in said
    record = next(iter(folder.log.iter_backwards(("operator",))))
    assert isinstance(record, OperatorRecord)
    assert (record.op, record.key, record.detail["from"]) == ("promote", "lesson-1", ref)
    entry = load_project_memory(folder.workspace).find("lesson-1")
    assert entry.source is not None and "task t1" in entry.source
    other = second_task(folder.workspace)
    text = state_text(other)
    assert "project_memory:" in text
    assert "do not wrap it again" in text


def test_only_a_note_or_a_decision_is_promoted(tmp_path: Path) -> None:
    folder = make_task(tmp_path, [act("list_dir", path=".")])
    with Executor(folder, replay(folder)) as executor:
        executor.step()
    ref = folder.load_memory().items[0].ref
    with pytest.raises(ForgeError, match="only a note or a decision"):
        promote_to_project(folder, ref)
    assert not memory_dir(folder.workspace).exists()


def test_an_answered_inbox_question_is_promoted_with_its_question(tmp_path: Path) -> None:
    folder = make_task(tmp_path, [act("escalate", question="Which license header?")])
    with Executor(folder, replay(folder)) as executor:
        executor.step()
    answer(folder, "Apache-2.0, two lines")
    said = promote_answer_to_project(folder, "1")
    assert "preference-1" in said
    entry = load_project_memory(folder.workspace).find("preference-1")
    assert "Which license header?" in entry.text and "Apache-2.0" in entry.text


def test_project_memory_keeps_to_its_own_budget_and_says_what_it_left_out(
    tmp_path: Path,
) -> None:
    folder = make_task(tmp_path, [])
    workspace = folder.workspace
    for n in range(1, 21):
        add_entry(workspace, "knowledge", f"fact number {n}: " + "detail " * 10)
    (memory_dir(workspace) / "settings.yaml").write_text("budget_tokens: 120\n")
    block = project_block(state_text(folder))
    assert "fact number 1:" in block
    assert "fact number 20:" not in block
    assert "over the project memory's 120-token budget" in block
    assert re.search(r"knowledge-\d+, knowledge-\d+, knowledge-\d+ and \d+ more: over", block)
    assert counter_for(folder.spec.model).count(block) <= 120
    (memory_dir(workspace) / "settings.yaml").write_text("budget_tokens: 0\n")
    assert "project_memory" not in state_text(folder)


def test_no_memory_folder_shows_nothing(tmp_path: Path) -> None:
    folder = make_task(tmp_path, [])
    assert "project_memory" not in state_text(folder)
    assert not memory_dir(folder.workspace).exists()  # reading never creates it


def test_a_folder_where_a_kind_file_should_be_is_left_out_not_a_crash(tmp_path: Path) -> None:
    folder = make_task(tmp_path, [])
    workspace = folder.workspace
    add_entry(workspace, "convention", "tabs are refused in *.py")
    (memory_dir(workspace) / "lessons.yaml").mkdir()
    memory = load_project_memory(workspace)
    assert [e.id for e in memory.entries] == ["convention-1"]
    assert memory.problems == (".agentforge/memory/lessons.yaml is not a regular file",)
    with pytest.raises(ProjectMemoryError, match=r"lessons\.yaml is not a regular file"):
        load_project_memory(workspace, strict=True)
    text = state_text(folder)  # the step still compiles, and says which file it left out
    assert "tabs are refused in *.py" in text
    assert "lessons.yaml is not a regular file (file left out)" in text


def test_a_huge_id_is_refused_in_a_short_line_and_left_out_notes_keep_to_the_budget(
    tmp_path: Path,
) -> None:
    folder = make_task(tmp_path, [])
    workspace = folder.workspace
    add_entry(workspace, "convention", "docstrings say why")
    huge = "lesson-" + "7" * 200_000
    (memory_dir(workspace) / "knowledge.yaml").write_text(f"- id: {huge}\n  text: x\n")
    memory = load_project_memory(workspace)
    assert [e.id for e in memory.entries] == ["convention-1"]
    assert len(memory.problems) == 1 and len(memory.problems[0]) <= 300
    assert memory.problems[0].startswith(".agentforge/memory/knowledge.yaml:1: entry 1: field 'id'")
    block = project_block(state_text(folder))
    assert "knowledge.yaml:1: entry 1" in block and "docstrings say why" in block
    assert "7" * 100 not in block
    # many bad lines (an id used twice, over and over) still keep to the memory's own budget
    twice = "".join(f"- id: lesson-{n}\n  text: lesson {n}\n" for n in range(1, 41))
    (memory_dir(workspace) / "lessons.yaml").write_text(twice)
    (memory_dir(workspace) / "knowledge.yaml").write_text(twice.replace("lesson", "knowledge"))
    (memory_dir(workspace) / "commands.yaml").write_text(twice.replace("lesson", "command"))
    dupes = "".join(f"- id: command-{n}\n  text: again {n}\n" for n in range(1, 41))
    (memory_dir(workspace) / "commands.yaml").write_text(dupes + dupes)
    (memory_dir(workspace) / "settings.yaml").write_text("budget_tokens: 80\n")
    assert len(load_project_memory(workspace).problems) == 40
    block = project_block(state_text(folder))
    assert "more problems in .agentforge/memory" in block
    assert counter_for(folder.spec.model).count(block) <= 80


def test_add_after_an_id_too_long_for_a_number_refuses_in_one_line(tmp_path: Path) -> None:
    memory_dir(tmp_path).mkdir(parents=True)
    lessons = memory_dir(tmp_path) / "lessons.yaml"
    lessons.write_text(f"- id: lesson-{'9' * 5000}\n  text: x\n")
    with pytest.raises(ForgeError, match=r"lessons\.yaml:1: entry 1: field 'id'"):
        add_entry(tmp_path, "lesson", "another")
    assert lessons.read_text() == f"- id: lesson-{'9' * 5000}\n  text: x\n"
    top = f"- id: lesson-{'9' * 33}\n  text: x\n"  # the longest id a file may hold
    lessons.write_text(top)
    with pytest.raises(ProjectMemoryError, match="no id left for a new lesson"):
        add_entry(tmp_path, "lesson", "another")
    assert lessons.read_text() == top


@pytest.mark.parametrize("bad", ["ring \a bell", "colour \x1b[31m red", "stray \udcff byte"])
def test_add_and_edit_refuse_control_characters_and_stray_bytes(tmp_path: Path, bad: str) -> None:
    add_entry(tmp_path, "lesson", "fine")
    before = (memory_dir(tmp_path) / "lessons.yaml").read_text()
    refused = r"^project memory text (has a control|is not UTF)"
    with pytest.raises(ProjectMemoryError, match=refused):
        add_entry(tmp_path, "lesson", bad)
    with pytest.raises(ProjectMemoryError, match=refused):
        edit_entry(tmp_path, "lesson-1", bad)
    assert (memory_dir(tmp_path) / "lessons.yaml").read_text() == before
    assert add_entry(tmp_path, "lesson", "two lines\n\tindented").id == "lesson-2"
