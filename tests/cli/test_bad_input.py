"""Bad input: one clear line naming file, line and field; exit 2; nothing rewritten."""

from __future__ import annotations

from pathlib import Path

import pytest


def _snapshot(folder: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.mark.parametrize(
    ("file", "edit", "expected"),
    [
        (
            "task.yaml",
            lambda t: t.replace("max_steps: 50", "max_steps: lots"),
            ["task.yaml:", "limits.max_steps"],
        ),
        ("task.yaml", lambda t: t.replace("goal: Add", "goal: [Add"), ["task.yaml:", "parse"]),
        (
            "task.yaml",
            lambda t: t.replace("task_type: fix_violation", "task_type: refactor"),
            ["task.yaml:", "task_type"],
        ),
        ("task.yaml", lambda t: t.replace("goal:", "gaol:"), ["task.yaml:", "goal"]),
        ("state.yaml", lambda t: t.replace("step: 8", "step: -1"), ["state.yaml:4", "step"]),
        (
            "working_memory.yaml",
            lambda t: t.replace("type: loaded_context", "type: loaded"),
            ["working_memory.yaml:", "items.1.type"],
        ),
    ],
)
def test_bad_state_file_names_file_line_field(cli, hand_task: Path, file, edit, expected) -> None:
    path = hand_task / file
    path.write_text(edit(path.read_text()))
    before = _snapshot(hand_task)
    for command in (("context", "--json"), ("status", "--json")):
        result = cli(command[0], hand_task, *command[1:])
        assert result.code == 2
        assert result.out == ""
        lines = result.err.strip().splitlines()
        assert len(lines) == 1, result.err  # one line, no traceback
        for part in expected:
            assert part in lines[0]
    assert _snapshot(hand_task) == before


def test_unknown_task_path(cli, tmp_path: Path) -> None:
    result = cli("status", tmp_path / "nowhere", "--json")
    assert result.code == 2
    assert "nowhere" in result.err and "Traceback" not in result.err


def test_usage_error_is_one_line(cli) -> None:
    result = cli("context")
    assert result.code == 2
    assert len(result.err.strip().splitlines()) == 1


def test_json_output_piped_into_head_stops_quietly(tmp_path) -> None:
    """`forgetui log TASK --json | head -1`: no traceback when the reader closes the pipe."""
    import subprocess
    import sys

    from forgetui.engine.samples import init_sample

    folder = init_sample("long_run", into=tmp_path / "run")
    run = subprocess.run(
        [sys.executable, "-m", "forgetui", "run", str(folder.path), "--max-steps", "303", "--json"],
        capture_output=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    log = subprocess.Popen(
        [sys.executable, "-m", "forgetui", "log", str(folder.path), "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert log.stdout is not None
    first = log.stdout.readline()
    log.stdout.close()  # what `head -1` does once it has its line
    _out, err = log.communicate(timeout=60)
    assert first.startswith(b'{"step": 1')
    assert log.returncode == 0
    assert b"Traceback" not in err
