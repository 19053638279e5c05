"""`forgetui context` on a task folder written by hand, as docs/task-folder.md describes it."""

from __future__ import annotations

from pathlib import Path

import yaml

SECTIONS = [
    "system_prompt", "task_frame", "current_state", "recent_actions", "verification_status",
    "available_actions",
]  # fmt: skip


def test_hand_written_task_compiles_within_budget(cli, hand_task: Path) -> None:
    before = {p: p.read_bytes() for p in hand_task.rglob("*") if p.is_file()}
    result = cli("context", hand_task, "--json")
    assert result.code == 0, result.err
    ctx = result.json()
    assert ctx["step"] == 9
    assert [s["name"] for s in ctx["sections"]] == SECTIONS
    for section in ctx["sections"]:
        assert section["tokens"] <= section["budget"], section["name"]
    assert ctx["total_tokens"] <= ctx["max_tokens"] == 6000  # fix_violation's cap
    assert [m["role"] for m in ctx["messages"]] == ["system", "user"]
    user = ctx["messages"][1]["content"]
    assert "CLI-007" in user  # the violation
    assert "loaded by hand" in user  # the loaded_context memory item
    assert "Added help parameter" in user  # the action_result memory item
    assert "lines omitted" in user  # the 3,000-line file, compressed
    assert "last line of spec.py" in user  # ... keeping its tail
    assert "3000" in user  # ... with original line numbers
    yaml.safe_load(user)  # the YAML rendering parses
    after = {p: p.read_bytes() for p in hand_task.rglob("*") if p.is_file()}
    assert after == before  # a preview changes nothing


def test_workspace_path_and_human_output(cli, hand_task: Path) -> None:
    workspace = hand_task.parents[2]
    result = cli("context", workspace)
    assert result.code == 0, result.err
    assert "current_state" in result.out and "total" in result.out


def test_budget_override_and_xml(cli, hand_task: Path) -> None:
    spec = hand_task / "task.yaml"
    spec.write_text(
        spec.read_text().replace(
            "limits:\n  max_steps: 50\n",
            "limits:\n  max_steps: 50\n  token_budget: {current_state: 1500}\n"
            "context_format: xml\n",
        )
    )
    result = cli("context", hand_task, "--json")
    assert result.code == 0, result.err
    ctx = result.json()
    current = next(s for s in ctx["sections"] if s["name"] == "current_state")
    assert current["budget"] == 1500 and current["tokens"] <= 1500
    assert ctx["format"] == "xml"
    assert "<task_context>" in ctx["messages"][1]["content"]
    assert "lines omitted" in ctx["messages"][1]["content"]
