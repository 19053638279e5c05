"""`forgetui log TASK --step N`: that step's lines and, for a file write, the file's plain
unified diff (--json: `file_diffs` on the step's line); a step not in the log is one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.stepped_sample import copy_task


@pytest.fixture
def task(cli, hello_after_two_steps: Path, tmp_path: Path) -> Path:
    """hello_world after three steps: the third writes hello.py."""
    task = copy_task(hello_after_two_steps, tmp_path / "ws")
    assert cli("run", task, "--max-steps", "1").code == 0
    return task


def test_a_write_step_prints_its_line_and_the_plain_diff(cli, task: Path) -> None:
    result = cli("log", task, "--step", "3")
    assert result.code == 0, result.err
    table, diff = result.out.split("\nhello.py (new file, +1 -0)\n")
    assert "write_file" in table and "list_dir" not in table
    assert diff == '--- a/hello.py\n+++ b/hello.py\n@@ -0,0 +1 @@\n+print("Hello, world!")\n'
    assert "\x1b[" not in diff  # plain text, for a pipe or a patch tool


def test_json_puts_the_diff_on_the_steps_line(cli, task: Path) -> None:
    [line] = cli("log", task, "--step", "3", "--json").json_lines()
    assert line["action"] == "write_file" and line["step"] == 3
    [shown] = line["file_diffs"]
    assert (shown["path"], shown["created"], shown["added"], shown["removed"]) == (
        "hello.py", True, 1, 0,
    )  # fmt: skip
    assert shown["diff"].endswith('+print("Hello, world!")\n') and shown["note"] is None
    [read] = cli("log", task, "--step", "2", "--json").json_lines()
    assert read["action"] == "read_file" and "file_diffs" not in read


def test_a_step_not_in_the_log_is_one_line(cli, task: Path) -> None:
    result = cli("log", task, "--step", "9")
    assert (result.code, result.out) == (2, "")
    assert result.err == "forgetui: log --step 9: task hello_world has no step 9 in its log\n"
