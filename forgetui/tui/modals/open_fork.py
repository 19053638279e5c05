"""After a fork (rewind's fork, a re-run adopted as a fork): open it now, or stay. Opening it
puts the fork's workbench in this one's place (task_switch.py; escape there comes back to this
task); modals still open over this workbench (the re-run's) close first."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from textual.binding import Binding, BindingType
from textual.screen import Screen

from forgetui.tui.modals.confirm import ConfirmScreen


class OpenForkScreen(ConfirmScreen, inherit_bindings=False):
    YES, NO, HINT = "Open the fork now", "Stay", "o open · s or escape stay"
    YES_VARIANT = "primary"
    FOCUS_YES = True
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("o", "answer(True)", "open", id="open-fork-open"),
        Binding("s", "answer(False)", "stay", id="open-fork-stay"),
        Binding("escape", "answer(False)", "stay", show=False),
    ]

    def __init__(self, workspace: Path) -> None:
        super().__init__(
            "Open the fork now?",
            f"the fork is in {workspace}; escape there comes back to this task",
            "open-fork",
        )
        self.workspace = workspace


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
