"""A careless quoted empty argument (`forgetui rewind "$TASK" --to 1` with TASK unset) is one
line and exit 2 for every command that takes a task or a path, never the task of the current
directory; and the door refuses it too, whoever calls it."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from forgetui.cli import build_parser, main
from forgetui.engine import api
from forgetui.engine.api import ForgeError
from tests.engine.helpers import act, make_task

pytestmark = pytest.mark.timeout(60)

# the other arguments each command needs to get as far as its path
EXTRA = {"rewind": ["--to", "1"], "memory": ["list"], "answer": ["yes"], "limits": []}


def _commands_with_a_path() -> list[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sorted(
        name
        for name, command in sub.choices.items()
        if any(action.dest in ("task", "path") for action in command._actions)
    )


def test_every_command_with_a_path_is_covered() -> None:
    assert {"status", "run", "rewind", "tasks", "open", "memory"} <= set(_commands_with_a_path())


@pytest.mark.parametrize("command", _commands_with_a_path())
def test_an_empty_path_is_refused_in_a_directory_holding_a_task(
    command: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = make_task(tmp_path, [act("note", text="x")])
    monkeypatch.chdir(folder.workspace)  # where "" would have found this task
    before = {p: p.read_bytes() for p in folder.path.rglob("*") if p.is_file()}
    assert main([command, "", *EXTRA.get(command, [])]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "an empty path" in err[0], err
    assert {p: p.read_bytes() for p in folder.path.rglob("*") if p.is_file()} == before


@pytest.mark.parametrize("call", [api.open_task, api.TaskList])
def test_the_door_refuses_an_empty_path(call: object) -> None:
    with pytest.raises(ForgeError, match="an empty path"):
        call("  ")  # type: ignore[operator]


def test_init_into_an_empty_path_is_refused_in_an_empty_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["init", "hello_world", "--into", ""]) == 2
    assert "an empty path" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
