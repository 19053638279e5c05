"""The task frame pane: goal, success criteria with pass marks, phase, constraints, plan."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from forgetui.tui.markup import fmt, lines
from forgetui.tui.snapshot import TaskSnapshot

if TYPE_CHECKING:  # a name only: the task's file model loads after the first view
    from forgetui.engine.api import Plan

MARKS = {True: "[$success]✓[/]", False: "[$error]✗[/]", None: "[$foreground-muted]·[/]"}
SUBTASK_MARKS = {"done": MARKS[True], "failed": MARKS[False], "pending": MARKS[None]}


def plan_lines(plan: Plan) -> list[Content]:
    current = plan.current()
    out = [fmt(" [b]$goal[/]", goal=plan.goal)]
    for ti, task in enumerate(plan.tasks):
        out.append(fmt(" ▸ $title", title=task.title))
        for si, sub in enumerate(task.subtasks):
            mark = SUBTASK_MARKS[sub.status]
            if current == (ti, si):
                out.append(fmt(f"   {mark} [b $accent]$title[/] ← now", title=sub.title))
            else:
                out.append(fmt(f"   {mark} $title", title=sub.title))
    return out


def task_frame_content(snapshot: TaskSnapshot) -> Content:
    out: list[Content | str] = [
        fmt("[b]Goal[/] $goal", goal=snapshot.goal),
        "",
        fmt("[b]Success criteria[/]"),
    ]
    if snapshot.criteria:
        out += [fmt(f" {MARKS[c.passing]} $text", text=c.text) for c in snapshot.criteria]
    else:
        out.append(fmt(" [$foreground-muted](none given)[/]"))
    phases = [
        fmt("[b $accent]$p[/]" if p == snapshot.phase else "[$foreground-muted]$p[/]", p=p)
        for p in snapshot.phases
    ]
    if snapshot.phase not in snapshot.phases:
        phases.append(fmt("[b $accent]$p[/]", p=snapshot.phase))
    out += [
        "",
        fmt("[b]Phase[/] ") + Content(" › ").join(phases)
        + fmt("  [$foreground-muted]($kind)[/]", kind=snapshot.task_type),
    ]  # fmt: skip
    if snapshot.constraints:
        out += ["", fmt("[b]Constraints[/]")]
        out += [fmt(" • $text", text=text) for text in snapshot.constraints]
    out += ["", fmt("[b]Plan[/]")]
    if snapshot.plan is None:
        out.append(fmt(" [$foreground-muted](no plan: the phase's goal is the objective)[/]"))
    else:
        out += plan_lines(snapshot.plan)
    if snapshot.approval != "auto":
        out += ["", fmt("[b]Approval[/] $mode", mode=snapshot.approval.replace("_", " "))]
    return lines(out)


class TaskFramePane(VerticalScroll):
    """What the agent is asked to do, and how far it got."""

    def compose(self) -> ComposeResult:
        yield Static(id="task-frame-body")

    def on_mount(self) -> None:
        self.border_title = "task"

    _shown: Content | None = None

    def show_snapshot(self, snapshot: TaskSnapshot) -> None:
        content = task_frame_content(snapshot)
        if content != self._shown:
            self._shown = content
            self.query_one("#task-frame-body", Static).update(content)
