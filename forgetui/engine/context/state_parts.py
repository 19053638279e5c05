"""current_state's parts that read straight from the task's state: operator decisions, the
plan and a pending escalation."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from forgetui.engine.base import compress as cz
from forgetui.engine.context.tree import El, drop_empty, seq
from forgetui.engine.folder.task_spec import Plan
from forgetui.engine.folder.task_state import Escalation, TaskState

Listed = Callable[..., list[str]]  # StateTree.at's lists rule: (values, cut=...) -> shown


def decisions_el(state: TaskState, cut: bool) -> El | None:
    """Every operator decision, never dropped: the older ones folded into a file the context
    names, the rest in full; under pressure only the questions shrink."""
    decisions = state.decisions
    folded = state.folded_decisions
    if not decisions and folded is None:
        return None
    reference = (
        [El("folded", text=folded.describe(), mark="decision")] if folded is not None else []
    )
    items = (
        *reference,
        *(
            El(
                "decision",
                attrs=(("step", decision.step),),
                items=(
                    El(
                        "question",
                        text=cz.cut_error(decision.question, 200) if cut else decision.question,
                    ),
                    El("answer", text=decision.answer),
                ),
                mark="decision",
            )
            for decision in decisions
        ),
    )
    return El("decisions", seq=True, items=items)


def plan_el(plan: Plan | None, cap: int | None) -> El | None:
    """The plan a line per task and subtask, the current one marked; under the lists rule the
    lines around the current one."""
    if plan is None:
        return None
    current = plan.current()
    marks = {"pending": "[ ]", "done": "[x]", "failed": "[!]"}
    lines: list[str] = []
    current_line = 0
    for ti, task in enumerate(plan.tasks):
        lines.append(f"{ti + 1}. {task.title}")
        for si, sub in enumerate(task.subtasks):
            reason = f" ({sub.reason})" if sub.reason else ""
            here = (ti, si) == current
            if here:
                current_line = len(lines)
            line = f"{ti + 1}.{si + 1} {marks[sub.status]} {sub.title}{reason}"
            lines.append(line + ("  <- current" if here else ""))
    if cap is not None:
        lines = cz.cap_around(lines, current_line, cap)
    return El("plan", items=drop_empty(El("goal", text=plan.goal), seq("steps", lines)))


def escalation_el(escalation: Escalation | None, listed: Listed) -> El | None:
    if escalation is None:
        return None
    options: Sequence[str] = escalation.options
    return El(
        "pending_escalation",
        items=drop_empty(
            El("reason", text=escalation.reason),
            El("question", text=escalation.question),
            seq("options", listed(options), "option"),
            seq("evidence", listed(escalation.evidence, cut=True), "item"),
            El("step", text=escalation.step),
        ),
    )
