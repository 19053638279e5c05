"""The task as last read, put on the workbench's panes, and the banners over them (a task that
does not read, a task.yaml changed since it was accepted). The screen decides when: these only
paint."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.screen import Screen
from textual.widgets import Static

from forgetui.tui.markup import fmt
from forgetui.tui.pane_title import set_pane_title
from forgetui.tui.panes.action_log import ActionLogPane
from forgetui.tui.panes.context import ContextPane
from forgetui.tui.panes.memory import MemoryPane
from forgetui.tui.panes.task_frame import TaskFramePane
from forgetui.tui.panes.verification import VerificationPane
from forgetui.tui.snapshot import TaskSnapshot

if TYPE_CHECKING:
    from forgetui.tui.workbench import WorkbenchScreen

LOADING = "loading…"


def finished_words(status: str) -> str:
    """How a finished task ended, as a sentence says it ("the task failed", not "is failed")."""
    said = {"complete": "is complete", "failed": "failed", "aborted": "was aborted"}
    return f"the task {said.get(status, 'is ' + status)}"


def show_frame(screen: Screen[Any], snapshot: TaskSnapshot) -> None:
    screen.query_one(TaskFramePane).show_snapshot(snapshot)


def show_checks(screen: Screen[Any], snapshot: TaskSnapshot) -> None:
    screen.query_one(VerificationPane).show_snapshot(snapshot)


def show_memory(screen: Screen[Any], snapshot: TaskSnapshot) -> None:
    memory = screen.query_one(MemoryPane)
    if snapshot.loading:  # not read yet: not "empty"
        memory.set_class(False, "-empty")
        memory.border_subtitle = LOADING
    else:
        if memory.border_subtitle == LOADING:  # as mounted again, for the rows to replace
            memory.set_class(True, "-empty")
            memory.border_subtitle = ""
        memory.show_rows(snapshot.memory)


def show_log(screen: Screen[Any], snapshot: TaskSnapshot) -> None:
    screen.query_one(ActionLogPane).show_log(snapshot.log_count, snapshot.tail_rows)


def show_header(screen: WorkbenchScreen) -> None:
    """The header (the run's state with the task's) and the tabs' badges."""
    screen.arranger.show_tabs()
    screen.run_control.show_activity()


async def show_context(screen: WorkbenchScreen, snapshot: TaskSnapshot) -> None:
    """The next step's preview, unless the pane shows a saved step's context."""
    if screen.browser.context_step is None:
        await show_preview(screen.query_one(ContextPane), snapshot)


async def show_preview(context: ContextPane, snapshot: TaskSnapshot) -> None:
    """The next step's context, or why there is none."""
    if snapshot.loading:
        set_pane_title(context, "compiled context: next step preview")
        total = context.query_one("#context-total", Static)
        total.update(fmt("[$foreground-muted]$what[/]", what=LOADING))
    elif snapshot.context is not None:
        await context.show_view(snapshot.context)
    elif snapshot.context_error:
        context.show_error("next step preview", snapshot.context_error)
    else:
        context.show_error("finished", f"{finished_words(snapshot.status)}: no next step")
        # the last preview's "leaving at the next step" no longer holds: there is none (and a
        # preview shown again after a rewind paints in full)
        context.query_one("#context-diff", Static).display = False
        context.view = None


def show_task_state(screen: Screen[Any], snapshot: TaskSnapshot) -> None:
    """Only rare states go on the screen as classes: a class change restyles every pane below
    it. task.yaml edited since it was accepted: a banner until it is accepted (on s or space,
    which show the change first)."""
    screen.set_class(snapshot.read_only, "-read-only")
    change = snapshot.task_change
    if change is not None:
        screen.query_one("#problem-banner", Static).update(
            fmt(
                "[b]$summary since it was accepted:[/] no step runs until you accept it\n"
                "[$foreground-muted]press s to see the change and accept it[/]",
                summary=change.summary(),
            )
        )
    screen.set_class(change is not None, "-task-changed")


def show_unreadable(screen: Screen[Any], error: str, task_path: Path, view_kept: bool) -> None:
    """A banner that stays until the files read again, over the last good view (`view_kept`)
    or the action log, which reads on its own."""
    kept = "the last good view stays below" if view_kept else "the action log still reads"
    screen.query_one("#problem-banner", Static).update(
        fmt(
            "[b]the task does not read:[/] $error\n[$foreground-muted]$kept; "
            "fix the file and the workbench reloads[/]",
            error=error.replace(f"{task_path}/", ""),
            kept=kept,
        )
    )
    screen.add_class("-broken")


def warn_without_sandbox(screen: Screen[Any], snapshot: TaskSnapshot) -> None:
    if snapshot.sandbox is not None and snapshot.sandbox.name != "bwrap":
        screen.notify(
            "Agent commands run with the allow-list only: they can read and write outside "
            f"the workspace. {snapshot.sandbox.reason}",
            title="No OS sandbox",
            severity="warning",
            timeout=10,
            markup=False,
        )
