"""Why working-memory items leave, said before and after: the next step's preview forecasts each
departure (api.leaving_context) in the words the context diff then uses; a note that fills
memory says what it pushed out; an edit keeps structured content structured."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from forgetui.engine import api
from forgetui.engine.base.errors import ForgeError
from forgetui.engine.folder import memory as wm
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.history.diff import DiffEntry, context_diff
from forgetui.engine.step.executor import Executor

from .helpers import act, make_task, replay


def steps(folder: TaskFolder, count: int) -> None:
    with Executor(folder, replay(folder)) as executor:
        for _ in range(count):
            executor.step()


def leaving(folder: TaskFolder) -> dict[str, wm.Leaving]:
    ctx = api.preview_context(folder)
    return {entry.ref: entry for entry in api.leaving_context(folder, ctx)}


def listing(count: int) -> list[dict[str, object]]:
    """Steps that each add one action result (different folders: no loop guard)."""
    return [act("list_dir", path=f"d{n}") for n in range(1, count + 1)]


def task(tmp_path: Path, script: list[dict[str, object]], **spec: object) -> TaskFolder:
    folder = make_task(tmp_path, script, **spec)
    for n in range(1, 10):
        (folder.workspace / f"d{n}").mkdir()
    return folder


def test_a_note_that_fills_memory_says_what_it_pushed_out(tmp_path: Path) -> None:
    folder = task(tmp_path, listing(5))
    steps(folder, 4)
    assert api.add_note(folder, "room left") == "note@4"  # 5 of 5: nothing leaves
    said = api.add_note(folder, "one too many")
    assert said.startswith("note@4.2; pushed out action_result@1 (list_dir")
    assert said.endswith(" — memory holds at most 5 items")
    refs = [item.ref for item in folder.load_memory().items]
    assert "action_result@1" not in refs and refs[-1] == "note@4.2"


def test_fifo_is_forecast_as_pushed_out_and_the_diff_agrees(tmp_path: Path) -> None:
    folder = task(tmp_path, listing(6))
    steps(folder, 4)
    api.add_note(folder, "fills the fifth place")
    forecast = leaving(folder)["action_result@1"]
    assert forecast.reason == "pushed out"
    assert forecast.why == "step 5's result makes 6 items: memory holds at most 5"
    assert "action_result@2" not in leaving(folder)  # only the oldest goes
    steps(folder, 2)
    assert DiffEntry("action_result@1", "left", "pushed out") in context_diff(folder, 6)


def test_expiry_is_forecast_and_the_diff_agrees(tmp_path: Path) -> None:
    folder = task(tmp_path, [act("load_context", item="full_file:a.txt"), *listing(4)])
    (folder.workspace / "a.txt").write_text("alpha\n")
    steps(folder, 3)  # loaded at step 1: shown at steps 2, 3 and 4
    last = leaving(folder)["full_file:a.txt"]
    assert (last.reason, last.why) == (
        "expired", "shown for the last time at step 4 (a term of 3 steps)",
    )  # fmt: skip
    steps(folder, 1)
    over = leaving(folder)["full_file:a.txt"]
    assert over.reason == "expired" and "not in step 5's context" in over.why
    steps(folder, 1)
    assert DiffEntry("full_file:a.txt", "left", "expired") in context_diff(folder, 5)


def test_the_operators_evict_is_evicted_and_never_forecast(tmp_path: Path) -> None:
    folder = task(tmp_path, listing(3))
    steps(folder, 2)
    assert api.evict(folder, "action_result@1") == "action_result@1"
    assert leaving(folder) == {}
    steps(folder, 1)
    assert context_diff(folder, 3) == [
        DiffEntry("action_result@2", "entered", "added"),
        DiffEntry("action_result@1", "left", "evicted"),
    ]


def test_items_left_out_for_the_budget_are_forecast_as_dropped(tmp_path: Path) -> None:
    folder = task(tmp_path, listing(1), limits={"token_budget": {"current_state": 300}})
    big = " ".join(f"word{i}" for i in range(150))
    items = [
        {"type": "note", "key": f"n{i}", "step": 0, "content": f"{i}: {big}"} for i in (1, 2, 3)
    ]
    with folder.lock:
        folder.save_memory(wm.WorkingMemory.model_validate({"max_items": 5, "items": items}))
    ctx = api.preview_context(folder)
    assert "n1" not in ctx.memory_refs and "n3" in ctx.memory_refs  # the oldest go first
    dropped = leaving(folder)["n1"]
    assert dropped.reason == "dropped for budget"
    assert dropped.why == "left out of step 1's context to fit current_state's budget"
    assert "n3" not in leaving(folder)


def _folder_with(tmp_path: Path, content: object) -> TaskFolder:
    folder = make_task(tmp_path, [])
    item = {"type": "action_result", "step": 1, "content": content}
    note = {"type": "note", "key": "hint", "step": 1, "content": "plain words"}
    with folder.lock:
        folder.save_memory(wm.WorkingMemory.model_validate({"items": [item, note]}))
    return folder


def test_an_edit_keeps_structured_content_structured(tmp_path: Path) -> None:
    fields = {"action": "run_command", "result": "failure", "summary": "exit 1",
              "output": "line one\nline two\n"}  # fmt: skip
    folder = _folder_with(tmp_path, fields)
    form = api.memory_edit_form(folder, "action_result@1")
    assert form.shape == "mapping" and yaml.safe_load(form.text) == fields
    api.edit_memory(folder, "action_result@1", form.text.replace("exit 1", "exit 2"))
    stored = yaml.safe_load((folder.path / "working_memory.yaml").read_text())["items"][0]
    assert stored["content"] == {**fields, "summary": "exit 2"}

    api.edit_memory(folder, "hint", "summary: still text")  # a text item stays text
    assert folder.load_memory().items[1].content == "summary: still text"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("action: [unclosed", "not valid YAML at line 1"),
        ("just a sentence", "holds YAML fields (key: value lines) and must keep that shape"),
        ("- a\n- b", "holds YAML fields"),
    ],
)
def test_an_edit_that_would_lose_the_structure_saves_nothing(
    tmp_path: Path, text: str, message: str
) -> None:
    folder = _folder_with(tmp_path, {"action": "list_dir", "summary": "listed ."})
    before = (folder.path / "working_memory.yaml").read_text()
    with pytest.raises(ForgeError, match=message.replace("(", r"\(").replace(")", r"\)")):
        api.edit_memory(folder, "action_result@1", text)
    assert (folder.path / "working_memory.yaml").read_text() == before
    assert [r.kind for r in folder.log.iter_records()] == []


def test_a_list_stays_a_list(tmp_path: Path) -> None:
    folder = _folder_with(tmp_path, ["one", "two"])
    form = api.memory_edit_form(folder, "action_result@1")
    assert form.shape == "list" and "saved as a list" in form.says
    api.edit_memory(folder, "action_result@1", "- one\n- three\n")
    assert folder.load_memory().items[0].content == ["one", "three"]
    with pytest.raises(ForgeError, match="a YAML list"):
        api.parse_memory_edit("key: value", "list")
