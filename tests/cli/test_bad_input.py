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


def test_a_hand_written_task_yaml_is_a_new_task(cli, tmp_path) -> None:
    """A user writes task.yaml (and working_memory.yaml) by hand from the docs: the first
    command lays out the rest, exactly as `forgetui new` would have, and the task runs."""
    workspace = tmp_path / "ws"
    task = workspace / ".agentforge" / "tasks" / "by-hand"
    task.mkdir(parents=True)
    (task / "task.yaml").write_text(
        "id: by-hand\n"
        "goal: Write out.txt\n"
        "phase: execution\n"
        "checks:\n"
        "  - {name: out, kind: file_exists, path: out.txt}\n"
    )
    (task / "working_memory.yaml").write_text(
        "max_items: 4\nitems:\n  - {type: note, key: hint, content: write out.txt, pinned: true}\n"
    )
    (task / "replay.yaml").write_text(
        "- {action: write_file, args: {path: out.txt, content: done}}\n"
        "- {action: complete, args: {summary: written}}\n"
    )
    status = cli("status", workspace, "--json")
    assert status.code == 0, status.err
    assert status.json()["status"] == "ready" and status.json()["step"] == 0
    made = cli("new", "--workspace", tmp_path / "other", "--goal", "g")
    assert made.code == 2  # no such workspace: nothing created
    (tmp_path / "other").mkdir()
    created = Path(cli("new", "--workspace", tmp_path / "other", "--goal", "g").out.strip())
    laid_out = sorted(p.relative_to(task).as_posix() for p in task.rglob("*"))
    expected = sorted(p.relative_to(created).as_posix() for p in created.rglob("*"))
    assert set(expected) <= set(laid_out)  # plus replay.yaml, beside what `new` makes
    memory = cli("memory", task, "list", "--json").json_lines()
    assert [row["ref"] for row in memory] == ["hint"]  # the hand-written memory is kept
    run = cli("run", task, "--json")
    assert run.code == 0, run.err + run.out
    assert run.json_lines()[-1]["status"] == "complete"
