"""The compiled context: six sections, two messages, budgets that hold, compression in order."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml

from forgetui.engine.base.tokens import counter_for
from forgetui.engine.context import (
    CompiledContext,
    ContextInputs,
    compile_context,
    validate_context,
)
from forgetui.engine.folder.memory import MemoryItem, WorkingMemory
from forgetui.engine.folder.records import ResultRecord
from forgetui.engine.folder.task_spec import (
    DEFAULT_BUDGETS,
    SECTION_NAMES,
    TYPE_BUDGETS,
    Plan,
    PlanTask,
    Subtask,
    TaskSpec,
)
from forgetui.engine.folder.task_state import (
    CheckResult,
    CommandRun,
    Decision,
    Escalation,
    LoopGuardState,
    Probe,
    Progress,
    TaskState,
    Verification,
)

TARGET = "cli/commands/spec.py"


def big_source(lines: int = 3000) -> str:
    return "".join(f"line_{i + 1} = compute({i})  # statement {i + 1}\n" for i in range(lines))


def make_spec(**overrides: Any) -> TaskSpec:
    fields: dict[str, Any] = {
        "id": "fix-help",
        "goal": "Give every click command a help text",
        "task_type": "fix_violation",
        "success_criteria": ["every command has help=", "tests pass"],
        "constraints": ["do not change command behaviour"],
        "violation": f"{TARGET}:3 @click.command() without help",
        "check_definition": {"kind": "regex", "must_not_match": "@click.command\\(\\)"},
        "target_files": [TARGET],
        "checks": [
            {"name": "tests", "kind": "command", "cmd": ["pytest", "-q"]},
            {
                "name": "help-param",
                "kind": "regex",
                "path": "cli/**/*.py",
                "must_not_match": "@click.command\\(\\)",
            },
        ],
        # the budgets these tests were written for, under a cap the usage tiers never reach:
        # they are about fitting budgets (tiers: test_usage_tiers.py)
        "limits": {"max_tokens": 17000, "token_budget": dict(DEFAULT_BUDGETS)},
    }
    if "limits" in overrides:  # a test's own limits, under the same cap unless they set one
        overrides["limits"] = {"max_tokens": 17000, **overrides["limits"]}
    fields.update(overrides)
    return TaskSpec(**fields)


def make_state(**overrides: Any) -> TaskState:
    fields: dict[str, Any] = {"task_id": "fix-help", "phase": "fix_violation", "step": 7}
    fields.update(overrides)
    return TaskState(**fields)


def note(text: str, step: int = 5, **extra: Any) -> MemoryItem:
    return MemoryItem(
        type="note", content=text, step=step, added_at="2025-01-01T00:00:00Z", **extra
    )


def loaded(key: str, content: str, step: int = 6, **extra: Any) -> MemoryItem:
    return MemoryItem(
        type="loaded_context",
        key=key,
        content=content,
        step=step,
        added_at="2025-01-01T00:00:00Z",
        **extra,
    )


def result(step: int, action: str = "edit_file", **extra: Any) -> ResultRecord:
    fields: dict[str, Any] = {
        "step": step,
        "at": "2025-01-01T00:00:00Z",
        "action": action,
        "args": {"path": TARGET},
        "result": "success",
        "summary": f"changed {TARGET} at step {step}",
    }
    fields.update(extra)
    return ResultRecord(**fields)


def make_inputs(
    workspace: Path,
    *,
    spec: TaskSpec | None = None,
    state: TaskState | None = None,
    items: Sequence[MemoryItem] = (),
    recent: Sequence[ResultRecord] = (),
    model: str | None = None,
    max_items: int = 5,
) -> ContextInputs:
    return ContextInputs(
        spec=spec or make_spec(),
        state=state or make_state(),
        memory=WorkingMemory(max_items=max(max_items, len(items)), items=list(items)),
        recent=list(recent),
        workspace=workspace,
        model=model,
    )


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    target = tmp_path / TARGET
    target.parent.mkdir(parents=True)
    target.write_text(
        "import click\n\n\n@click.command()\ndef spec():\n    click.echo('spec')\n", "utf-8"
    )
    return tmp_path


def user_message(ctx: CompiledContext) -> str:
    return ctx.messages[1]["content"]


def assert_within_budgets(ctx: CompiledContext, inputs: ContextInputs) -> None:
    """The hard guarantee, counted from the real texts."""
    counter = counter_for(inputs.model or inputs.spec.model)
    budgets = inputs.spec.limits.budgets()
    for section in ctx.sections:
        assert counter.count(section.text) == section.tokens <= section.budget
        assert section.budget <= budgets[section.name]
    system, user = (message["content"] for message in ctx.messages)
    assert counter.count(system) + counter.count(user) == ctx.total_tokens
    assert ctx.total_tokens <= ctx.max_tokens == inputs.spec.limits.max_tokens


# -- shape


def test_six_sections_and_exactly_two_messages(workspace: Path) -> None:
    inputs = make_inputs(workspace, recent=[result(7)])
    ctx = compile_context(inputs)
    assert [section.name for section in ctx.sections] == list(SECTION_NAMES)
    assert [message["role"] for message in ctx.messages] == ["system", "user"]
    assert ctx.messages[0]["content"] == ctx.section("system_prompt").text
    assert ctx.step == 8 and ctx.format == "yaml"
    assert ctx.over_budget == ()
    assert validate_context(ctx, inputs) == []
    assert_within_budgets(ctx, inputs)


def test_yaml_user_message_has_a_key_per_section(workspace: Path) -> None:
    inputs = make_inputs(
        workspace,
        items=[note("the help text style is one sentence")],
        recent=[result(6), result(7, error="boom")],
        state=make_state(
            decisions=[
                Decision(step=3, question="Short help?", answer="Yes.", at="2025-01-01T00:00:00Z")
            ]
        ),
    )
    data = yaml.safe_load(user_message(compile_context(inputs)))
    assert list(data) == list(SECTION_NAMES[1:])
    frame = data["task_frame"]
    assert frame["id"] == "fix-help" and frame["phase"] == "fix_violation"
    assert frame["success_criteria"] == ["every command has help=", "tests pass"]
    state = data["current_state"]
    assert state["violation"] == f"{TARGET}:3 @click.command() without help"
    assert state["check_definition"]["must_not_match"] == "@click.command\\(\\)"
    assert state["target_files"][0]["path"] == TARGET
    assert "   4| @click.command()" in state["target_files"][0]["excerpt"]
    # the ref says the type; `pinned` shows only when it is
    assert state["memory"] == [{"ref": "note@5", "content": "the help text style is one sentence"}]
    assert state["decisions"] == [{"step": 3, "question": "Short help?", "answer": "Yes."}]
    # the summary names the file: the line says it once
    assert data["recent_actions"][-1].startswith(f"step 7: edit_file -> success: changed {TARGET}")
    assert data["recent_actions"][-1].endswith("| error: boom")
    assert data["verification_status"]["ready_for_completion"] is False
    assert any(line.startswith("edit_file(path, old, new)") for line in data["available_actions"])


def test_xml_rendering_uses_tags(workspace: Path) -> None:
    inputs = make_inputs(
        workspace,
        spec=make_spec(context_format="xml"),
        items=[note("keep the help short"), loaded("full_file:b.py", "x = 1\ny = 2\n")],
        recent=[result(7)],
    )
    ctx = compile_context(inputs)
    user = user_message(ctx)
    assert ctx.format == "xml"
    assert user.startswith("<task_context>\n<task_frame>\n<id>fix-help</id>")
    assert user.endswith("</tools>\n</task_context>\n")
    for tag in (
        "<current_state>",
        "<memory>",
        "<decisions",
        "<recent_actions>",
        "<verification_status>",
        "<tools>",
    ):
        if tag != "<decisions":
            assert tag in user
    assert '<item ref="note@5">keep the help short</item>' in user
    assert '<item ref="full_file:b.py">' in user
    assert f'<file path="{TARGET}" lines="6">\n   1| import click' in user
    assert ctx.messages[0]["content"].startswith("<role>")
    assert '<context format="xml">' in ctx.messages[0]["content"]
    assert validate_context(ctx, inputs) == []
    assert_within_budgets(ctx, inputs)


@pytest.mark.parametrize("fmt", ["yaml", "xml"])
def test_system_prompt_is_xml_structured_in_both_renderings(workspace: Path, fmt: str) -> None:
    ctx = compile_context(make_inputs(workspace, spec=make_spec(context_format=fmt)))
    system = ctx.messages[0]["content"]
    for tag in (
        "<role>",
        '<phase name="fix_violation">',
        "<purpose>",
        "<rules>",
        "<response_format>",
        "```yaml",
    ):
        assert tag in system
    assert "conform to the check definition" in system


def test_system_prompt_follows_the_phase(workspace: Path) -> None:
    generic = make_spec(task_type="generic", violation=None, check_definition=None)
    planning = compile_context(
        make_inputs(workspace, spec=generic, state=make_state(phase="planning"))
    ).messages[0]["content"]
    execution = compile_context(
        make_inputs(workspace, spec=generic, state=make_state(phase="execution"))
    ).messages[0]["content"]
    assert '<phase name="planning">' in planning and "Change no files" in planning
    assert "write_file" not in planning.split("<actions>")[1].split("</actions>")[0]
    assert '<phase name="execution">' in execution and "current subtask" in execution
    assert "write_file" in execution.split("<actions>")[1]


def test_a_tight_system_budget_keeps_the_answer_format(workspace: Path) -> None:
    spec = make_spec(limits={"token_budget": {"system_prompt": 300}})
    ctx = compile_context(make_inputs(workspace, spec=spec))
    system = ctx.section("system_prompt")
    assert system.compressions == ("rules and action list dropped",)
    assert "<response_format>" in system.text and "<rules>" not in system.text
    assert ctx.over_budget == ()


def test_to_json_has_the_public_shape(workspace: Path) -> None:
    ctx = compile_context(make_inputs(workspace))
    data = ctx.to_json()
    assert {
        "step",
        "total_tokens",
        "max_tokens",
        "format",
        "sections",
        "messages",
        "over_budget",
    } <= set(data)
    assert [s["name"] for s in data["sections"]] == list(SECTION_NAMES)
    assert {"name", "tokens", "budget", "text"} <= set(data["sections"][0])
    assert data["messages"] == [dict(m) for m in ctx.messages]
    assert data["over_budget"] == []


# -- what current_state shows


def test_memory_items_and_the_violation_are_in_the_user_message(workspace: Path) -> None:
    items = [
        note("help must be one sentence"),
        loaded("full_file:cli/main.py", "import click\n\nmain = click.Group()\n", pinned=True),
        MemoryItem(
            type="action_result",
            step=7,
            content={"action": "run_cmd", "result": "failure", "summary": "2 tests failed"},
        ),
    ]
    inputs = make_inputs(workspace, items=items)
    ctx = compile_context(inputs)
    user = user_message(ctx)
    assert "@click.command() without help" in user
    assert "help must be one sentence" in user
    assert "main = click.Group()" in user
    assert "2 tests failed" in user
    assert ctx.memory_refs == ("note@5", "full_file:cli/main.py", "action_result@7")


def test_expired_memory_items_are_not_shown(workspace: Path) -> None:
    items = [note("old news", step=2, expires_after_steps=3), note("fresh", step=7)]
    ctx = compile_context(make_inputs(workspace, items=items))
    assert "old news" not in user_message(ctx)
    assert ctx.memory_refs == ("note@7",)


def test_task_type_schemas(workspace: Path) -> None:
    feature = make_spec(
        task_type="implement_feature",
        violation=None,
        check_definition=None,
        spec="Add `mathx.mean(values)`.\nRaise ValueError when empty.",
    )
    data = yaml.safe_load(
        user_message(
            compile_context(
                make_inputs(workspace, spec=feature, state=make_state(phase="implement_red"))
            )
        )
    )
    assert data["current_state"]["spec"].startswith("Add `mathx.mean(values)`.")
    assert "violation" not in data["current_state"]

    tests = make_spec(
        task_type="write_tests",
        violation=None,
        check_definition=None,
        test_requirements=["cover empty input"],
        test_patterns=["tests/test_*.py"],
    )
    data = yaml.safe_load(
        user_message(
            compile_context(
                make_inputs(workspace, spec=tests, state=make_state(phase="write_tests"))
            )
        )
    )
    assert data["current_state"]["test_requirements"] == ["cover empty input"]
    assert data["current_state"]["test_patterns"] == ["tests/test_*.py"]

    plan = Plan(
        goal="ship it",
        tasks=[
            PlanTask(
                title="build",
                subtasks=[
                    Subtask(title="write module", status="done"),
                    Subtask(title="write tests"),
                ],
            )
        ],
    )
    generic = make_spec(
        task_type="generic",
        violation=None,
        check_definition=None,
        inputs={"issue": 42},
        target_files=[],
    )
    state = make_state(phase="execution", plan=plan)
    data = yaml.safe_load(
        user_message(compile_context(make_inputs(workspace, spec=generic, state=state)))
    )
    assert data["current_state"]["inputs"] == {"issue": 42}
    assert data["current_state"]["plan"]["steps"] == [
        "1. build",
        "1.1 [x] write module",
        "1.2 [ ] write tests  <- current",
    ]


def test_progress_scratchpad_probe_blocked_and_escalation(workspace: Path) -> None:
    state = make_state(
        progress=Progress(
            objective="fix spec.py",
            completed=[f"did {i}" for i in range(25)],
            pending=["run tests"],
        ),
        scratchpad=["spec.py has 3 commands"],
        probe=Probe(
            files_written=[TARGET],
            recent_commands=[CommandRun(cmd="pytest -q", exit_code=1, step=6)],
            last_errors=["E   AssertionError"],
        ),
        loop_guard=LoopGuardState(blocked=['read_file{"path": "x"}']),
        pending_escalation=Escalation(
            reason="agent",
            question="Which wording?",
            options=["short", "long"],
            step=7,
            raised_at="2025-01-01T00:00:00Z",
        ),
    )
    data = yaml.safe_load(user_message(compile_context(make_inputs(workspace, state=state))))
    current = data["current_state"]
    assert current["progress"]["objective"] == "fix spec.py"
    assert current["progress"]["completed"] == ["... and 15 earlier"] + [
        f"did {i}" for i in range(15, 25)
    ]
    assert current["scratchpad"] == ["spec.py has 3 commands"]
    assert current["probe"]["recent_commands"] == ["pytest -q -> exit 1 (step 6)"]
    assert current["blocked"] == ['read_file{"path": "x"}']
    assert current["pending_escalation"]["options"] == ["short", "long"]


def test_target_files_outside_the_workspace_or_missing_are_not_read(
    workspace: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    secret = tmp_path_factory.mktemp("elsewhere") / "secret.txt"
    secret.write_text("TOP SECRET", "utf-8")
    spec = make_spec(target_files=[TARGET, "nope.py", str(secret), "../" * 8 + str(secret)])
    user = user_message(compile_context(make_inputs(workspace, spec=spec)))
    assert "TOP SECRET" not in user
    files = yaml.safe_load(user)["current_state"]["target_files"]
    assert [f.get("status") for f in files] == [
        None,
        "missing",
        "outside the workspace",
        "outside the workspace",
    ]


def test_recent_actions_show_the_last_three_one_line_each(workspace: Path) -> None:
    records = [result(step) for step in range(1, 11)]
    records[-1] = result(10, result="failure", error="E" * 900)
    data = yaml.safe_load(user_message(compile_context(make_inputs(workspace, recent=records))))
    lines = data["recent_actions"]
    assert [line.split(":")[0] for line in lines] == ["step 8", "step 9", "step 10"]
    assert all("\n" not in line for line in lines)
    assert "[... 400 more characters cut]" in lines[-1]


def test_verification_status_lists_checks(workspace: Path) -> None:
    state = make_state(
        verification=Verification(
            checked_at="2025-01-01T00:00:00Z",
            step=7,
            ready_for_completion=False,
            checks={
                "tests": CheckResult(
                    passing=False, passed=3, total=5, changed_at_step=6, details="2 failed"
                )
            },
        )
    )
    data = yaml.safe_load(user_message(compile_context(make_inputs(workspace, state=state))))
    status = data["verification_status"]
    assert status["ready_for_completion"] is False
    assert status["checks"] == [
        "tests: failing, 3/5 tests, since step 6 (2 failed)",
        "help-param: not run",
    ]


def test_available_actions_follow_the_phase(workspace: Path) -> None:
    spec = make_spec(task_type="generic", violation=None, check_definition=None)
    data = yaml.safe_load(
        user_message(
            compile_context(make_inputs(workspace, spec=spec, state=make_state(phase="planning")))
        )
    )
    names = [line.split("(")[0] for line in data["available_actions"]]
    assert "read_file" in names and "complete" in names
    assert "write_file" not in names and "run_cmd" not in names


# -- compression


def test_a_3000_line_target_file_is_excerpted_within_budget(workspace: Path) -> None:
    (workspace / TARGET).write_text(big_source(3000), "utf-8")
    inputs = make_inputs(workspace)
    ctx = compile_context(inputs)
    state = ctx.section("current_state")
    assert "file content: first and last lines kept" in state.compressions
    excerpt = yaml.safe_load(user_message(ctx))["current_state"]["target_files"][0]["excerpt"]
    lines = excerpt.split("\n")
    assert lines[0] == "   1| line_1 = compute(0)  # statement 1"
    assert lines[-1] == "3000| line_3000 = compute(2999)  # statement 3000"
    assert any(re.fullmatch(r"# \.\.\. \d+ lines omitted \.\.\.", line) for line in lines)
    assert state.tokens > 0.9 * state.budget  # the room is used
    assert validate_context(ctx, inputs) == []
    assert_within_budgets(ctx, inputs)


def test_unpinned_memory_is_compressed_before_pinned(workspace: Path) -> None:
    body = "".join(f"row {i}: value {i * i}\n" for i in range(300))
    items = [loaded("full_file:a.txt", body, pinned=True), loaded("full_file:b.txt", body)]
    # room for one copy in full and an excerpt of the other
    budget = counter_for(None).count(body) + 800
    spec = make_spec(limits={"token_budget": {"current_state": budget}})
    inputs = make_inputs(workspace, spec=spec, items=items)
    ctx = compile_context(inputs)
    memory = yaml.safe_load(user_message(ctx))["current_state"]["memory"]
    pinned, unpinned = memory
    assert pinned["ref"] == "full_file:a.txt" and pinned["content"] == body.strip()
    assert "lines omitted" in unpinned["content"]
    assert unpinned["content"].split("\n")[-1] == "row 299: value 89401"
    assert ctx.over_budget == ()
    assert_within_budgets(ctx, inputs)


def test_unpinned_items_are_dropped_oldest_first_with_a_line(workspace: Path) -> None:
    # even cut to 500 characters, twelve notes do not fit
    items = [note(f"note {i}: " + "detail " * 300, step=i) for i in range(1, 13)]
    items.append(note("pinned guidance", step=13, pinned=True))
    spec = make_spec(limits={"token_budget": {"current_state": 900}})
    inputs = make_inputs(workspace, spec=spec, items=items)
    ctx = compile_context(inputs)
    memory = yaml.safe_load(user_message(ctx))["current_state"]["memory"]
    shown = [entry["ref"] for entry in memory if isinstance(entry, dict)]
    assert shown[-1] == "note@13" and "note@1" not in shown
    dropped = 12 - (len(shown) - 1)
    assert dropped > 1 and f"{dropped} memory items omitted (oldest first)" in memory
    assert shown[:-1] == [f"note@{i}" for i in range(1 + dropped, 13)]
    assert ctx.memory_refs == tuple(shown)
    assert_within_budgets(ctx, inputs)


def test_the_file_just_read_stays_whole_while_older_results_collapse(workspace: Path) -> None:
    """What the agent read at the step just taken is what its next step works from: when
    current_state runs over, older tool results go to one line first, and the newest keeps
    every line until nothing else is left to give."""
    read = "".join(f"def handler_{i}(event):  # line {i}\n" for i in range(1, 121))
    items = [
        MemoryItem(type="action_result", step=step,
                   content={"action": "read_file", "result": "success", "output": read})
        for step in (5, 6, 7)
    ]  # fmt: skip
    spec = make_spec(limits={"token_budget": {"current_state": 2600}})
    ctx = compile_context(make_inputs(workspace, spec=spec, state=make_state(step=7), items=items))
    state = ctx.section("current_state")
    assert "2 older tool results collapsed to one line" in state.compressions
    assert "the newest tool result compressed too" not in state.compressions
    assert "def handler_120(event):  # line 120" in state.text  # step 7's read, every line
    assert state.text.count("def handler_60(event)") == 1  # steps 5 and 6: one line each
    assert_within_budgets(ctx, make_inputs(workspace, spec=spec, items=items))

    squeezed = make_spec(limits={"token_budget": {"current_state": 700}})
    ctx = compile_context(
        make_inputs(workspace, spec=squeezed, state=make_state(step=7), items=items)
    )
    assert "the newest tool result compressed too" in ctx.section("current_state").compressions
    assert ctx.section("current_state").tokens <= 700


def test_compression_follows_the_table_order(workspace: Path) -> None:
    (workspace / TARGET).write_text(big_source(800), "utf-8")
    items = [
        MemoryItem(
            type="action_result",
            step=6,
            content={"action": "read_file", "result": "success", "output": "text\n" * 200},
        ),
        MemoryItem(type="loaded_context", key="error_details", step=6, content="Err " * 400),
    ]
    state = make_state(
        scratchpad=[f"finding {i}: " + "x" * 80 for i in range(10)],
        progress=Progress(pending=[f"todo {i}: " + "y" * 80 for i in range(12)]),
    )
    table = (
        "file content: first and last lines kept",
        "1 older tool result collapsed to one line",
        "errors and long texts cut to 500 characters",
        "lists capped at 5 items",
    )
    expected = {4000: 1, 1400: 2, 1050: 3, 800: 4}
    for budget, steps in expected.items():
        spec = make_spec(limits={"token_budget": {"current_state": budget}})
        inputs = make_inputs(workspace, spec=spec, state=state, items=items)
        ctx = compile_context(inputs)
        assert ctx.section("current_state").compressions == table[:steps], budget
        assert_within_budgets(ctx, inputs)
    spec = make_spec(limits={"token_budget": {"current_state": 400}})
    labels = (
        compile_context(make_inputs(workspace, spec=spec, state=state, items=items))
        .section("current_state")
        .compressions
    )
    # the tool result went to one line, then was the oldest item left out: no line counts it
    assert labels[:2] == (table[0], table[2]) and labels[2] == "lists capped at 2 items"
    assert labels[3] == "workspace tree dropped"  # before any memory item goes
    assert labels[4].endswith("omitted")


def test_decisions_are_never_dropped(workspace: Path) -> None:
    decisions = [
        Decision(
            step=i,
            question=f"Question {i}? " + "why " * 60,
            answer=f"Answer {i}: do B.",
            at="2025-01-01T00:00:00Z",
        )
        for i in range(12)
    ]
    items = [note("filler " * 400, step=i) for i in range(3)]
    spec = make_spec(limits={"token_budget": {"current_state": 1400}})
    inputs = make_inputs(workspace, spec=spec, state=make_state(decisions=decisions), items=items)
    ctx = compile_context(inputs)
    user = user_message(ctx)
    for decision in decisions:
        assert decision.answer in user
    assert validate_context(ctx, inputs) == []
    assert_within_budgets(ctx, inputs)


def test_over_budget_when_pinned_items_cannot_fit(workspace: Path) -> None:
    items = [
        note("pinned rule one " * 200, step=3, pinned=True),
        loaded("full_file:pinned.py", "value = 1\n" * 600, pinned=True),
        note("unpinned"),
    ]
    spec = make_spec(limits={"token_budget": {"current_state": 200}})
    inputs = make_inputs(workspace, spec=spec, items=items)
    ctx = compile_context(inputs)
    assert len(ctx.over_budget) == 1
    reason = ctx.over_budget[0]
    assert reason.startswith("context over budget: pinned items note@3, full_file:pinned.py need ")
    assert reason.endswith("tokens, current_state budget 200")
    match = re.search(r"need (\d+) tokens", reason)
    assert match is not None
    need = int(match[1])
    assert need > 200
    assert "pinned items omitted (context over budget): note@3, full_file:pinned.py" in (
        user_message(ctx)
    )
    assert validate_context(ctx, inputs)[0] == reason
    assert_within_budgets(ctx, inputs)  # still within budget: the guarantee holds regardless


def test_pinned_items_that_fit_once_compressed_do_not_block(workspace: Path) -> None:
    items = [
        loaded("full_file:pinned.py", "".join(f"v{i} = {i}\n" for i in range(800)), pinned=True)
    ]
    spec = make_spec(limits={"token_budget": {"current_state": 1200}})
    inputs = make_inputs(workspace, spec=spec, items=items)
    ctx = compile_context(inputs)
    assert ctx.over_budget == ()
    assert "pinned items compressed" in ctx.section("current_state").compressions
    assert "lines omitted" in user_message(ctx)
    assert_within_budgets(ctx, inputs)


# -- budgets


def test_per_task_budget_overrides(workspace: Path) -> None:
    (workspace / TARGET).write_text(big_source(400), "utf-8")
    spec = make_spec(
        limits={
            "token_budget": {"current_state": 700, "available_actions": 60, "system_prompt": 1200}
        }
    )
    inputs = make_inputs(workspace, spec=spec)
    ctx = compile_context(inputs)
    assert ctx.section("current_state").budget == 700
    assert ctx.section("available_actions").budget == 60
    assert "descriptions dropped" in ctx.section("available_actions").compressions
    assert ctx.section("task_frame").budget == TYPE_BUDGETS["fix_violation"]["task_frame"]
    assert_within_budgets(ctx, inputs)


def test_max_tokens_binds_when_budgets_add_up_to_more(workspace: Path) -> None:
    (workspace / TARGET).write_text(big_source(3000), "utf-8")
    spec = make_spec(limits={"max_tokens": 3000, "token_budget": {"current_state": 6000}})
    inputs = make_inputs(workspace, spec=spec)
    ctx = compile_context(inputs)
    state = ctx.section("current_state")
    assert state.budget < 3000
    assert any("to fit max_tokens 3000" in label for label in state.compressions)
    assert validate_context(ctx, inputs) == []
    assert_within_budgets(ctx, inputs)


def test_tiny_budgets_still_hold(workspace: Path) -> None:
    spec = make_spec(limits={"max_tokens": 100, "token_budget": dict.fromkeys(SECTION_NAMES, 20)})
    inputs = make_inputs(workspace, spec=spec, items=[note("x " * 500)], recent=[result(7)])
    ctx = compile_context(inputs)
    assert_within_budgets(ctx, inputs)
    assert ctx.over_budget  # nothing useful fits: the step must not go out


def test_token_counts_follow_the_model_encoding(workspace: Path) -> None:
    inputs = make_inputs(workspace, model="openai/gpt-4o")
    ctx = compile_context(inputs)
    assert_within_budgets(ctx, inputs)
    assert ctx.total_tokens != compile_context(make_inputs(workspace)).total_tokens


# -- purity


def _snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    return {
        str(path.relative_to(root)): (path.read_bytes(), path.stat().st_mtime_ns)
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def test_compiling_has_no_side_effects(workspace: Path) -> None:
    (workspace / TARGET).write_text(big_source(1000), "utf-8")
    inputs = make_inputs(
        workspace,
        items=[note("n"), loaded("full_file:x.py", "a\nb\n", pinned=True)],
        recent=[result(6), result(7)],
        state=make_state(decisions=[Decision(step=1, question="q", answer="a", at="t")]),
    )
    before_files = _snapshot(workspace)
    before = (
        inputs.spec.model_dump(),
        inputs.state.model_dump(),
        inputs.memory.model_dump(),
        [r.model_dump() for r in inputs.recent],
    )
    first = compile_context(inputs)
    second = compile_context(inputs)
    assert first == second
    assert _snapshot(workspace) == before_files
    after = (
        inputs.spec.model_dump(),
        inputs.state.model_dump(),
        inputs.memory.model_dump(),
        [r.model_dump() for r in inputs.recent],
    )
    assert after == before


def test_a_changed_target_file_is_read_again(workspace: Path) -> None:
    inputs = make_inputs(workspace)
    assert "click.echo('spec')" in user_message(compile_context(inputs))
    (workspace / TARGET).write_text("print('rewritten, longer than before')\n", "utf-8")
    assert "rewritten, longer than before" in user_message(compile_context(inputs))


def test_step_1_and_step_1000_cost_about_the_same(workspace: Path) -> None:
    (workspace / TARGET).write_text(big_source(3000), "utf-8")

    def at(step: int) -> int:
        state = make_state(
            step=step,
            progress=Progress(objective="fix", completed=[f"step {i} done" for i in range(step)]),
            scratchpad=[f"note {i}" for i in range(step // 3)],
        )
        records = [result(i) for i in range(max(1, step - 2), step + 1)]
        return compile_context(make_inputs(workspace, state=state, recent=records)).total_tokens

    first, later = at(1), at(1000)
    assert abs(later - first) <= 0.1 * first


# -- validation


def test_validate_reports_tampering(workspace: Path) -> None:
    inputs = make_inputs(
        workspace,
        state=make_state(decisions=[Decision(step=1, question="q", answer="use B", at="t")]),
    )
    ctx = compile_context(inputs)
    user = user_message(ctx)
    dropped = user.replace("answer: use B", "answer: something else")
    bad = CompiledContext(
        **{**ctx.__dict__, "messages": (ctx.messages[0], {"role": "user", "content": dropped})}
    )
    problems = validate_context(bad, inputs)
    assert "the user message is not the five sections" in problems
    assert "decision answer missing: use B" in problems

    one = CompiledContext(**{**ctx.__dict__, "messages": ctx.messages[1:]})
    assert validate_context(one, inputs) == ["expected two messages [system, user], got ['user']"]

    section = ctx.sections[2]
    inflated = type(section)(section.name, 5, section.text, section.tokens)
    sections = (*ctx.sections[:2], inflated, *ctx.sections[3:])
    over = CompiledContext(**{**ctx.__dict__, "sections": sections})
    assert any(
        "current_state" in p and "over its budget 5" in p for p in validate_context(over, inputs)
    )


def test_the_scratchpad_shows_as_many_newest_notes_as_its_budget_allows(workspace: Path) -> None:
    short = make_state(scratchpad=[f"note {i}" for i in range(12)])
    data = yaml.safe_load(user_message(compile_context(make_inputs(workspace, state=short))))
    # short notes: all twelve fit (no fixed 5), newest first
    assert data["current_state"]["scratchpad"] == [f"note {i}" for i in reversed(range(12))]
    long = make_state(scratchpad=[f"finding {i}: " + "words " * 30 for i in range(40)])
    data = yaml.safe_load(user_message(compile_context(make_inputs(workspace, state=long))))
    shown = data["current_state"]["scratchpad"]
    assert shown[0].startswith("finding 39:") and shown[-1].startswith("... and ")
    kept = len(shown) - 1
    assert 1 <= kept < 40 and shown[-1] == f"... and {40 - kept} earlier notes"
    counter = counter_for(None)
    assert sum(counter.count(note) for note in shown[:-1]) <= 4500 // 30


def test_the_violations_file_is_shown_around_each_violation(workspace: Path) -> None:
    """A fix_violation task that names only the violation's file still shows it, cut to the
    lines around each reported violation, not to the file's head and tail."""
    (workspace / TARGET).write_text(big_source(3000), "utf-8")
    spec = make_spec(
        target_files=[],
        violation={"file_path": TARGET, "lines": [1200, 2400], "rule": "no bare commands"},
    )
    ctx = compile_context(make_inputs(workspace, spec=spec))
    assert validate_context(ctx, make_inputs(workspace, spec=spec)) == []
    files = yaml.safe_load(user_message(ctx))["current_state"]["target_files"]
    assert [f["path"] for f in files] == [TARGET]
    excerpt = files[0]["excerpt"]
    for line in (1200, 2400):
        assert f"line_{line} = compute({line - 1})" in excerpt
    assert "line_1 = compute(0)" not in excerpt  # not the head-and-tail cut
    shown = [int(m) for m in re.findall(r"^\s*(\d+)\|", excerpt, re.MULTILINE)]
    omitted = [int(m) for m in re.findall(r"# \.\.\. (\d+) lines omitted", excerpt)]
    assert len(shown) + sum(omitted) == 3000  # the markers count what they leave out
    assert "around each violation" in ctx.section("current_state").compressions[0]


def test_the_check_definitions_pattern_locates_the_violations(workspace: Path) -> None:
    source = big_source(3000).splitlines(keepends=True)
    for line in (700, 2100):
        source[line - 1] = "@click.command()\n"
    (workspace / TARGET).write_text("".join(source), "utf-8")
    spec = make_spec(check_definition={"pattern": r"@click\.command\(\)"})
    ctx = compile_context(make_inputs(workspace, spec=spec))
    excerpt = yaml.safe_load(user_message(ctx))["current_state"]["target_files"][0]["excerpt"]
    assert excerpt.count("@click.command()") == 2
    assert " 700| @click.command()" in excerpt and "2100| @click.command()" in excerpt
