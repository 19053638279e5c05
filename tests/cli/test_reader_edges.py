"""The reading commands at their edges: a step or tail that cannot be (bad input: one line,
exit 2), and a reader that closed the pipe (`| head -1`): every command stops quietly, exit 0."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import cli_env
from tests.cli.stepped_sample import TASK, stepped_hello


@pytest.fixture(scope="module")
def stepped(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return stepped_hello(tmp_path_factory.mktemp("stepped")) / TASK


@pytest.mark.parametrize(
    "args",
    [
        ("context", "--step", "-1"),
        ("context", "--step", "0"),
        ("context", "--step", "0", "--json"),
        ("log", "--tail", "0"),
        ("log", "--tail", "-3"),
        ("log", "--tail", "-3", "--json"),
    ],
)
def test_a_step_or_tail_below_one_is_bad_input(
    cli_in_process: Any, stepped: Path, args: tuple[str, ...]
) -> None:
    command, flag, value, *rest = args
    result = cli_in_process(command, stepped, flag, value, *rest)
    assert result.code == 2 and result.out == ""
    assert result.err.count("\n") == 1
    assert flag in result.err and value in result.err
    assert "step--" not in result.err  # no file name was made of it


def test_a_step_and_tail_of_one_still_read(cli_in_process: Any, stepped: Path) -> None:
    assert cli_in_process("context", stepped, "--step", "1").code == 0
    tail = cli_in_process("log", stepped, "--tail", "1", "--json")
    assert tail.code == 0 and [e["step"] for e in tail.json_lines()] == [2]


@pytest.mark.parametrize(
    "args",
    [
        ("stats",),
        ("context",),
        ("log",),
        ("status",),
        ("stats", "--json"),
        ("context", "--json"),
        ("context", "--step", "1"),
        ("inbox",),
    ],
)
def test_a_closed_pipe_ends_quietly(stepped: Path, tmp_path: Path, args: tuple[str, ...]) -> None:
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first byte: every write fails
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "forgetui", args[0], str(stepped), *args[1:]],
            stdout=write, stderr=subprocess.PIPE, text=True, timeout=120, cwd=tmp_path,
            env={**os.environ, **cli_env(stepped.parents[3] / "home")},
        )  # fmt: skip
    finally:
        os.close(write)
    assert (proc.returncode, proc.stderr) == (0, "")
