"""Per-type caps and the usage tiers: fix_violation's context is held under 6,000 and says so,
task.yaml overrides the cap (a bad one is refused with the field named), and at 50/70/80/90% of
the cap the compiler compresses, drops optional parts, drops more and alerts, each logged as a
compression or an exclusion with its reason; the alert fires once per crossing."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from forgetui.cli import main
from forgetui.engine import api
from forgetui.engine.base.errors import ForgeError
from forgetui.engine.context import ContextInputs, compile_context, validate_context
from forgetui.engine.context.compiler import step_exclusions
from forgetui.engine.folder.memory import MemoryItem, WorkingMemory
from forgetui.engine.folder.records import ResultRecord
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.folder.task_spec import TaskSpec
from forgetui.engine.folder.task_state import TaskState
from forgetui.engine.step.executor import Executor

from .helpers import act, make_task, replay

TARGET = "cli/spec.py"


def fix_spec(**limits: object) -> TaskSpec:
    return TaskSpec.model_validate(
        {
            "id": "fix-help",
            "goal": "Give every click command a help text",
            "task_type": "fix_violation",
            "violation": f"{TARGET}:3 @click.command() without help",
            "target_files": [TARGET],
            **({"limits": limits} if limits else {}),
        }
    )


def tier_inputs(workspace: Path, cap: int) -> ContextInputs:
    """A fix_violation context that fits whole at any cap above its size: a small target file,
    a workspace tree, three unpinned notes and a tool result (oldest first) and a pinned note,
    three results."""
    (workspace / "cli").mkdir(exist_ok=True)
    (workspace / "docs").mkdir(exist_ok=True)
    (workspace / TARGET).write_text("".join(f"line_{i} = {i}\n" for i in range(1, 60)))
    notes = [
        MemoryItem(type="note", key=f"n{i}", content=f"finding {i} " * 30, step=i,
                   added_at="2025-01-01T00:00:00Z")
        for i in range(1, 4)
    ]  # fmt: skip
    output = {"action": "run_cmd", "result": "failure", "output": "FAILED test_x\n" * 40}
    notes.append(MemoryItem(type="action_result", step=4, content=output,
                            added_at="2025-01-01T00:00:00Z"))  # fmt: skip
    pinned = MemoryItem(type="note", key="keep", content="pinned fact", step=1, pinned=True,
                        added_at="2025-01-01T00:00:00Z")  # fmt: skip
    recent = [
        ResultRecord(step=n, at="2025-01-01T00:00:00Z", action="run_cmd", args={"cmd": "pytest"},
                     result="failure", summary="F" * 290)
        for n in (5, 6, 7)
    ]  # fmt: skip
    spec = fix_spec(max_tokens=cap)
    return ContextInputs(
        spec=spec,
        state=TaskState(task_id="fix-help", phase="fix_violation", step=7),
        memory=WorkingMemory(max_items=8, items=[*notes, pinned]),
        recent=recent,
        workspace=workspace,
    )


@pytest.fixture
def natural(tmp_path: Path) -> int:
    """The context's tokens with no tier acting (a cap it fills less than half of)."""
    ctx = compile_context(tier_inputs(tmp_path, 100_000))
    assert ctx.usage_tier == 0
    return ctx.request_tokens


def at_share(workspace: Path, tokens: int, percent: int, below: bool = False) -> ContextInputs:
    """Inputs whose cap puts `tokens` exactly at `percent` of it (or just under, `below`)."""
    cap = math.floor(tokens * 100 / percent)
    return tier_inputs(workspace, cap + 1 if below else cap)


def test_fix_violation_is_capped_at_6000_and_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert fix_spec().limits.max_tokens == 6000
    assert sum(fix_spec().limits.budgets().values()) == 6000
    assert TaskSpec(id="g", goal="g").limits.max_tokens == 8000
    folder = TaskFolder.create(tmp_path, fix_spec())
    written = yaml.safe_load((folder.path / "task.yaml").read_text())
    assert written["limits"]["max_tokens"] == 6000  # the file says the cap it runs under
    assert api.preview_context(folder).max_tokens == 6000
    assert main(["context", str(folder.path)]) == 0
    assert "of 6,000 tokens" in capsys.readouterr().out


def test_task_yaml_overrides_the_types_cap(tmp_path: Path) -> None:
    folder = TaskFolder.create(tmp_path, fix_spec(max_tokens=7000))
    reopened = api.open_task(folder.path)
    assert reopened.spec.limits.max_tokens == 7000
    assert api.preview_context(reopened).max_tokens == 7000


def test_a_bad_cap_is_refused_naming_the_file_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = TaskFolder.create(tmp_path, fix_spec())
    task_yaml = folder.path / "task.yaml"
    data = yaml.safe_load(task_yaml.read_text())
    data["limits"]["max_tokens"] = 50
    task_yaml.write_text(yaml.safe_dump(data))
    before = task_yaml.read_bytes()
    with pytest.raises(ForgeError) as refused:
        api.open_task(folder.path)
    assert "task.yaml" in str(refused.value) and "limits.max_tokens" in str(refused.value)
    assert main(["context", str(folder.path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "limits.max_tokens" in err[0]
    assert task_yaml.read_bytes() == before


def test_under_50_percent_nothing_acts(tmp_path: Path, natural: int) -> None:
    ctx = compile_context(at_share(tmp_path, natural, 50, below=True))
    assert ctx.usage_tier == 0
    assert not any("usage tier" in c for s in ctx.sections for c in s.compressions)
    assert ctx.request_tokens == natural


def test_from_50_percent_it_compresses_harder_and_says_why(tmp_path: Path, natural: int) -> None:
    inputs = at_share(tmp_path, natural, 50)
    ctx = compile_context(inputs)
    state = ctx.section("current_state")
    assert ctx.usage_tier == 50
    assert state.compressions[0].startswith("usage tier 50% (context at 50% of its")
    assert "1 older tool result collapsed to one line" in state.compressions
    assert ctx.request_tokens < natural  # it acted: the tool result is one line now
    below = compile_context(at_share(tmp_path, natural, 50, below=True))

    def lines_of_the_result(text: str) -> int:
        return sum("FAILED test_x" in line for line in text.splitlines())

    assert lines_of_the_result(below.section("current_state").text) > 1
    assert lines_of_the_result(state.text) == 1
    assert "workspace_tree" in state.text  # optional parts stay until 70%
    assert ctx.request_tokens <= ctx.max_tokens and validate_context(ctx, inputs) == []


def test_from_70_percent_optional_parts_go_logged_as_exclusions(
    tmp_path: Path, natural: int
) -> None:
    below = compile_context(at_share(tmp_path, natural, 70, below=True))
    assert below.usage_tier == 50 and "workspace_tree" in below.section("current_state").text
    inputs = at_share(tmp_path, natural, 70)
    ctx = compile_context(inputs)
    state = ctx.section("current_state")
    assert ctx.usage_tier == 70
    assert any(c.startswith("usage tier 70%") for c in state.compressions)
    assert "workspace_tree" not in state.text
    assert len(ctx.memory_refs) == 3  # the newest 2 unpinned items and the pinned one
    out = {e.ref: e for e in step_exclusions(ctx, inputs.memory, [])}
    assert len(out) == 2
    for exclusion in out.values():
        assert exclusion.reason == "dropped for budget"
        assert exclusion.strategy is not None and exclusion.strategy.startswith("usage tier 70%")
    assert ctx.request_tokens <= ctx.max_tokens and validate_context(ctx, inputs) == []


def test_from_80_percent_more_goes(tmp_path: Path, natural: int) -> None:
    below = compile_context(at_share(tmp_path, natural, 80, below=True))
    assert below.usage_tier == 70
    inputs = at_share(tmp_path, natural, 80)
    ctx = compile_context(inputs)
    assert ctx.usage_tier == 80
    recent = ctx.section("recent_actions")
    assert recent.compressions[0].startswith("usage tier 50%")
    assert "recent actions dropped to 2" in recent.compressions
    assert "lists capped at 2 items" in ctx.section("current_state").compressions
    assert len(ctx.memory_refs) == 2  # the newest unpinned item and the pinned one
    assert ctx.request_tokens <= ctx.max_tokens and validate_context(ctx, inputs) == []


def test_at_90_percent_the_alert_fires_on_the_crossing_only(tmp_path: Path, natural: int) -> None:
    inputs = at_share(tmp_path, natural, 90)
    assert compile_context(at_share(tmp_path, natural, 90, below=True)).usage_tier == 80
    crossing = compile_context(replace(inputs, previous_tier=80))
    assert crossing.usage_tier == 90 and crossing.alert is not None
    assert "90% of its" in crossing.alert
    notes = crossing.section("current_state").compressions
    assert any(note.startswith("operator alerted: ") for note in notes)  # into the log with it
    staying = compile_context(replace(inputs, previous_tier=90))
    assert staying.alert is None
    kept = staying.section("current_state").compressions
    assert not any(note.startswith("operator alerted") for note in kept)
    assert compile_context(inputs).alert is None  # a preview alerts no one


def test_a_run_alerts_once_while_it_stays_above_90(tmp_path: Path) -> None:
    script = [act("list_dir", path=".") for _ in range(4)]
    folder = make_task(tmp_path, script, limits={"max_tokens": 1000})
    events: list[str] = []
    with Executor(folder, replay(folder), lambda e: events.append(e.stage)) as executor:
        for _ in range(3):
            executor.step()
    assert events.count("alert") == 1
    saved = [yaml.safe_load(folder.context_path(n).read_text()) for n in (1, 2, 3)]
    tiers = [s["usage_tier"] for s in saved]
    assert tiers[-1] == 90 and tiers.count(90) >= 2  # it stays there after crossing
    crossed = tiers.index(90) + 1
    intents = {r.step: r for r in folder.log.iter_backwards(("intent",))}
    alerted = [
        n for n in (1, 2, 3)
        if any(c.startswith("operator alerted") for c in intents[n].compressions["current_state"])
    ]  # fmt: skip
    assert alerted == [crossed]  # in the log once, with the step that crossed


def test_status_says_the_cap_the_last_context_was_held_under(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = make_task(
        tmp_path, [act("list_dir", path=".")], task_type="fix_violation", phase="fix_violation",
        violation="cli/spec.py:3 @click.command() without help",
    )  # fmt: skip
    with Executor(folder, replay(folder)) as executor:
        executor.step()
    sent = yaml.safe_load(folder.context_path(1).read_text())
    assert main(["status", str(folder.path)]) == 0
    total = sent["total_tokens"] + (sent.get("tool_tokens") or 0)
    assert f"context: {total:,} of 6,000 tokens" in capsys.readouterr().out


def test_run_prints_the_alert_once_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = [act("list_dir", path=".") for _ in range(4)]
    folder = make_task(tmp_path, script, limits={"max_tokens": 1000})
    assert main(["run", str(folder.path), "--max-steps", "3", "--json"]) in (0, 1)
    err = capsys.readouterr().err
    alerts = [line for line in err.splitlines() if "of its 1,000-token cap" in line]
    assert len(alerts) == 1 and alerts[0].startswith("forgetui: step ")
