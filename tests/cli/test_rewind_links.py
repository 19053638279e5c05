"""A rewind over a workspace a command rearranged: step 4's run_cmd put a link to /etc where
step 2's directory `sub` was. Going back to step 1 would remove sub/passwd, through that link:
every file is checked (parents included, no link followed) before any is written, so the
rewind is refused whole, forced or not, and the task and workspace stay as they are."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from forgetui.engine.sandbox import MODE_VARIABLE
from tests.cli.stepped_sample import files_of, lock_debris
from tests.engine.helpers import act, make_task
from tests.engine.sandbox_helpers import MODES

LINK = "import os, shutil; shutil.rmtree('sub'); os.symlink('/etc', 'sub')"
SCRIPT = [
    act("write_file", path="a.txt", content="A1\n"),
    act("write_file", path="sub/passwd", content="P2\n"),
    act("write_file", path="a.txt", content="A3\n"),
    act("run_cmd", cmd=["python", "-c", LINK]),
]


@pytest.mark.parametrize("mode", MODES)
def test_a_link_a_command_left_stops_the_rewind_before_any_write(
    cli: Any, tmp_path: Path, mode: str
) -> None:
    folder = make_task(tmp_path, SCRIPT, allowed_commands=["python"])
    task, workspace = folder.path, folder.workspace
    in_mode = {MODE_VARIABLE: mode}  # the command runs under bwrap, or on the allow-list alone
    ran = cli("run", task, "--max-steps", "4", "--json", extra_env=in_mode)
    assert ran.code == 0, ran.err
    steps = ran.json_lines()[:-1]
    assert [(s["action"], s["result"]) for s in steps][-1] == ("run_cmd", "success")
    assert cli("status", task, "--json", extra_env=in_mode).json()["sandbox"] == mode
    assert (workspace / "sub").is_symlink()  # the command ran and left its link
    etc_passwd = Path("/etc/passwd").read_bytes()
    before = files_of(task)

    for args in (["--to", "1", "--force"], ["--to", "1"]):
        refused = cli("rewind", task, *args)
        assert refused.code == 2
        assert (workspace / "a.txt").read_text() == "A3\n"  # not half rewound
        assert files_of(task) == before and lock_debris(task) == []
        assert refused.err == (
            f"forgetui: {workspace}: cannot restore sub/passwd (sub is a link to /etc): move it "
            "away first; nothing changed\n"
        )  # not "changed by hand": what lies behind the link was not read as the file
    status = cli("status", task, "--json").json()
    assert (status["step"], status["status"]) == (4, "paused")
    assert Path("/etc/passwd").read_bytes() == etc_passwd

    (workspace / "sub").unlink()  # the operator moves the link away: the rewind goes through
    done = cli("rewind", task, "--to", "1", "--json")
    assert done.code == 0, done.err
    assert done.json()["restored"] == ["a.txt"] and done.json()["superseded"] == [2, 4]
    assert (workspace / "a.txt").read_text() == "A1\n"
    assert cli("log", task, "--json").json_lines()[-1]["operator"] == "rewind"
    again = cli("run", task, "--max-steps", "1", "--json", extra_env=in_mode)
    assert again.code == 0, again.err
    assert again.json_lines()[0]["step"] == 5
    assert (workspace / "sub" / "passwd").read_text() == "P2\n"
