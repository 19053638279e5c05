"""`forgetui inbox`: every question and its answer as JSON lines or a table, and --promote."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from forgetui.engine.folder.task_folder import TaskFolder
from tests.engine.test_inbox import LANGUAGE, asked_four_times


@pytest.fixture
def task(tmp_path: Path) -> TaskFolder:
    return asked_four_times(tmp_path)


def test_inbox_json_then_promote_pins_the_answer(cli: Any, task: TaskFolder) -> None:
    lines = cli("inbox", task.path, "--json").json_lines()
    assert [(e["id"], e["answer"], e["pending"]) for e in lines] == [
        ("1", "French", False),
        ("2", "approve", False),
        ("3", "keep it: the check reads whole lines", False),
        ("4", None, True),
    ]
    assert lines[0]["question"] == LANGUAGE and lines[0]["key"] == "answer@1"

    promoted = cli("inbox", task.path, "--promote", "1")
    assert (promoted.code, promoted.out) == (0, "pinned answer@1\n"), promoted.err
    memory = yaml.safe_load((task.path / "working_memory.yaml").read_text())
    item = next(i for i in memory["items"] if i.get("key") == "answer@1")
    assert item["pinned"] is True and item["content"] == f"Q: {LANGUAGE} / A: French"

    again = cli("inbox", task.path, "--promote", "1", "--json")
    assert again.code == 0 and again.json_lines() == [{**lines[0], "promoted": True}]
    notes = [e for e in cli("log", task.path, "--json").json_lines() if "operator" in e]
    assert [(e["operator"], e.get("key")) for e in notes][-1] == ("note", "answer@1")
    assert sum(e.get("key") == "answer@1" for e in notes) == 1  # promoting again wrote nothing


def test_inbox_table_and_refused_promotions(cli: Any, task: TaskFolder) -> None:
    shown = cli("inbox", task.path)
    assert shown.code == 0, shown.err
    assert LANGUAGE in shown.out and "Approve write_file out.txt?" in shown.out
    assert f"step 4 waits: forgetui answer {task.path} TEXT" in shown.out
    assert "--promote STEP pins an answer" in shown.out

    before = (task.path / "working_memory.yaml").read_bytes()
    pending = cli("inbox", task.path, "--promote", "4")
    assert pending.code == 2
    assert pending.err == (
        "forgetui: the question of step 4 is not answered yet: answer it first\n"
    )
    unknown = cli("inbox", task.path, "--promote", "9")
    assert unknown.code == 2
    assert unknown.err == "forgetui: no question at step 9 in the inbox (steps: 1, 2, 3, 4)\n"
    assert (task.path / "working_memory.yaml").read_bytes() == before
    assert not (task.path / "lock").exists()
