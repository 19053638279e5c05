"""`forgetui stats TASK [--json]`: per step, tokens sent vs a run keeping the whole conversation;
and `status --json`'s context health."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path


def test_stats_json_and_table_of_a_finished_run(cli, tmp_path: Path) -> None:
    ran_hello = Path(cli("init", "hello_world", "--into", tmp_path / "run").out.strip())
    assert cli("run", ran_hello).code == 0
    result = cli("stats", ran_hello, "--json")
    assert result.code == 0, result.err
    stats = result.json()
    assert stats["task_id"] == "hello_world"
    assert [row["step"] for row in stats["steps"]] == [1, 2, 3, 4, 5]
    log = [e for e in cli("log", ran_hello, "--json").json_lines() if "action" in e]
    assert [row["sent"] for row in stats["steps"]] == [e["context_tokens"] for e in log]
    first = stats["steps"][0]
    assert first["naive"] == first["sent"]  # step 1 is the same two messages either way
    assert all(b["naive"] > a["naive"] for a, b in pairwise(stats["steps"]))
    summary = stats["summary"]
    assert summary["steps"] == 5 and summary["last_step"] == 5 and summary["cap"] == 8000
    assert summary["sent_total"] == sum(row["sent"] for row in stats["steps"])
    # the task is complete: its health is that of the last context sent
    assert stats["health"]["source"] == "saved" and stats["health"]["step"] == 5
    assert cli("status", ran_hello, "--json").json()["health"] == stats["health"]

    result = cli("stats", ran_hello)
    assert result.code == 0, result.err
    out = result.out
    assert "hello_world: tokens sent per step vs naive" in out
    rows = {
        line.split("│")[1].strip(): [cell.strip() for cell in line.split("│")[2:5]]
        for line in out.splitlines()
        if line.startswith("│")
    }
    last = stats["steps"][-1]
    assert list(rows) == ["1", "5"]  # steps 1, 5, 10 ... and the last, those that exist
    assert rows["5"] == [
        f"{last['sent']:,}", f"{last['naive']:,}", f"{last['naive'] / last['sent']:.1f}x"
    ]  # fmt: skip
    assert "all 5 steps:" in out and "stays under the 8,000-token cap" in out
    health = stats["health"]
    assert f"context health (step 5, as sent): {health['total']:,}/8,000" in out


def test_a_task_without_steps_status_health_and_a_missing_task(cli, tmp_path: Path) -> None:
    task = Path(cli("init", "hello_world", "--into", tmp_path / "run").out.strip())
    result = cli("stats", task)
    assert result.code == 0
    assert result.out.startswith("hello_world: no step has sent a context yet\n")
    assert "context health (step 1, next step): " in result.out
    assert cli("status", task, "--json").json()["health"] is None  # nothing sent yet
    health = cli("stats", task, "--json").json()["health"]
    context = cli("context", task, "--json").json()
    assert health["source"] == "preview" and health["step"] == 1
    assert (health["total"], health["cap"]) == (context["request_tokens"], context["max_tokens"])
    assert health["level"] == "ok" and health["pressure"] is None
    assert health["thresholds"] == {"warn": 70, "critical": 90}
    assert [s["name"] for s in health["sections"]] == [s["name"] for s in context["sections"]]
    missing = cli("stats", tmp_path / "nowhere", "--json")
    assert missing.code == 2 and missing.out == ""
    assert missing.err.startswith("forgetui: ") and len(missing.err.splitlines()) == 1
