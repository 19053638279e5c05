"""A human-typed edit that deletes text runs and is logged with its empty `new`."""

from __future__ import annotations

from pathlib import Path


def test_human_edit_with_empty_new_runs_and_logs_it(cli_in_process, tmp_path: Path) -> None:
    task = Path(cli_in_process("init", "hello_world", "--into", tmp_path / "run").out.strip())
    typed = "\n".join(
        [
            "write_file path=hello.py content='print(\"Hello, world!\")  # drop me'",
            "edit_file path=hello.py old='  # drop me' new=",
            "complete summary=done",
        ]
    )
    result = cli_in_process("run", task, "--model", "human", "--json", stdin=typed + "\n")
    assert result.code == 0, result.err
    assert (tmp_path / "run" / "hello.py").read_text() == 'print("Hello, world!")'
    entries = cli_in_process("log", task, "--json").json_lines()
    [edit] = [entry for entry in entries if entry.get("action") == "edit_file"]
    assert edit["args"] == {"path": "hello.py", "old": "  # drop me", "new": ""}
    assert edit.get("error") is None
