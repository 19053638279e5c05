"""Every exclusion with its true reason: a run whose steps really push items out of a full memory
(FIFO), let a loaded file's term run out, have the operator evict one, drop two for current_state's
budget and cut a 1,500-line file to fit. The context each following step saved, its intent record
(`log --json`) and the context diff name each departure with the reason it happened for, recorded
where it happened: a budget drop is never "evicted", nor "pushed out" once memory has moved on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from forgetui.cli import main
from forgetui.engine import api
from forgetui.engine.context.compiler import step_exclusions
from forgetui.engine.folder import memory as wm
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.history.diff import DiffEntry, context_diff
from forgetui.engine.operator.verbs import answer
from forgetui.engine.step.executor import Executor

from .helpers import act, make_task, replay

BUDGET = 240  # current_state's: the big file and two long notes are cut, then crowd it out
NOTE = "remember: " + " ".join(f"fact{i}" for i in range(120))
# the squeezes current_state went through before it dropped its oldest unpinned items
DROPPED = (
    f"current_state over its {BUDGET}-token budget: oldest unpinned items dropped first, after "
    "first and last lines of file content kept, errors and long texts cut to 500 characters, "
    "lists capped at 2 items, workspace tree dropped"
)  # no older tool result is shown there, so none was collapsed


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> TaskFolder:
    return excluding_run(tmp_path_factory.mktemp("exclusions"))


def excluding_run(tmp: Path) -> TaskFolder:
    """Nine steps, memory of 4 items: load big.py (shown at steps 2-4, excerpted), then list a
    folder per step. After step 3 the operator evicts action_result@2; after steps 5 and 6 adds
    a long note. (The workbench's test of the diff view runs it too.)"""
    script = [act("load_context", item="full_file:big.py")]
    script += [act("list_dir", path=f"d{n}") for n in range(1, 9)]
    folder = make_task(tmp, script, limits={"token_budget": {"current_state": BUDGET}})
    for n in range(1, 9):
        (folder.workspace / f"d{n}").mkdir()
    lines = (f"value_{i} = {i} * {i}  # line {i}\n" for i in range(1, 1501))
    (folder.workspace / "big.py").write_text("".join(lines))
    with folder.lock:
        folder.save_memory(wm.WorkingMemory(max_items=4))
    operator = {
        3: lambda: api.evict(folder, "action_result@2"),
        5: lambda: api.add_note(folder, NOTE),
        6: lambda: api.add_note(folder, NOTE),
    }
    with Executor(folder, replay(folder)) as executor:
        for step in range(1, 10):
            executor.step()
            if step in operator:
                operator[step]()
    return folder


def exclusions(folder: TaskFolder, step: int) -> dict[str, dict[str, Any]]:
    """The exclusions step `step`'s context file recorded, by ref."""
    saved = yaml.safe_load(folder.context_path(step).read_text())
    return {entry["ref"]: entry for entry in saved["exclusions"]}


def left(folder: TaskFolder, step: int) -> dict[str, DiffEntry]:
    return {e.ref: e for e in context_diff(folder, step) if e.change == "left"}


def test_a_long_file_cut_to_fit_is_saved_as_a_compression(run: TaskFolder) -> None:
    saved = yaml.safe_load(run.context_path(2).read_text())
    assert saved["compressions"] == {"current_state": ["file content: first and last lines kept"]}
    assert saved["phase"] == "execution"
    assert saved["exclusions"] == []  # recorded, and nothing was out
    assert "lines omitted" in saved["messages"][1]["content"]


def test_the_operators_evict_is_recorded_between_steps(run: TaskFolder) -> None:
    assert exclusions(run, 4)["action_result@2"] == {
        "ref": "action_result@2", "reason": "evicted", "since_step": 3,
        "detail": "by the operator",
    }  # fmt: skip
    assert left(run, 4)["action_result@2"].reason == "evicted"


def test_a_loaded_file_expires_at_the_end_of_its_term(run: TaskFolder) -> None:
    assert exclusions(run, 5)["full_file:big.py"] == {
        "ref": "full_file:big.py", "reason": "expired", "since_step": 5,
        "detail": "its term of 3 steps is over",
    }  # fmt: skip
    assert left(run, 5)["full_file:big.py"].detail == "its term of 3 steps is over"


def test_fifo_names_what_pushed_each_item_out(run: TaskFolder) -> None:
    # the operator's note at step 5, then step 6's result and the second note
    assert exclusions(run, 6)["action_result@1"]["detail"] == (
        "memory holds at most 4 items: note@5 pushed it out"
    )
    seven = exclusions(run, 7)
    assert (seven["action_result@3"]["reason"], seven["action_result@3"]["since_step"]) == (
        "pushed out", 6,
    )  # fmt: skip
    assert seven["action_result@3"]["detail"].endswith("action_result@6 pushed it out")
    assert seven["action_result@4"]["detail"].endswith("note@6 pushed it out")


def test_budget_drops_say_so_with_the_squeeze_even_after_memory_moved_on(run: TaskFolder) -> None:
    # note@5 was held but left out for the budget at steps 7 and 8 (action_result@5, which
    # its recent-actions line shows whole, costs nothing and is never the one dropped); it
    # has been pushed out of memory since, which the old inference took for the reason
    ref = "note@5"
    for step in (7, 8):
        assert exclusions(run, step)[ref] == {
            "ref": ref, "reason": "dropped for budget", "since_step": step, "strategy": DROPPED,
        }  # fmt: skip
    assert "action_result@5" not in exclusions(run, 7)
    entry = left(run, 7)[ref]
    assert (entry.reason, entry.detail) == ("dropped for budget", DROPPED)
    assert entry.describe() == f"left {ref} (dropped for budget: {DROPPED})"
    assert all(item.ref != "note@5" for item in run.load_memory().items)
    saved = yaml.safe_load(run.context_path(7).read_text())
    assert "1 memory item omitted" in saved["compressions"]["current_state"]


def test_no_budget_drop_is_ever_called_evicted(run: TaskFolder) -> None:
    evicted = [
        (step, ref)
        for step in range(2, 10)
        for ref, entry in exclusions(run, step).items()
        if entry["reason"] == "evicted"
    ]
    assert evicted == [(4, "action_result@2")]
    diff_evicted = [
        (step, e.ref) for step in range(2, 10) for e in context_diff(run, step)
        if e.reason == "evicted"
    ]  # fmt: skip
    assert diff_evicted == [(4, "action_result@2")]


def test_departures_wait_in_state_until_the_next_context_is_saved(run: TaskFolder) -> None:
    # step 9's result pushed action_result@6 out: step 10's context will say so
    state = yaml.safe_load((run.path / "state.yaml").read_text())
    assert state["departed"] == [
        {"ref": "action_result@6", "reason": "pushed out", "since_step": 9,
         "detail": "memory holds at most 4 items: action_result@9 pushed it out"},
    ]  # fmt: skip


def test_log_json_carries_them_on_each_step(
    run: TaskFolder, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["log", str(run.path), "--json"]) == 0
    entries = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    steps = {entry["step"]: entry for entry in entries if "action" in entry}
    assert "exclusions" not in steps[1] and "compressions" not in steps[1]  # absent when empty
    assert steps[2]["compressions"] == {
        "current_state": ["file content: first and last lines kept"]
    }
    for step in range(2, 10):
        assert steps[step].get("exclusions", []) == list(exclusions(run, step).values())
    reasons = {e["reason"] for step in steps.values() for e in step.get("exclusions", [])}
    assert reasons == {"evicted", "expired", "pushed out", "dropped for budget"}


def test_context_step_json_and_text_show_them(
    run: TaskFolder, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["context", str(run.path), "--step", "7", "--json"]) == 0
    saved = json.loads(capsys.readouterr().out)
    assert saved["exclusions"][-1]["ref"] == "note@5" and saved["phase"] == "execution"
    assert main(["context", str(run.path), "--step", "7"]) == 0
    text = capsys.readouterr().out
    assert f"left note@5 (dropped for budget: {DROPPED})" in text
    assert "compressed current_state (file content: first and last lines kept; errors and" in text


def test_an_older_context_without_them_is_still_inferred(run: TaskFolder, tmp_path: Path) -> None:
    path = run.context_path(4)
    saved = yaml.safe_load(path.read_text())
    old = {key: value for key, value in saved.items() if key != "exclusions"}
    try:
        path.write_text(yaml.safe_dump(old, sort_keys=False))
        assert left(run, 4)["action_result@2"] == DiffEntry("action_result@2", "left", "evicted")
        assert left(run, 4)["action_result@2"].detail == ""  # inferred: no recorded rule
    finally:
        path.write_text(yaml.safe_dump(saved, sort_keys=False))


def test_departures_kept_in_state_are_bounded() -> None:
    """One entry per item, its latest departure; the newest KEEP_DEPARTED of them."""
    item = wm.MemoryItem(type="note", content="x")
    gone = [wm.Departure(f"note@{n}", "pushed out", item, "full") for n in range(35)]
    departed = wm.departed_with([], gone, 7)
    assert [d.ref for d in departed] == [f"note@{n}" for n in range(15, 35)]
    again = wm.departed_with(departed, [wm.Departure("note@20", "evicted", item)], 8)
    assert len(again) == wm.KEEP_DEPARTED and again[-1].reason == "evicted"
    assert [d.ref for d in again].count("note@20") == 1


@pytest.mark.parametrize(
    ("budget", "pinned"),
    [(500, "shown"), (150, "current_state over its 150-token budget: pinned items omitted after "
                           "every unpinned one (the step must not go out)")],
)  # fmt: skip
def test_the_strategy_names_every_squeeze_tried_first(
    tmp_path: Path, budget: int, pinned: str
) -> None:
    """A 1,500-line target file excerpted, three long notes, the newest pinned: the unpinned
    two go for the budget after the table's earlier rows; the pinned one only when nothing
    else is left, and then the step must not go out."""
    folder = make_task(
        tmp_path, [], target_files=["big.py"],
        limits={"token_budget": {"current_state": budget}},
    )  # fmt: skip
    (folder.workspace / "big.py").write_text("".join(f"v_{i} = {i}\n" for i in range(1, 1501)))
    words = " ".join(f"word{i}" for i in range(150))
    notes = [
        wm.MemoryItem(type="note", key=f"n{i}", step=0, content=f"{i}: {words}", pinned=i == 3)
        for i in (1, 2, 3)
    ]
    with folder.lock:
        folder.save_memory(wm.WorkingMemory(items=notes))
    ctx = api.preview_context(folder)
    found = {e.ref: e for e in step_exclusions(ctx, folder.load_memory(), [])}
    assert {e.reason for e in found.values()} == {"dropped for budget"}
    squeezes = (
        f"current_state over its {budget}-token budget: oldest unpinned items dropped first, "
        "after first and last lines of file content kept, errors and long texts cut to 500 "
        "characters, lists capped at 2 items, workspace tree dropped"
    )
    assert found["n1"].strategy == found["n2"].strategy == squeezes
    assert (found["n3"].strategy if "n3" in found else "shown") == pinned
    assert bool(ctx.over_budget) == ("n3" in found)


def test_an_expiry_at_a_step_that_escalated_first_reaches_the_next_saved_context(
    tmp_path: Path,
) -> None:
    script = [act("load_context", item="full_file:a.txt"), act("list_dir", path=".")]
    script += [act("search", pattern=f"p{n}") for n in range(4)]
    folder = make_task(tmp_path, script, limits={"max_steps": 4})
    (folder.workspace / "a.txt").write_text("alpha\n")
    with Executor(folder, replay(folder)) as executor:
        for _ in range(4):
            executor.step()
        report = executor.step()  # step 5: the file's term ends, then the step limit stops it
        assert report.result == "escalated" and not report.model_called
        assert [(d.ref, d.reason) for d in folder.load_state().departed] == [
            ("full_file:a.txt", "expired"),
        ]  # fmt: skip
        answer(folder, "continue")
        executor.step()
    assert exclusions(folder, 5)["full_file:a.txt"]["reason"] == "expired"
    assert folder.load_state().departed == []  # recorded; five results fit a memory of 5
