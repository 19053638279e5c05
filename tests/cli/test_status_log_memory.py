"""status / log / memory: the public JSON shapes (docs/cli.md)."""

from __future__ import annotations

from pathlib import Path

import yaml


def test_status_json_shape(cli, hand_task: Path) -> None:
    result = cli("status", hand_task, "--json")
    assert result.code == 0, result.err
    info = result.json()
    assert set(info) == {
        "task_id", "status", "phase", "step", "verification", "pending_escalation",
        "task_changed", "sandbox", "environment", "prompt_tokens", "health", "saved_status",
        "in_use_by",
    }  # fmt: skip
    assert info["sandbox"] in ("bwrap", "allow-list")
    assert info["environment"]["source"] == "forgetui"  # the workspace has no .venv
    assert info["task_id"] == "fix-help" and info["step"] == 8 and info["status"] == "ready"
    assert info["saved_status"] == "ready" and info["in_use_by"] is None  # nobody holds it
    assert info["verification"]["ready_for_completion"] is False


def test_memory_pin_unpin_evict_note_recorded_and_shown(cli, hand_task: Path) -> None:
    listed = cli("memory", hand_task, "list", "--json").json_lines()
    assert [row["ref"] for row in listed] == ["action_result@8", "full_file:cli/commands/spec.py"]
    assert listed[1]["expires_in"] == 3 and listed[1]["pinned"] is False

    assert cli("memory", hand_task, "pin", "full_file:cli/commands/spec.py").code == 0
    memory = yaml.safe_load((hand_task / "working_memory.yaml").read_text())
    assert memory["items"][1]["pinned"] is True
    assert cli("memory", hand_task, "unpin", "full_file:cli/commands/spec.py").code == 0
    assert cli("memory", hand_task, "note", "prefer help= over docstrings").code == 0
    ctx = cli("context", hand_task, "--json").json()
    assert "prefer help= over docstrings" in ctx["messages"][1]["content"]
    assert cli("memory", hand_task, "evict", "action_result@8").code == 0
    ctx = cli("context", hand_task, "--json").json()
    assert "Added help parameter" not in ctx["messages"][1]["content"]

    ops = [e["operator"] for e in cli("log", hand_task, "--json").json_lines() if "operator" in e]
    assert ops == ["pin", "unpin", "note", "evict"]


def test_memory_unknown_key(cli, hand_task: Path) -> None:
    result = cli("memory", hand_task, "pin", "nope")
    assert result.code == 2
    assert "nope" in result.err and "full_file:cli/commands/spec.py" in result.err


def test_new_creates_a_task(cli, tmp_path: Path) -> None:
    ws = tmp_path / "repo"
    ws.mkdir()
    result = cli(
        "new",
        "--workspace",
        ws,
        "--goal",
        "Add a CLI flag",
        "--type",
        "generic",
        "--criterion",
        "flag works",
        "--check-cmd",
        "pytest -q",
    )
    assert result.code == 0, result.err
    folder = Path(result.out.strip())
    assert folder.parent.parent == ws / ".agentforge"
    spec = yaml.safe_load((folder / "task.yaml").read_text())
    assert spec["checks"][0]["cmd"] == ["pytest", "-q"]
    assert cli("status", ws, "--json").json()["status"] == "ready"
