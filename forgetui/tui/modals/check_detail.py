"""The check detail modal: one check in full. The verification pane shows the first line of a
check's details ("exit 1: 1 failed"); this shows what it proves, what it ran and its whole
output (the failing test and its assertion, every offending line).

The output is a file read (artifacts/outputs/checks.yaml), so the modal opens at once with what
the snapshot carries and reads the output in a thread worker of its own."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from forgetui.engine.api import CheckOutput, ForgeError
from forgetui.tui.markup import fmt, lines
from forgetui.tui.snapshot import CheckView

LoadOutput = Callable[[], CheckOutput | None]
STATE_TEXT = {
    True: "[b $success]pass[/]", False: "[b $error]fail[/]",
    None: "[$foreground-muted]not run yet[/]",
}  # fmt: skip


@dataclass
class OutputLoaded(Message):
    """The check's full output (None: none kept), or why it could not be read."""

    output: CheckOutput | None
    error: str | None = None


def facts(check: CheckView) -> Content:
    """Pass/fail since when, kind, the criterion it proves and what it runs."""
    since = f" since step {check.changed_at_step}" if check.changed_at_step else ""
    rows = [fmt(f"[b]state[/] {STATE_TEXT[check.passing]}$since", since=since)]
    if check.kind:
        rows.append(fmt("[b]kind[/] $kind", kind=check.kind))
    rows.append(
        fmt("[b]proves[/] $criterion", criterion=check.criterion)
        if check.criterion
        else fmt("[b]proves[/] [$foreground-muted](no success criterion named)[/]")
    )
    if check.runs:
        rows.append(fmt("[b]runs[/] $runs", runs=check.runs))
    if check.passing is not None and check.details.strip():
        rows.append(fmt("[b]summary[/] $details", details=check.details.splitlines()[0]))
    return lines(rows)


class CheckDetailScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "close", id="check-detail-close"),
        Binding("q", "close", "close", show=False),
    ]

    def __init__(self, check: CheckView, load: LoadOutput) -> None:
        super().__init__()
        self.check = check
        self.load = load

    def compose(self) -> ComposeResult:
        check = self.check
        with Vertical(id="check-detail-dialog", classes="dialog"):
            yield Label(Content(f"Check {check.name}"), classes="dialog-title")
            yield Static(facts(check), id="check-facts")
            yield Label("Output", id="check-output-heading", classes="dialog-heading")
            with VerticalScroll(id="check-output-box"):
                waiting = "loading…" if check.passing is not None else "(not run yet)"
                yield Static(waiting, markup=False, id="check-output")
            yield Label("arrows / page keys scroll · escape closes", classes="dialog-hint")

    def on_mount(self) -> None:
        self.query_one("#check-output-box").focus()
        if self.check.passing is not None:
            self.load_output()

    @work(thread=True, exit_on_error=False, group="check-output")
    def load_output(self) -> None:
        try:
            self.post_message(OutputLoaded(self.load()))
        except (ForgeError, OSError) as exc:
            self.post_message(OutputLoaded(None, str(exc)))

    @on(OutputLoaded)
    def show_output(self, message: OutputLoaded) -> None:
        heading = self.query_one("#check-output-heading", Label)
        body = self.query_one("#check-output", Static)
        kept = message.output
        if message.error is not None:
            body.update(Content(f"(could not read the output: {message.error})"))
        elif kept is None:
            # ran before outputs were kept, or the file was removed: the summary is all there is
            body.update(Content(self.check.details or "(no output kept)"))
        else:
            heading.update(Content(f"Output of the run at step {kept.step}"))
            body.update(Content(kept.output.rstrip() or "(no output)"))

    def action_close(self) -> None:
        self.dismiss(None)
