"""Bad input: one clear line naming file, line and field; exit 2; nothing rewritten."""

from __future__ import annotations

import re
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

    from forgetui.engine.start.samples import init_sample

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


# -- hostile or damaged files of a task with a history ------------------------------------------


def _replace(name: str, old: bytes, new: bytes):
    def damage(task: Path) -> None:
        data = (task / name).read_bytes()
        assert old in data
        (task / name).write_bytes(data.replace(old, new, 1))

    return damage


def _as_directory(name: str):
    def damage(task: Path) -> None:
        (task / name).unlink()
        (task / name).mkdir()

    return damage


def _append_bomb(name: str):
    def damage(task: Path) -> None:
        from tests.cli.stepped_sample import billion_laughs

        with open(task / name, "a") as handle:
            handle.write(billion_laughs())

    return damage


def _garbage_line_2(task: Path) -> None:
    lines = (task / "actions.yaml").read_bytes().splitlines(keepends=True)
    (task / "actions.yaml").write_bytes(b"".join([lines[0], b"garbage\n", *lines[1:]]))


# (damage, the one line after "forgetui: " (up to "..." where the rest is a dependency's wording),
# the commands that refuse it)
HOSTILE = {
    "invalid step": (
        _replace("state.yaml", b"step: 2\n", b"step: two\n"),
        "{task}/state.yaml:4: field 'step': ...",  # what is wrong with it is pydantic's wording
        ("run", "status"),
    ),
    "invalid memory": (
        _replace("working_memory.yaml", b"max_items: 5", b"max_items: many"),
        "{task}/working_memory.yaml:1: field 'max_items': ...",
        ("run", "status"),
    ),
    "garbage line in the middle of the log": (
        _garbage_line_2,
        "{task}/actions.yaml:2: a record line must start with '--- ' followed by a JSON object; "
        "run `forgetui repair {task}` to see the fix",
        ("run",),
    ),
    "state.yaml a directory": (
        _as_directory("state.yaml"),
        "{task}/state.yaml: a directory where a file should be",
        ("run", "status"),
    ),
    "working_memory.yaml a directory": (
        _as_directory("working_memory.yaml"),
        "{task}/working_memory.yaml: a directory where a file should be",
        ("run", "status"),
    ),
    "actions.yaml a directory": (
        _as_directory("actions.yaml"),
        "{task}/actions.yaml: a directory where a file should be",
        ("run", "log"),
    ),
    "state.yaml not UTF-8": (
        _replace("state.yaml", b"phase: execution", b"phase: \xffxecution"),
        "{task}/state.yaml: not UTF-8 text: byte 0xff at offset 28",
        ("run", "status"),
    ),
    "0-byte working_memory.yaml": (
        lambda task: (task / "working_memory.yaml").write_bytes(b""),
        "{task}/working_memory.yaml: empty (0 bytes): it was truncated; `forgetui repair {task}` "
        "can rewrite it",
        ("run", "status"),
    ),
    "0-byte state.yaml": (
        lambda task: (task / "state.yaml").write_bytes(b""),
        "{task}/state.yaml: empty (0 bytes): it was truncated; `forgetui repair {task}` can "
        "rewrite it",
        ("run", "status"),
    ),
    "state.yaml ahead of the log": (
        _replace("state.yaml", b"step: 2\n", b"step: 7\n"),
        "{task}: state.yaml says step 7 but actions.yaml's last result is step 2; "
        "run `forgetui repair {task}` to see the fix",
        ("run",),
    ),
    "alias bomb in state.yaml": (
        _append_bomb("state.yaml"),
        "{task}/state.yaml:{line}: YAML anchors and aliases are not allowed in forgetui's files",
        ("run", "status", "context"),
    ),
    "alias bomb in working_memory.yaml": (
        _append_bomb("working_memory.yaml"),
        "{task}/working_memory.yaml:{line}: YAML anchors and aliases are not allowed in forgetui's "
        "files",
        ("run", "status", "context"),
    ),
    "alias bomb in task.yaml": (
        _append_bomb("task.yaml"),
        "{task}/task.yaml:{line}: YAML anchors and aliases are not allowed in forgetui's files",
        ("run", "status", "context"),
    ),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_file_is_one_line_and_leaves_everything_as_it_was(
    cli, hello_after_two_steps: Path, tmp_path: Path, case: str
) -> None:
    """Through the real CLI: exit 2, one line naming the file (and its line or byte offset),
    every file byte for byte as it was, and no lock (nor its temporary) left behind. A bomb
    that expanded would blow the 30 s timeout instead."""
    from tests.cli.stepped_sample import copy_task, files_of, lock_debris

    task = copy_task(hello_after_two_steps, tmp_path / "copy")
    damage, expected, commands = HOSTILE[case]
    bombed = re.match(r"\{task\}/([a-z_.]+):\{line\}", expected)
    first_line = (task / bombed[1]).read_bytes().count(b"\n") + 1 if bombed else 0
    damage(task)
    before = files_of(tmp_path / "copy")
    want = "forgetui: " + expected.format(task=task, line=first_line)
    for command in commands:
        result = cli(command, task, timeout=30)
        assert result.code == 2, (command, result.err)
        lines = result.err.strip().splitlines()
        if want.endswith("..."):
            assert len(lines) == 1 and lines[0].startswith(want[:-3]), (command, lines)
        else:
            assert lines == [want], command
        assert files_of(tmp_path / "copy") == before, command
        assert lock_debris(task) == [], command
