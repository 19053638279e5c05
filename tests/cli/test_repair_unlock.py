"""`forgetui repair` shows the fix for damaged or disagreeing task files and makes it only with
--apply (backups kept, logged), after which the run completes; `forgetui unlock` frees a task
from a lock whose holder is gone, never from a live one on this host."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli.stepped_sample import (
    billion_laughs,
    copy_task,
    files_of,
    lock_debris,
)


@pytest.fixture
def task(hello_after_two_steps: Path, tmp_path: Path) -> Path:
    return copy_task(hello_after_two_steps, tmp_path / "copy")


def _step_ahead(task: Path) -> None:
    text = (task / "state.yaml").read_text()
    (task / "state.yaml").write_text(text.replace("step: 2\n", "step: 7\n", 1))


def _garbage_line_3(task: Path) -> None:
    lines = (task / "actions.yaml").read_bytes().splitlines(keepends=True)
    (task / "actions.yaml").write_bytes(b"".join([*lines[:2], b"garbage here\n", *lines[2:]]))


def _empty(name: str) -> Callable[[Path], None]:
    return lambda task: (task / name).write_bytes(b"")


# damage, the fix `repair` shows (with TASK for the task folder), the file(s) it backs up
REPAIRS: dict[str, tuple[Callable[[Path], None], str, list[str]]] = {
    "state ahead of the log": (
        _step_ahead,
        "set state.yaml step 7 → 2, the step of actions.yaml's last result",
        ["state.yaml"],
    ),
    "garbage line in the log": (
        _garbage_line_3,
        "move the bad line 3 of actions.yaml aside to actions.yaml.bad-{time} (13 bytes: a "
        "record line must start with '--- ' followed by a JSON object)",
        ["actions.yaml"],
    ),
    "0-byte working memory": (
        _empty("working_memory.yaml"),
        "rewrite working_memory.yaml as empty memory (it was a 0-byte file)",
        ["working_memory.yaml"],
    ),
    "0-byte state": (
        _empty("state.yaml"),
        "rewrite state.yaml as a fresh state at step 2, the step of actions.yaml's last result "
        "(it was a 0-byte file; decisions, verification and totals start afresh, the log keeps "
        "the history)",
        ["state.yaml"],
    ),
}


@pytest.mark.parametrize("case", sorted(REPAIRS))
def test_repair_shows_the_fix_then_applies_it_and_the_run_completes(
    cli: Any, task: Path, case: str
) -> None:
    damage, fix, backed_up = REPAIRS[case]
    damage(task)
    damaged = files_of(task)
    refused = cli("run", task)
    assert refused.code == 2 and "forgetui repair" in refused.err
    assert files_of(task) == damaged and lock_debris(task) == []

    dry = cli("repair", task)
    assert dry.code == 0, dry.err
    assert dry.out.splitlines() == [
        f"`forgetui repair {task} --apply` would (keeping a backup of each file it changes):",
        "  " + fix.format(time="<time>"),
    ]
    assert files_of(task) == damaged  # a dry run changes nothing

    applied = cli("repair", task, "--apply")
    assert applied.code == 0, applied.err
    header, line = applied.out.splitlines()
    backups = sorted(p.name for p in task.iterdir() if ".bak-" in p.name)
    assert [name.split(".bak-")[0] for name in backups] == backed_up
    assert header == f"repaired (backups: {', '.join(backups)}):"
    stamp = backups[0].split(".bak-")[1]
    assert line == "  " + fix.format(time=stamp)
    for name in backups:  # each backup holds the file as it was before the repair
        assert (task / name).read_bytes() == damaged[name.split(".bak-")[0]]
    assert lock_debris(task) == []
    if case == "garbage line in the log":
        moved = (task / f"actions.yaml.bad-{stamp}").read_text()
        assert moved.endswith("\ngarbage here\n") and moved.startswith("# line 3, offset ")

    logged = cli("log", task, "--json").json_lines()
    assert logged[-1]["operator"] == "repair"
    assert logged[-1]["text"] == fix.format(time=stamp)

    again = cli("repair", task)
    assert again.out.strip() == (
        "nothing to repair: state.yaml, working_memory.yaml and actions.yaml agree"
    )
    run = cli("run", task, "--json")
    assert run.code == 0, run.err
    final = run.json_lines()[-1]
    assert final["status"] == "complete" and final["step"] == 5


def test_repair_on_a_healthy_task_changes_nothing(cli: Any, task: Path) -> None:
    before = files_of(task)
    for args in ((), ("--apply",)):
        result = cli("repair", task, *args)
        assert result.code == 0
        assert result.out.strip() == (
            "nothing to repair: state.yaml, working_memory.yaml and actions.yaml agree"
        )
    assert files_of(task) == before


def test_repair_leaves_what_it_cannot_judge_to_the_operator(cli: Any, task: Path) -> None:
    bomb_line = (task / "state.yaml").read_bytes().count(b"\n") + 1
    with open(task / "state.yaml", "a") as handle:
        handle.write(billion_laughs())
    before = files_of(task)
    for args in ((), ("--apply",)):
        result = cli("repair", task, *args, timeout=30)
        assert result.code == 2
        assert result.err.splitlines() == [
            f"forgetui: {task}/state.yaml:{bomb_line}: YAML anchors and aliases are not allowed in "
            "forgetui's files; repair cannot fix this: fix it by hand"
        ]
    assert files_of(task) == before
    assert lock_debris(task) == []


# -- unlock ------------------------------------------------------------------------------------


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _lock_file(task: Path, pid: int, host: str) -> bytes:
    info = {
        "pid": pid,
        "host": host,
        "started_at": "2026-01-02T03:04:05Z",
        "command": "forgetui run",
    }
    data = (json.dumps(info) + "\n").encode()
    (task / "lock").write_bytes(data)
    return data


def test_a_lock_from_another_host_is_removed_by_unlock_then_the_run_works(
    cli: Any, task: Path
) -> None:
    pid = _dead_pid()
    _lock_file(task, pid, "build-box-7")
    refused = cli("run", task)
    assert refused.code == 2
    assert refused.err.splitlines() == [
        f"forgetui: task hello_world is locked by pid {pid} on build-box-7 (forgetui run, since "
        "2026-01-02T03:04:05Z); wait for it to finish or open the task read-only. If that "
        f"process is gone, run `forgetui unlock {task}`"
    ]
    unlocked = cli("unlock", task)
    assert unlocked.code == 0, unlocked.err
    assert unlocked.out.strip() == (
        f"removed the lock of pid {pid} (forgetui run, since 2026-01-02T03:04:05Z) on "
        "build-box-7; forgetui cannot see processes on build-box-7: if that run is still going, "
        "it now shares the task with the next writer"
    )
    assert lock_debris(task) == []
    run = cli("run", task, "--json")
    assert run.code == 0, run.err
    assert run.json_lines()[-1]["status"] == "complete"
    assert cli("unlock", task).out.strip() == "task hello_world is not locked"


def test_unlock_removes_a_local_lock_whose_process_is_gone(cli: Any, task: Path) -> None:
    pid = _dead_pid()
    _lock_file(task, pid, socket.gethostname())
    unlocked = cli("unlock", task)
    assert unlocked.out.strip() == (
        f"removed the lock of pid {pid} (forgetui run, since 2026-01-02T03:04:05Z): that "
        "process is gone"
    )
    assert lock_debris(task) == []


@pytest.fixture
def holder(task: Path) -> Iterator[subprocess.Popen[str]]:
    """A live local process holding the task's lock until its stdin closes."""
    code = textwrap.dedent(
        f"""
        import sys
        from pathlib import Path
        from forgetui.engine.folder.lock import TaskLock
        lock = TaskLock(Path({str(task)!r}))
        lock.acquire(command="forgetui run hello")
        print("holding", flush=True)
        sys.stdin.read()
        lock.release()
        """
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "holding"
    yield proc
    if proc.poll() is None:
        proc.kill()
    proc.wait()


def test_unlock_refuses_while_a_live_local_process_holds_the_lock(
    cli: Any, task: Path, holder: subprocess.Popen[str]
) -> None:
    held = (task / "lock").read_bytes()
    refused = cli("unlock", task)
    assert refused.code == 2
    assert refused.err.splitlines() == [
        f"forgetui: task hello_world: pid {holder.pid} (forgetui run hello) holds the lock on this "
        "host; stop it first"
    ]
    assert (task / "lock").read_bytes() == held
    assert holder.stdin is not None
    holder.stdin.close()  # the holder finishes and lets go
    assert holder.wait(timeout=30) == 0
    assert cli("unlock", task).out.strip() == "task hello_world is not locked"


def test_repair_does_what_its_dry_run_said_for_several_problems_at_once(
    cli: Any, task: Path
) -> None:
    """A torn last record (which every writer's open moves aside anyway), a garbage line and an
    empty working_memory.yaml: the dry run's lines are the ones --apply reports."""
    _garbage_line_3(task)
    with open(task / "actions.yaml", "ab") as handle:
        handle.write(b'--- {"step": 3, "at": "x", "kind": "int')  # cut mid-write
    _empty("working_memory.yaml")(task)
    dry = cli("repair", task).out.splitlines()[1:]
    applied = cli("repair", task, "--apply").out.splitlines()[1:]
    stamp = next(p.name for p in task.iterdir() if ".bak-" in p.name).split(".bak-")[1]
    assert len(dry) == 3 and dry[0].startswith("  move the torn last record of actions.yaml")
    assert applied == [line.replace("<time>", stamp) for line in dry]
    assert (task / "actions.yaml.torn").read_bytes().endswith(b'"kind": "int\n')
    run = cli("run", task, "--json")
    assert run.code == 0, run.err
    assert run.json_lines()[-1]["status"] == "complete"


def test_unlock_works_on_a_task_whose_files_do_not_load(cli: Any, task: Path) -> None:
    (task / "task.yaml").write_text(billion_laughs())
    _lock_file(task, _dead_pid(), "elsewhere")
    unlocked = cli("unlock", task, timeout=30)
    assert unlocked.code == 0 and unlocked.out.startswith("removed the lock of pid ")
    assert lock_debris(task) == []
