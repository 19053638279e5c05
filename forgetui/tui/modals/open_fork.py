"""After a fork (rewind's fork, a re-run adopted as a fork): open it now, or stay. Opening it
puts the fork's workbench in this one's place (task_switch.py; escape there comes back to this
task); modals still open over this workbench (the re-run's) close first."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Label, Static


class OpenForkScreen(ModalScreen[bool]):
    DEFAULT_CSS = """
    #open-fork-dialog { width: 80; }
    #open-fork-where { color: $text-muted; height: auto; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("o", "answer(True)", "open", id="open-fork-open"),
        Binding("s", "answer(False)", "stay", id="open-fork-stay"),
        Binding("escape", "answer(False)", "stay", show=False),
    ]

    def __init__(self, workspace: Path) -> None:
        super().__init__(id="open-fork")
        self.workspace = workspace

    def compose(self) -> ComposeResult:
        with Vertical(id="open-fork-dialog", classes="dialog"):
            yield Label("Open the fork now?", classes="dialog-title")
            yield Static(f"the fork is in {self.workspace}; escape there comes back to this task",
                         id="open-fork-where", markup=False)  # fmt: skip
            with Horizontal(classes="buttons"):
                yield Button("Open the fork now", id="open", variant="primary")
                yield Button("Stay", id="stay")
            yield Static("o open · s or escape stay", classes="dialog-hint", markup=False)

    def on_mount(self) -> None:
        self.query_one("#open", Button).focus()

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "open")


def offer_fork(workbench: Screen[Any], workspace: Path) -> None:
    """Ask; on open, close what is over `workbench`, then open the fork's task over it."""
    app = workbench.app

    def answered(yes: bool | None) -> None:
        if not yes or not workbench.is_attached:
            return
        while app.screen is not workbench and len(app.screen_stack) > 1:
            app.pop_screen()
        switch = getattr(app, "switch", None)
        if switch is not None:
            switch.open_fork(workspace)

    app.push_screen(OpenForkScreen(workspace), answered)
