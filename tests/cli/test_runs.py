"""`forgetui runs`: the run copies samples leave in runs/, listed newest first and pruned without
ever touching a copy in use or anything outside the runs directory."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from forgetui.engine.api import open_task, shown_in_workbench


def _init(cli: Any, sample: str = "hello_world") -> Path:
    """A sample copy in runs/ (no --into); returns its run directory."""
    result = cli("init", sample)
    assert result.code == 0, result.err
    return Path(result.out.strip()).parents[2]


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def test_runs_lists_copies_newest_first_with_status_step_and_size(cli, tmp_path: Path) -> None:
    runs = tmp_path / "home" / "runs"
    first = _init(cli, "hello_world")
    second = _init(cli, "escalation")
    assert first.parent == second.parent == runs
    stepped = cli("run", second, "--max-steps", "1", "--json")
    assert stepped.code in (0, 3), stepped.err  # escalation's first step asks the operator

    result = cli("runs")
    assert result.code == 0, result.err
    lines = _lines(result.out)
    assert len(lines) == 2
    assert lines[0].startswith(f"{second}  ")  # newest first, path in the first field
    assert lines[1].startswith(f"{first}  ")
    assert "escalation" in lines[0] and "escalated" in lines[0] and "step 1" in lines[0]
    assert "hello_world" in lines[1] and "ready" in lines[1] and "step 0" in lines[1]
    assert all("KiB" in line for line in lines)
    assert result.err == ""

    rows = cli("runs", "--json").json_lines()
    assert [row["path"] for row in rows] == [str(second), str(first)]
    assert rows[0]["sample"] == "escalation" and rows[0]["status"] == "escalated"
    assert rows[0]["step"] == 1 and rows[1]["step"] == 0
    assert rows[1]["task"] == str(first / ".agentforge" / "tasks" / "hello_world")
    assert all(row["size_bytes"] > 0 and row["in_use_by"] is None for row in rows)
    assert rows[0]["created"] >= rows[1]["created"]


def test_no_runs_yet_says_where_it_looked(cli, tmp_path: Path) -> None:
    result = cli("runs")
    assert result.code == 0
    assert result.out == ""
    assert result.err == f"forgetui: no run copies in {tmp_path / 'home' / 'runs'}\n"
    assert cli("runs", "--json").out == ""


def test_prune_keeps_the_newest_n_and_says_what_it_freed(cli, tmp_path: Path) -> None:
    copies = [_init(cli) for _ in range(4)]  # same second: -2, -3, -4 keep them in order
    result = cli("runs", "--prune", "--keep", "2")
    assert result.code == 0, result.err
    lines = _lines(result.out)
    assert lines[0].startswith(f"removed {copies[1]} (hello_world, ready, step 0, ")
    assert lines[1].startswith(f"removed {copies[0]} (hello_world, ready, step 0, ")
    assert re.fullmatch(r"removed 2 run copies of 4, freed \d+\.\d KiB; 2 kept", lines[2])
    assert [c.exists() for c in copies] == [False, False, True, True]
    listed = _lines(cli("runs").out)
    assert [line.split()[0] for line in listed] == [str(copies[3]), str(copies[2])]

    again = cli("runs", "--prune", "--keep", "2")
    assert _lines(again.out) == ["removed 0 run copies of 2, freed 0 B; 2 kept"]


def test_prune_by_default_keeps_ten(cli, tmp_path: Path) -> None:
    runs = tmp_path / "home" / "runs"
    for n in range(12):  # stand-ins: run directories of earlier days, named as init names them
        (runs / f"hello_world-202001{n + 1:02d}-120000").mkdir(parents=True)
    result = cli("runs", "--prune", "--json")
    assert result.code == 0, result.err
    lines = result.json_lines()
    assert [Path(line["path"]).name for line in lines[:-1]] == [
        "hello_world-20200102-120000",
        "hello_world-20200101-120000",
    ]
    assert all(line["removed"] for line in lines[:-1])
    final = lines[-1]
    assert final == {"final": True, "removed": 2, "kept": 10, "freed_bytes": final["freed_bytes"]}
    assert len(list(runs.iterdir())) == 10


def test_prune_older_than_removes_only_old_copies(cli, tmp_path: Path) -> None:
    runs = tmp_path / "home" / "runs"
    fresh = _init(cli)
    old = runs / "hello_world-20200101-120000"
    _init(cli).rename(old)
    result = cli("runs", "--prune", "--keep", "0", "--older-than", "30")
    assert result.code == 0, result.err
    assert _lines(result.out)[0].startswith(f"removed {old} (")
    assert fresh.exists() and not old.exists()


def test_prune_skips_a_copy_whose_task_is_locked(cli, tmp_path: Path) -> None:
    busy, idle = _init(cli), _init(cli)
    folder = open_task(busy)
    folder.acquire("pytest holding the lock")
    try:
        result = cli("runs", "--prune", "--keep", "0")
        listed = cli("runs")
    finally:
        folder.release()
    assert result.code == 0, result.err
    out = result.out
    assert f"removed {idle} (" in out
    assert f"kept    {busy}: in use, locked by pid {os.getpid()} (pytest holding the lock)" in out
    assert "removed 1 run copy of 2" in out
    assert busy.exists() and not idle.exists()
    assert f"in use by pid {os.getpid()}" in listed.out
    assert not (busy / ".agentforge" / "tasks" / "hello_world" / "lock").exists()  # ours, released


def test_prune_skips_a_copy_open_in_a_workbench(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shown, idle = _init(cli), _init(cli)
    monkeypatch.setenv("FORGETUI_HOME", str(tmp_path / "home"))
    # an idle workbench holds no task lock, only this mark (as `forgetui open` makes it)
    with shown_in_workbench(shown / ".agentforge" / "tasks" / "hello_world"):
        listed = cli("runs", "--json").json_lines()
        result = cli("runs", "--prune", "--keep", "0")
    assert listed[1]["path"] == str(shown) and listed[1]["in_use_by"]["pid"] == os.getpid()
    assert f"kept    {shown}: in use, open in a workbench (pid {os.getpid()})" in result.out
    assert shown.exists() and not idle.exists()
    assert cli("runs", "--json").json_lines()[0]["in_use_by"] is None  # the mark went with it
    assert cli("runs", "--prune", "--keep", "0").out.startswith(f"removed {shown} (")


def test_prune_never_touches_anything_outside_the_runs_directory(cli, tmp_path: Path) -> None:
    home = tmp_path / "home"
    runs = home / "runs"
    inside = _init(cli)
    outside = tmp_path / "outside"
    assert cli("init", "hello_world", "--into", outside).code == 0  # looks just like a run copy
    (runs / "hello_world-20200101-120000").symlink_to(outside, target_is_directory=True)
    (runs / "notes.txt").write_text("mine\n")
    (home / "config").mkdir()
    (home / "config" / "config.yaml").write_text("theme: dark\n")

    listed = cli("runs", "--json").json_lines()
    assert [row["path"] for row in listed] == [str(inside)]  # links and files are not copies

    result = cli("runs", "--prune", "--keep", "0")
    assert result.code == 0, result.err
    assert str(outside) not in result.out and "notes.txt" not in result.out
    assert not inside.exists()
    assert (outside / ".agentforge" / "tasks" / "hello_world" / "task.yaml").is_file()
    assert (runs / "hello_world-20200101-120000").is_symlink()
    assert (runs / "notes.txt").read_text() == "mine\n"
    assert (home / "config" / "config.yaml").read_text() == "theme: dark\n"


def test_bad_runs_arguments_exit_2_with_one_line(cli) -> None:
    for args, expected in [
        (("--keep", "3"), "runs: --keep and --older-than only go with --prune"),
        (("--older-than", "7"), "runs: --keep and --older-than only go with --prune"),
        (("--prune", "--keep", "-1"), "runs --keep -1: must be 0 or more"),
        (("--prune", "--older-than", "-2"), "runs --older-than -2.0: must be 0 or more days"),
        (("--prune", "--keep", "some"), "argument --keep: invalid int value: 'some'"),
        (("--prune", "--older-than", "week"), "argument --older-than: invalid float value"),
    ]:
        result = cli("runs", *args)
        assert result.code == 2, args
        assert result.out == ""
        lines = result.err.splitlines()
        assert len(lines) == 1 and lines[0].startswith("forgetui: "), result.err
        assert expected in lines[0], (args, result.err)


def test_runs_piped_into_head_stops_quietly(tmp_path: Path) -> None:
    runs = tmp_path / "home" / "runs"
    for n in range(3000):  # far more than a pipe holds, so the writer outlives `head`
        (runs / f"hello_world-20200101-{n % 24:02d}{n % 60:02d}00-{n}").mkdir(parents=True)
    env = {**os.environ, "FORGETUI_HOME": str(tmp_path / "home")}
    for flags in ("", "--json"):
        proc = subprocess.run(
            f"{sys.executable} -m forgetui runs {flags} | head -1",
            shell=True, capture_output=True, text=True, env=env, timeout=120,
        )  # fmt: skip
        assert proc.returncode == 0
        assert len(proc.stdout.splitlines()) == 1
        assert "hello_world-20200101-" in proc.stdout
        assert "Traceback" not in proc.stderr and "Error" not in proc.stderr, proc.stderr
