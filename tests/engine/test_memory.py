"""Working memory rules (docs/task-folder.md): FIFO of the oldest unpinned, pins, expiry."""

from __future__ import annotations

from pathlib import Path

import pytest

from forgetui.engine.base.errors import MemoryKeyError
from forgetui.engine.base.yamlio import load_model
from forgetui.engine.folder import memory as wm

EXAMPLE = (Path(__file__).parents[1] / "data" / "working_memory.example.yaml").read_text()


def _note(step: int, pinned: bool = False) -> wm.MemoryItem:
    return wm.MemoryItem(
        type="note", step=step, key=f"n{step}", content=f"note {step}", pinned=pinned
    )


def test_the_documented_example_loads(tmp_path: Path) -> None:
    path = tmp_path / "working_memory.yaml"
    path.write_text(EXAMPLE)
    memory = load_model(path, wm.WorkingMemory)
    assert memory.max_items == 5
    assert [item.ref for item in memory.items] == [
        "action_result@8",
        "full_file:cli/commands/spec.py",
    ]


def test_fifo_pushes_out_the_oldest_unpinned() -> None:
    memory = wm.WorkingMemory(max_items=3)
    memory, _ = wm.add_item(memory, _note(1, pinned=True))
    for step in (2, 3):
        memory, gone = wm.add_item(memory, _note(step))
        assert gone == []
    memory, gone = wm.add_item(memory, _note(4))
    assert [d.ref for d in gone] == ["n2"] and gone[0].reason == "pushed out"
    assert [i.key for i in memory.items] == ["n1", "n3", "n4"]


def test_all_pinned_means_nothing_is_evicted() -> None:
    memory = wm.WorkingMemory(max_items=2)
    for step in (1, 2):
        memory, _ = wm.add_item(memory, _note(step, pinned=True))
    memory, gone = wm.add_item(memory, _note(3))
    assert gone == [] and len(memory.items) == 3


def test_same_key_replaces_instead_of_growing() -> None:
    memory = wm.WorkingMemory()
    memory, _ = wm.add_item(
        memory, wm.MemoryItem(type="loaded_context", key="full_file:a", content="v1", step=1)
    )
    memory, _ = wm.add_item(
        memory, wm.MemoryItem(type="loaded_context", key="full_file:a", content="v2", step=2)
    )
    assert [i.content for i in memory.items] == ["v2"]


def test_expiry_shows_the_item_for_n_steps_then_drops_it() -> None:
    item = wm.MemoryItem(
        type="loaded_context", key="full_file:a", content="x", step=5, expires_after_steps=3
    )
    memory = wm.WorkingMemory(items=[item])
    assert [wm.visible_items(memory, s) != [] for s in (6, 7, 8, 9)] == [True, True, True, False]
    assert item.steps_left(6) == 3 and item.steps_left(8) == 1
    kept, gone = wm.expire(memory, 9)
    assert kept.items == [] and gone[0].reason == "expired"
    pinned = wm.set_pinned(memory, "full_file:a", True)
    assert wm.visible_items(pinned, 50) and wm.expire(pinned, 50)[1] == []


def test_undated_items_count_from_the_last_recorded_step() -> None:
    item = wm.MemoryItem(type="loaded_context", key="k", content="x", expires_after_steps=2)
    memory = wm.WorkingMemory(items=[item])
    assert wm.visible_items(memory, 11)  # state.step 10: shows at 11 and 12
    kept, _ = wm.expire(memory, 11)
    assert kept.items[0].step == 10
    assert wm.visible_items(kept, 13) == []


def test_operator_changes_by_key_type_step_or_position() -> None:
    memory = wm.WorkingMemory(
        items=[_note(1), wm.MemoryItem(type="action_result", step=2, content={"action": "x"})]
    )
    assert memory.find("#2") == 1 and memory.find("action_result@2") == 1
    memory = wm.edit(memory, "n1", "changed")
    assert memory.items[0].content == "changed"
    memory, gone = wm.evict(memory, "action_result@2")
    assert gone.reason == "evicted" and len(memory.items) == 1  # "evicted": the operator's x
    with pytest.raises(MemoryKeyError, match="n1"):
        wm.set_pinned(memory, "missing", True)
