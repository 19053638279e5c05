"""`forgetui tasks [PATH]`: every task under a workspace, a directory of workspaces or the run
copies, one line each (one JSON object with --json); a bad PATH is one line and exit 2."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from forgetui.engine import api


def test_tasks_lists_a_workspace_of_several_tasks_and_a_directory_of_workspaces(
    cli: Any, tmp_path: Path
) -> None:
    place = tmp_path / "place"
    assert cli("init", "escalation", "--into", place / "beta").code == 0
    assert cli("run", place / "beta", "--max-steps", "1").code == 3  # it asks the operator
    new = cli("new", "--workspace", place / "beta", "--goal", "Write a README", "--id", "readme",
              "--no-check")  # fmt: skip
    assert new.code == 0, new.err
    assert cli("init", "hello_world", "--into", place / "alpha").code == 0

    listed = cli("tasks", place, "--json")
    assert listed.code == 0, listed.err
    found = listed.json()
    assert found["place"] == str(place.resolve())
    by_name = {task["name"]: task for task in found["tasks"]}
    assert [task["name"] for task in found["tasks"]] == ["hello_world", "escalation", "readme"]
    waiting = by_name["escalation"]
    assert waiting["status"] == "escalated" and waiting["step"] == 1
    assert waiting["pending_escalation"]["question"].startswith("Which language")
    assert waiting["health"]["worst_section"]["name"]  # the context sent at step 1
    assert waiting["workspace"] == str((place / "beta").resolve())
    assert by_name["readme"]["status"] == "ready" and by_name["readme"]["health"] is None
    assert by_name["hello_world"]["cost_usd"] == 0.0

    one_workspace = cli("tasks", place / "beta", "--json").json()
    assert [task["name"] for task in one_workspace["tasks"]] == ["escalation", "readme"]

    table = cli("tasks", place)
    assert table.code == 0, table.err
    lines = table.out.splitlines()
    assert any("escalation" in line and "Which language" in line for line in lines)
    assert any("readme" in line and "ready" in line and "beta" in line for line in lines)


def test_tasks_shows_who_runs_a_task_and_a_task_that_does_not_read(
    cli: Any, tmp_path: Path
) -> None:
    place = tmp_path / "ws"
    assert cli("init", "hello_world", "--into", place).code == 0
    second = cli("new", "--workspace", place, "--goal", "Second", "--id", "second", "--no-check")
    assert second.code == 0, second.err
    (place / ".agentforge/tasks/second/state.yaml").write_text("step: [broken\n")
    folder = api.open_task(place / ".agentforge/tasks/hello_world")
    with folder.lock:  # this process writes the task meanwhile
        found = {t["name"]: t for t in cli("tasks", place, "--json").json()["tasks"]}
    hello = found["hello_world"]
    assert hello["status"] == "running" and hello["in_use_by"]["pid"] > 0
    broken = found["second"]
    assert broken["status"] == "unreadable" and "state.yaml" in broken["error"]


def test_tasks_bad_path_is_one_line_and_exit_2(cli: Any, tmp_path: Path) -> None:
    missing = cli("tasks", tmp_path / "nowhere")
    assert missing.code == 2 and missing.out == ""
    assert missing.err.count("\n") == 1 and "no such task folder" in missing.err
    (tmp_path / "empty").mkdir()
    empty = cli("tasks", tmp_path / "empty", "--json")
    assert empty.code == 2 and empty.err.count("\n") == 1 and "no tasks here" in empty.err
    both = cli("tasks", tmp_path, "--runs")
    assert both.code == 2 and "not both" in both.err


def test_tasks_runs_lists_the_run_copies(cli: Any) -> None:
    assert cli("init", "hello_world").code == 0
    assert cli("init", "escalation").code == 0
    found = cli("tasks", "--runs", "--json").json()
    assert sorted(task["name"] for task in found["tasks"]) == ["escalation", "hello_world"]
