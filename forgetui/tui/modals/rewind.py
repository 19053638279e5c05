"""`r` on a step's row of the action log: back to the end of that step. The modal says what the
rewind would do, from a dry run made off the UI thread (the files that go back or go, those
changed by hand since the run wrote them, the steps left behind); then `y` rewinds in place,
`f` forks into a new workspace (its directory asked for, prefilled beside this one), `F`
overwrites hand edits, `n` or escape cancels. Dismisses with a RewindChoice, or None."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from forgetui.engine.api import ForgeError, RewindReport
from forgetui.tui.markup import fmt, lines
from forgetui.tui.modals.text_prompt import TextPromptScreen

LoadPlan = Callable[[], RewindReport]
SHOWN_FILES = 12  # per list; the rest are counted


@dataclass(frozen=True)
class RewindChoice:
    """What the operator chose: in place (`force`: over hand edits), or a fork into `fork`."""

    force: bool = False
    fork: str | None = None


@dataclass
class PlanLoaded(Message):
    """The dry run's report, or why the task cannot be rewound in place."""

    report: RewindReport | None
    error: str | None = None


def fork_directory(workspace: Path, step: int) -> Path:
    """`<workspace>-fork-N`, or the first of `-fork-N-2`, `-fork-N-3`... not taken yet."""
    base = workspace.with_name(f"{workspace.name}-fork-{step}")
    candidate, n = base, 1
    while candidate.exists():
        n += 1
        candidate = base.with_name(f"{base.name}-{n}")
    return candidate


def _named(title: str, names: list[str], style: str) -> list[Content]:
    shown = [fmt(f"  [{style}]$name[/]", name=name) for name in names[:SHOWN_FILES]]
    if len(names) > SHOWN_FILES:
        shown.append(Content(f"  ... and {len(names) - SHOWN_FILES} more"))
    return [fmt("[b]$title[/]", title=title), *shown] if names else []


def plan_content(report: RewindReport) -> Content:
    """The dry run as the operator reads it: steps left behind, then each file's fate."""
    first, last = report.superseded or (report.to + 1, report.to + 1)
    steps = f"Step {first} stays" if first == last else f"Steps {first}-{last} stay"
    head = "[b]$steps[/] in the log as a superseded branch (dimmed); the task is then "
    parts = [fmt(head + "[b]$status[/].", steps=steps, status=report.status), Content("")]
    parts += _named("restored as they were after the step", report.restored, "$success")
    parts += _named("removed (the later steps created them)", report.removed, "$warning")
    parts += _named(
        "changed by hand since the run wrote them: F overwrites them", report.conflicts, "$error"
    )
    if not report.restored and not report.removed:
        parts.append(Content("No workspace file changes: the later steps wrote none."))
    if report.untracked_note:
        parts.append(fmt("[$foreground-muted]$note[/]", note=report.untracked_note))
    return lines(parts)


class ForkPrompt(TextPromptScreen):
    """The new workspace a fork goes into, prefilled."""

    def __init__(self, step: int, directory: Path) -> None:
        super().__init__(
            f"Fork at step {step} into a new workspace",
            f"A copy of the workspace's files as they were after step {step}, with the task "
            f"there at step {step}; this task and its files are not changed. The directory "
            "must be new or empty.",
            "a new directory",
            prompt_id="fork-prompt",
        )
        self.directory = directory

    def on_mount(self) -> None:
        self.query_one(Input).value = str(self.directory)


class RewindScreen(ModalScreen[RewindChoice | None]):
    DEFAULT_CSS = """
    #rewind-dialog { border: thick $warning; }
    #rewind-why { color: $text-muted; height: auto; margin-bottom: 1; }
    #rewind-plan { height: auto; max-height: 40vh; background: $panel; padding: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "rewind", "rewind", id="rewind-yes"),
        Binding("F,shift+f", "force", "force", id="rewind-force"),
        Binding("f", "fork", "fork", id="rewind-fork"),
        Binding("n,escape", "cancel", "cancel", id="rewind-cancel"),
    ]

    def __init__(self, step: int, load: LoadPlan, workspace: Path, why_not: str = "") -> None:
        super().__init__(id="rewind")
        self.step = step
        self.load = load
        self.workspace = workspace
        self.why_not = why_not  # why this workbench cannot rewind in place ("": it can)
        self.report: RewindReport | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="rewind-dialog", classes="dialog"):
            yield Label(f"Rewind to the end of step {self.step}?", classes="dialog-title")
            yield Static(
                f"State and working memory go back to how they stood after step {self.step}, "
                "and the files the later steps wrote go back byte for byte. The later steps "
                "never reach the agent again; the next step is numbered after them.",
                id="rewind-why",
                markup=False,
            )
            with VerticalScroll(id="rewind-plan"):
                yield Static("working out what changes…", id="rewind-files", markup=False)
            with Horizontal(classes="buttons"):
                yield Button("Rewind", id="here", variant="warning", disabled=True)
                yield Button("Force", id="force", variant="error")
                yield Button("Fork…", id="fork", variant="primary")
                yield Button("Cancel", id="cancel")
            yield Label(
                "y rewind here · f fork into a new workspace · n or escape cancel",
                id="rewind-hint",
                classes="dialog-hint",
            )

    def on_mount(self) -> None:
        self.query_one("#force", Button).display = False
        self.query_one("#cancel", Button).focus()  # enter on the default changes nothing
        if self.why_not:
            self.post_message(PlanLoaded(None, self.why_not))
        else:
            self.load_plan()

    @work(thread=True, exit_on_error=False, group="rewind-plan")
    def load_plan(self) -> None:
        try:
            self.post_message(PlanLoaded(self.load()))
        except (ForgeError, OSError) as exc:
            self.post_message(PlanLoaded(None, str(exc)))

    @on(PlanLoaded)
    def show_plan(self, message: PlanLoaded) -> None:
        files = self.query_one("#rewind-files", Static)
        report = self.report = message.report
        if report is None:
            files.update(
                fmt("[$error]$error[/]\n\nf still forks at this step.", error=message.error)
            )
            return
        files.update(plan_content(report))
        conflicts = bool(report.conflicts)
        self.query_one("#here", Button).disabled = conflicts
        self.query_one("#force", Button).display = conflicts
        if conflicts:
            self.query_one("#rewind-hint", Label).update(
                "F overwrite the hand edits and rewind · f fork (they stay here) · n or escape "
                "cancel"
            )

    def action_rewind(self) -> None:
        report = self.report
        if report is None:
            self.notify("not possible here: see the message", severity="warning", markup=False)
        elif report.conflicts:
            self.notify(
                "files were changed by hand since the run wrote them: F overwrites them",
                severity="warning",
                markup=False,
            )
        else:
            self.dismiss(RewindChoice())

    def action_force(self) -> None:
        if self.report is not None and self.report.conflicts:
            self.dismiss(RewindChoice(force=True))

    def action_fork(self) -> None:
        def typed(text: str | None) -> None:
            if text is not None and text.strip():
                self.dismiss(RewindChoice(fork=text.strip()))

        directory = fork_directory(self.workspace, self.step)
        self.app.push_screen(ForkPrompt(self.step, directory), typed)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        actions = {
            "here": self.action_rewind,
            "force": self.action_force,
            "fork": self.action_fork,
        }
        actions.get(event.button.id or "", self.action_cancel)()
