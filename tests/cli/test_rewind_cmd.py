"""`forgetui rewind TASK --to N [--fork DIR] [--force] [--json]` on hello_world run to completion
(five steps, step 3 writes hello.py): exit codes, the JSON, the conflict lines, and a task that
runs on afterwards."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import cli_env
from tests.cli.stepped_sample import copy_task, files_of, lock_debris, stepped_hello

HELLO = 'print("Hello, world!")\n'


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return stepped_hello(tmp_path_factory.mktemp("hello-done"), steps=5)


@pytest.fixture
def task(template: Path, tmp_path: Path) -> Path:
    return copy_task(template, tmp_path / "ws")


def workspace_of(task: Path) -> Path:
    return task.parents[2]


def test_rewind_json_then_the_run_goes_on_from_step_3(cli: Any, task: Path) -> None:
    workspace = workspace_of(task)
    assert (workspace / "hello.py").read_text() == HELLO
    done = cli("rewind", task, "--to", "2", "--json")
    assert done.code == 0, done.err
    report = done.json()
    assert report == {
        "to": 2, "fork": False, "folder": str(task), "workspace": str(workspace),
        "source": str(task), "superseded": [3, 5],
        "restored": [], "removed": ["hello.py"], "conflicts": [], "untracked": [],
        "untracked_note": None, "status": "paused", "done": True,
    }  # fmt: skip
    assert not (workspace / "hello.py").exists()
    entries = cli("log", task, "--json").json_lines()
    assert [e["step"] for e in entries if e.get("superseded")] == [3, 4, 5]
    assert entries[-1]["operator"] == "rewind"
    assert entries[-1]["text"] == "rewind → step 2 (steps 3-5 superseded)"
    status = cli("status", task, "--json").json()
    assert (status["step"], status["status"]) == (5, "paused")
    assert cli("repair", task).out.startswith("nothing to repair")
    ran = cli("run", task, "--json")
    assert ran.code == 0, ran.err
    steps = ran.json_lines()
    assert [(s["step"], s["action"]) for s in steps[:-1]] == [
        (6, "write_file"), (7, "run_check"), (8, "complete"),
    ]  # fmt: skip
    assert steps[-1]["status"] == "complete"
    assert (workspace / "hello.py").read_text() == HELLO


def test_rewind_says_what_it_did(cli: Any, task: Path) -> None:
    done = cli("rewind", task, "--to", "0")
    assert done.code == 0, done.err
    lines = done.out.splitlines()
    assert lines[0] == "rewound to step 0 (steps 1-5 superseded): 0 files restored, 1 removed; "\
        "status paused"  # fmt: skip
    assert "  removed   hello.py" in lines
    assert lines[-1] == f"next: forgetui run {task}"
    log = cli("log", task).out  # the branch left behind reads as such in the plain log too
    assert log.count("superseded:") == 5 and "operator:rewind" in log


def test_a_hand_edit_is_listed_and_nothing_changes_until_force(cli: Any, task: Path) -> None:
    workspace = workspace_of(task)
    (workspace / "hello.py").write_text('print("my greeting")\n')
    before = files_of(workspace)
    refused = cli("rewind", task, "--to", "2")
    assert refused.code == 2
    assert refused.err.splitlines() == [
        "forgetui: rewind to step 2 stopped: changed by hand since the run wrote them:",
        "  hello.py",
        "forgetui: nothing changed; --force overwrites them",
    ]
    assert files_of(workspace) == before and lock_debris(task) == []
    as_json = cli("rewind", task, "--to", "2", "--json")
    assert as_json.code == 2
    plan = as_json.json()
    assert plan["conflicts"] == ["hello.py"] and plan["done"] is False
    assert "nothing changed" in plan["error"]
    assert files_of(workspace) == before
    forced = cli("rewind", task, "--to", "2", "--force", "--json")
    assert forced.code == 0, forced.err
    assert forced.json()["conflicts"] == ["hello.py"]
    assert not (workspace / "hello.py").exists()


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--to", "-1"], "forgetui: --to -1: a step number is 0 or more\n"),
        (["--to", "9"], "forgetui: task hello_world has no step 9: it is at step 5\n"),
        (["--to", "5"], "forgetui: task hello_world is at the end of step 5 already: nothing"
         " to rewind\n"),
        (["--to", "x"], "forgetui: rewind: argument --to: invalid int value: 'x'\n"),
        (["--to", "1", "--fork", "f", "--force"], "forgetui: rewind: --force is for an in-place "
         "rewind; a fork changes no file here\n"),
        # a script's empty "$DIR": not the current directory, and not an in-place rewind
        (["--to", "1", "--fork", ""], "forgetui: --fork: an empty path; name the directory for "
         "the fork\n"),
        (["--to", "1", "--fork", " \t"], "forgetui: --fork: an empty path; name the directory "
         "for the fork\n"),
    ],
)  # fmt: skip
def test_bad_input_is_one_line_exit_2(cli: Any, task: Path, args: list[str], said: str) -> None:
    before = files_of(workspace_of(task))
    done = cli("rewind", task, *args)
    assert (done.code, done.err) == (2, said)
    assert files_of(workspace_of(task)) == before


def test_an_empty_task_is_exit_2_even_inside_the_workspace(task: Path, tmp_path: Path) -> None:
    """`forgetui rewind "$TASK"` with TASK unset, run from the workspace: not that task."""
    workspace = workspace_of(task)
    before = files_of(workspace)
    for blank in ("", " "):
        done = subprocess.run(
            [sys.executable, "-m", "forgetui", "rewind", blank, "--to", "1"],
            capture_output=True, text=True, cwd=workspace, timeout=120,
            env={**os.environ, **cli_env(tmp_path / "home")},
        )  # fmt: skip
        assert (done.returncode, done.stderr) == (
            2, "forgetui: rewind: argument task: an empty path; name a task folder or"
            " a workspace\n",
        )  # fmt: skip
    assert files_of(workspace) == before


@pytest.mark.parametrize("where", ["/proc/self/fk", "a-file/fork"])
def test_a_fork_where_none_can_be_made_is_one_line(
    cli: Any, task: Path, tmp_path: Path, where: str
) -> None:
    """mkdir refused (/proc, or a file on the way): the path named, nothing made, no lock."""
    (tmp_path / "a-file").write_text("a file\n")
    dest = where if where.startswith("/") else str(tmp_path / where)
    before = files_of(workspace_of(task))
    done = cli("rewind", task, "--to", "2", "--fork", dest)
    assert done.code == 2
    assert done.err.startswith(f"forgetui: --fork {dest}: cannot make the fork there: ")
    assert done.err.count("\n") == 1 and "Traceback" not in done.err
    assert files_of(workspace_of(task)) == before and lock_debris(task) == []
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "home") == ["a-file", "ws"]


def test_a_missing_task_is_exit_2(cli: Any, tmp_path: Path) -> None:
    done = cli("rewind", tmp_path / "nowhere", "--to", "1")
    assert done.code == 2
    assert done.err == f"forgetui: {tmp_path / 'nowhere'}: no such task folder or workspace\n"


def test_fork_leaves_the_task_alone(cli: Any, task: Path, tmp_path: Path) -> None:
    workspace = workspace_of(task)
    before = files_of(workspace)
    dest = tmp_path / "forked"
    done = cli("rewind", task, "--to", "2", "--fork", dest, "--json")
    assert done.code == 0, done.err
    report = done.json()
    fork_task = dest / ".agentforge" / "tasks" / "hello_world"
    assert report["fork"] is True and report["folder"] == str(fork_task)
    assert report["workspace"] == str(dest)
    assert report["removed"] == ["hello.py"] and report["superseded"] is None
    assert files_of(workspace) == before  # the original: every byte, its task folder included
    assert not (dest / "hello.py").exists() and (dest / "test_hello.py").is_file()
    status = cli("status", dest, "--json").json()
    assert (status["step"], status["status"], status["task_changed"]) == (2, "paused", None)
    log = cli("log", dest, "--json").json_lines()
    assert [e.get("step") for e in log if "action" in e] == [1, 2]
    assert log[-1]["operator"] == "fork" and log[-1]["detail"]["to"] == 2
    again = cli("rewind", task, "--to", "2", "--fork", dest)
    assert again.code == 2 and "not empty" in again.err


def test_a_task_another_process_writes_is_refused_naming_it(cli: Any, task: Path) -> None:
    take = (
        "import sys; from pathlib import Path; from forgetui.engine.folder.lock import TaskLock; "
        f"TaskLock(Path({str(task)!r})).acquire('forgetui run elsewhere'); "
        "print('held', flush=True); sys.stdin.read()"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", take], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        done = cli("rewind", task, "--to", "2")
        assert done.code == 2
        assert f"is locked by pid {holder.pid} (forgetui run elsewhere" in done.err
        assert (workspace_of(task) / "hello.py").read_text() == HELLO
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=30)


def test_a_torn_last_result_is_restored_then_the_rewind_goes_on(cli: Any, task: Path) -> None:
    """A crash tore step 5's result line: rewind, like every writer, moves the torn line aside
    and restores the result from state.yaml, then rewinds (it used to move the line aside and
    then refuse, "step 5 has no result yet")."""
    log = task / "actions.yaml"
    data = log.read_bytes()
    log.write_bytes(data[:-40])
    done = cli("rewind", task, "--to", "1", "--json")
    assert done.code == 0, done.err
    assert done.json()["superseded"] == [2, 5]
    assert (task / "actions.yaml.torn").exists()
    results = [e for e in cli("log", task, "--json").json_lines() if e.get("step") == 5]
    assert results and results[0]["result"] is not None
    assert cli("repair", task).out.startswith("nothing to repair")
