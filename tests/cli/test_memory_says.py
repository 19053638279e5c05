"""`forgetui memory`: a change says what it did, as the workbench's toast does."""

from __future__ import annotations

from pathlib import Path

import yaml


def test_a_note_into_full_memory_says_what_it_pushed_out(cli, hand_task: Path) -> None:
    path = hand_task / "working_memory.yaml"
    memory = yaml.safe_load(path.read_text())
    path.write_text(yaml.safe_dump({**memory, "max_items": 2}))
    result = cli("memory", hand_task, "note", "prefer help= over docstrings")
    assert result.code == 0, result.err
    assert result.out.strip() == (
        "note: note@8; pushed out action_result@8 (edit_file: Added help parameter)"
        " — memory holds at most 2 items"
    )


def test_editing_a_result_with_text_that_loses_its_fields_is_refused(cli, hand_task: Path) -> None:
    before = (hand_task / "working_memory.yaml").read_text()
    result = cli("memory", hand_task, "edit", "action_result@8", "just words")
    assert result.code != 0
    assert "holds YAML fields (key: value lines) and must keep that shape" in result.err
    assert (hand_task / "working_memory.yaml").read_text() == before
    ok = cli("memory", hand_task, "edit", "action_result@8", "{action: edit_file, summary: ok}")
    assert ok.code == 0, ok.err
    item = yaml.safe_load((hand_task / "working_memory.yaml").read_text())["items"][0]
    assert item["content"] == {"action": "edit_file", "summary": "ok"}
