"""Property: whatever the state, memory, records and budgets, no compiled context is over budget."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forgetui.engine.context import ContextInputs, compile_context, validate_context
from forgetui.engine.folder.catalog import PHASES
from forgetui.engine.folder.memory import MemoryItem, WorkingMemory
from forgetui.engine.folder.records import ResultRecord
from forgetui.engine.folder.task_spec import (
    DEFAULT_BUDGETS,
    SECTION_NAMES,
    Plan,
    PlanTask,
    Subtask,
    TaskSpec,
)
from forgetui.engine.folder.task_state import (
    CheckResult,
    Decision,
    Escalation,
    LoopGuardState,
    Probe,
    Progress,
    TaskState,
    Verification,
)
from tests.fuzz_seed import fuzzed

from .test_context import TARGET, assert_within_budgets, big_source

# Short texts of any characters (control characters, newlines, emoji...), and long ones made
# by repeating them, so a few examples cover both odd input and volume.
short_text = st.text(max_size=60)
long_text = st.builds(
    lambda part, times: part * times, st.text(min_size=1, max_size=40), st.integers(1, 150)
)
any_text = st.one_of(short_text, long_text)
lines_text = st.builds(lambda lines: "\n".join(lines), st.lists(short_text, max_size=120))
json_value = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), short_text),
    lambda children: st.one_of(
        st.lists(children, max_size=6), st.dictionaries(short_text, children, max_size=6)
    ),
    max_leaves=20,
)
moderate = st.text(max_size=300)

memory_items = st.builds(
    MemoryItem,
    type=st.sampled_from(["action_result", "loaded_context", "note", "decision"]),
    step=st.integers(0, 40),
    key=st.one_of(
        st.none(),
        st.sampled_from(
            ["full_file:a.py", "full_file:b.py", "test_output", "error_details:1", "related_files"]
        ),
    ),
    content=st.one_of(
        any_text, lines_text, json_value.filter(lambda value: isinstance(value, dict | list))
    ),
    added_at=st.just("2025-01-01T00:00:00Z"),
    expires_after_steps=st.one_of(st.none(), st.integers(1, 5)),
    pinned=st.booleans(),
)

records = st.builds(
    ResultRecord,
    step=st.integers(1, 40),
    at=st.just("2025-01-01T00:00:00Z"),
    action=st.sampled_from(["read_file", "edit_file", "run_cmd", "note", "search"]),
    args=st.dictionaries(st.sampled_from(["path", "cmd", "pattern", "text"]), any_text, max_size=3),
    result=st.sampled_from(["success", "failure", "blocked", "error"]),
    summary=any_text,
    error=st.one_of(st.none(), any_text),
)

subtasks = st.builds(
    Subtask, title=short_text, status=st.sampled_from(["pending", "done", "failed"])
)
plans = st.builds(
    Plan,
    goal=short_text,
    tasks=st.lists(
        st.builds(PlanTask, title=short_text, subtasks=st.lists(subtasks, max_size=6)),
        max_size=5,
    ),
)
check_results = st.builds(
    CheckResult,
    passing=st.booleans(),
    details=any_text,
    passed=st.one_of(st.none(), st.integers(0, 50)),
    total=st.one_of(st.none(), st.integers(0, 50)),
)
escalations = st.builds(
    Escalation,
    reason=st.sampled_from(["agent", "loop", "over_budget"]),
    question=any_text,
    options=st.lists(short_text, max_size=5),
    evidence=st.lists(any_text, max_size=4),
    step=st.integers(0, 40),
    raised_at=st.just("t"),
)

decisions = st.builds(
    Decision, step=st.integers(0, 40), question=moderate, answer=moderate, at=st.just("t")
)

budget_overrides = st.dictionaries(
    st.sampled_from(SECTION_NAMES), st.integers(20, 6000), max_size=6
)


@st.composite
def inputs_for(draw: st.DrawFn, workspace: Path) -> ContextInputs:
    task_type = draw(st.sampled_from(sorted(PHASES)))
    phase = draw(st.sampled_from(PHASES[task_type]))
    spec_fields: dict[str, Any] = {
        "id": "prop-task",
        "goal": draw(any_text) or "goal",
        "task_type": task_type,
        "phase": phase,
        "success_criteria": draw(st.lists(any_text, max_size=8)),
        "constraints": draw(st.lists(any_text, max_size=8)),
        "target_files": draw(
            st.lists(st.sampled_from([TARGET, "small.py", "missing.py", "*.py"]), max_size=3)
        ),
        "context_format": draw(st.sampled_from(["yaml", "xml"])),
        "checks": [
            {"name": f"check-{i}", "kind": "file_exists", "path": "x.py"}
            for i in range(draw(st.integers(0, 6)))
        ],
        "limits": {
            "max_tokens": draw(st.integers(100, 8000)),
            "token_budget": draw(budget_overrides),
        },
    }
    if task_type == "fix_violation":
        spec_fields["violation"] = draw(st.one_of(any_text, lines_text))
        spec_fields["check_definition"] = draw(
            st.one_of(any_text, st.dictionaries(short_text, json_value, max_size=4))
        )
    elif task_type == "implement_feature":
        spec_fields["spec"] = draw(st.one_of(any_text, lines_text))
    elif task_type == "write_tests":
        spec_fields["test_requirements"] = draw(st.lists(any_text, max_size=5))
    else:
        spec_fields["inputs"] = draw(st.dictionaries(short_text, json_value, max_size=4))
    spec = TaskSpec(**spec_fields)
    state = TaskState(
        task_id="prop-task",
        phase=phase,
        step=draw(st.integers(0, 2000)),
        decisions=draw(st.lists(decisions, max_size=30)),
        progress=Progress(
            objective=draw(short_text),
            completed=draw(st.lists(any_text, max_size=30)),
            pending=draw(st.lists(any_text, max_size=10)),
        ),
        scratchpad=draw(st.lists(any_text, max_size=30)),
        loop_guard=LoopGuardState(blocked=draw(st.lists(short_text, max_size=12))),
        plan=draw(st.one_of(st.none(), plans)),
        pending_escalation=draw(st.one_of(st.none(), escalations)),
        verification=Verification(
            checked_at=draw(st.one_of(st.none(), st.just("t"))),
            ready_for_completion=draw(st.booleans()),
            checks=draw(
                st.dictionaries(
                    st.sampled_from(["check-0", "check-1", "other"]), check_results, max_size=3
                )
            ),
            regressions=draw(st.lists(short_text, max_size=3)),
        ),
        probe=Probe(
            last_errors=draw(st.lists(any_text, max_size=3)),
            files_written=draw(st.lists(short_text, max_size=10)),
        ),
    )
    items = draw(st.lists(memory_items, max_size=14))
    return ContextInputs(
        spec=spec,
        state=state,
        memory=WorkingMemory(max_items=max(1, len(items)), items=items),
        recent=draw(st.lists(records, max_size=6)),
        workspace=workspace,
        model=draw(st.sampled_from([None, "gpt-4o"])),
    )


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("property-workspace")
    (root / TARGET).parent.mkdir(parents=True)
    (root / TARGET).write_text(big_source(3000), "utf-8")
    (root / "small.py").write_text("import os\n\n\tprint(os.sep)  \r\n\x00odd\n", "utf-8")
    return root


@fuzzed
@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_no_context_is_ever_over_budget(workspace: Path, data: st.DataObject) -> None:
    inputs = data.draw(inputs_for(workspace))
    ctx = compile_context(inputs)
    assert_within_budgets(ctx, inputs)
    user = ctx.messages[1]["content"]
    if ctx.format == "yaml":
        # libyaml: the pure-Python reader takes seconds on the long texts drawn here
        parsed = yaml.load(user, Loader=yaml.CSafeLoader)
        assert list(parsed) == list(SECTION_NAMES[1:])
    else:
        assert user.startswith("<task_context>\n") and user.endswith("</task_context>\n")
    if not ctx.over_budget:
        assert validate_context(ctx, inputs) == []


def test_default_budgets_add_up_to_the_default_maximum() -> None:
    """With the defaults no section is squeezed to fit the total."""
    assert sum(DEFAULT_BUDGETS.values()) == TaskSpec(id="t", goal="g").limits.max_tokens


@pytest.mark.parametrize("text", ["\t0\r0", "\tindented\nnext", " lead\n\tx"])
def test_a_text_starting_with_a_tab_or_space_reads_back_with_libyaml(
    workspace: Path, text: str
) -> None:
    """Found by the property above: libyaml refuses a tab where it would guess a block
    scalar's indentation, so such a text carries an explicit indentation indicator."""
    spec = TaskSpec(
        id="t", goal="g", task_type="implement_feature", phase="implement_red", spec=text
    )
    inputs = ContextInputs(
        spec=spec,
        state=TaskState(task_id="t", phase="implement_red"),
        memory=WorkingMemory(),
        recent=[],
        workspace=workspace,
    )
    parsed = yaml.load(compile_context(inputs).messages[1]["content"], Loader=yaml.CSafeLoader)
    assert parsed["current_state"]["spec"] == text.replace("\r", "\n")
