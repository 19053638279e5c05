"""`forgetui project-memory`: the workspace's lasting memory from the command line: exit codes,
one-line errors naming file, line and field, JSON lines, and promotion logged in the task."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml


def workspace_of(task: Path) -> Path:
    return task.parents[2]  # <workspace>/.agentforge/tasks/<id>


def test_add_list_edit_remove(cli: Any, tmp_path: Path) -> None:
    added = cli("project-memory", "add", tmp_path, "--kind", "commands", "make check runs it all")
    assert added.code == 0, added.err
    assert added.out.strip() == "added project memory command-1 (command)"
    listed = cli("project-memory", "list", tmp_path, "--json")
    assert listed.code == 0, listed.err
    assert listed.json_lines() == [
        {"id": "command-1", "kind": "command", "text": "make check runs it all",
         "source": "added by the operator"},
    ]  # fmt: skip
    assert cli("project-memory", "edit", tmp_path, "command-1", "make check").code == 0
    text = cli("project-memory", "list", tmp_path)
    assert "command-1" in text.out and "make check" in text.out
    removed = cli("project-memory", "remove", tmp_path, "command-1")
    assert removed.code == 0 and "removed project memory command-1" in removed.out
    assert cli("project-memory", "list", tmp_path, "--json").out == ""


def test_bad_input_is_one_line_exit_2_and_changes_nothing(cli: Any, tmp_path: Path) -> None:
    folder = tmp_path / ".agentforge" / "memory"
    folder.mkdir(parents=True)
    broken = "- id: lesson-1\n  text: fine\n- id: lesson-2\n  text: [1, 2]\n"
    (folder / "lessons.yaml").write_text(broken)
    listed = cli("project-memory", "list", tmp_path)
    assert listed.code == 2
    assert listed.err.strip().splitlines() == [
        "forgetui: .agentforge/memory/lessons.yaml:4: entry 2: field 'text': "
        "Input should be a valid string"
    ]
    added = cli("project-memory", "add", tmp_path, "--kind", "lesson", "more")
    assert added.code == 2 and len(added.err.strip().splitlines()) == 1
    assert (folder / "lessons.yaml").read_text() == broken
    kind = cli("project-memory", "add", tmp_path, "--kind", "rumour", "x")
    assert kind.code == 2
    assert "unknown project memory kind 'rumour'" in kind.err
    (folder / "lessons.yaml").unlink()
    missing = cli("project-memory", "remove", tmp_path, "lesson-9")
    assert missing.code == 2 and "no project memory entry 'lesson-9'" in missing.err


def test_a_symlinked_memory_folder_is_refused(cli: Any, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "ws" / ".agentforge").mkdir(parents=True)
    (tmp_path / "ws" / ".agentforge" / "memory").symlink_to(outside)
    added = cli("project-memory", "add", tmp_path / "ws", "--kind", "lesson", "escape")
    assert added.code == 2
    assert ".agentforge/memory is a symlink" in added.err
    assert list(outside.iterdir()) == []


def test_promote_a_note_logs_it_in_the_task(cli: Any, hand_task: Path) -> None:
    noted = cli("memory", hand_task, "note", "ruff format is not run on whole files")
    ref = noted.out.split(": ", 1)[1].split(";")[0].strip()
    promoted = cli("project-memory", "promote", hand_task, "--item", ref, "--kind", "convention")
    assert promoted.code == 0, promoted.err
    assert "convention-1" in promoted.out
    log = cli("log", hand_task, "--json")
    ops = [r for r in log.json_lines() if r.get("operator") == "promote"]
    assert ops and ops[-1]["key"] == "convention-1"
    entries = yaml.safe_load(
        (workspace_of(hand_task) / ".agentforge/memory/conventions.yaml").read_text()
    )
    assert entries[0]["text"] == "ruff format is not run on whole files"
    result = cli("project-memory", "promote", hand_task, "--item", "action_result@8")
    assert result.code == 2 and "only a note or a decision" in result.err


def test_a_folder_where_a_kind_file_should_be_is_one_line_exit_2(cli: Any, tmp_path: Path) -> None:
    (tmp_path / ".agentforge" / "memory" / "lessons.yaml").mkdir(parents=True)
    listed = cli("project-memory", "list", tmp_path)
    assert listed.code == 2
    assert listed.err.strip().splitlines() == [
        "forgetui: .agentforge/memory/lessons.yaml is not a regular file"
    ]


def test_list_shows_text_as_written_not_as_markup_or_terminal_codes(
    cli: Any, tmp_path: Path
) -> None:
    added = cli(
        "project-memory", "add", tmp_path, "run pytest [/bold] then ruff", "--kind", "command"
    )
    assert added.code == 0, added.err
    folder = tmp_path / ".agentforge" / "memory"
    (folder / "lessons.yaml").write_text(
        '- id: lesson-1\n  text: "see [link=http://evil.example]docs[/link] \\e[2J\\a"\n'
    )
    listed = cli("project-memory", "list", tmp_path)
    assert listed.code == 0, listed.err
    assert "run pytest [/bold] then ruff" in listed.out
    assert "[link=http://evil.example]docs[/link] \\x1b[2J\\x07" in listed.out
    assert "\x1b" not in listed.out and "\a" not in listed.out


def test_control_characters_and_non_utf8_arguments_are_refused(cli: Any, tmp_path: Path) -> None:
    assert cli("project-memory", "add", tmp_path, "fine", "--kind", "lesson").code == 0
    lessons = tmp_path / ".agentforge" / "memory" / "lessons.yaml"
    before = lessons.read_text()
    for argv, said in [
        (("add", tmp_path, "ring \a", "--kind", "lesson"), "has a control character '\\x07'"),
        (("edit", tmp_path, "lesson-1", "clear \x1b[2J"), "has a control character '\\x1b'"),
        (("add", tmp_path, "bad \udcff", "--kind", "lesson"), "argument TEXT is not UTF-8"),
        (("edit", tmp_path, "lesson-1", "x\udcff"), "argument TEXT is not UTF-8"),
        (("edit", tmp_path, "lesson-\udcff", "x"), "argument ID is not UTF-8"),
    ]:
        refused = cli("project-memory", *argv)
        assert refused.code == 2, (argv, refused.err)
        assert len(refused.err.strip().splitlines()) == 1 and said in refused.err, refused.err
    assert lessons.read_text() == before
