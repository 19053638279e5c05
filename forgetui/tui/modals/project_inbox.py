"""The workbench's inbox once project memory is there: P also makes the selected answer a
project memory entry."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual import work
from textual.binding import Binding, BindingType
from textual.widgets import Static

from forgetui.engine.api import ForgeError
from forgetui.tui.modals.inbox import InboxScreen


class ProjectInboxScreen(InboxScreen):
    """The inbox, where P also makes the selected answer project memory (a preference: what
    the operator answered once, every later task knows)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *InboxScreen.BINDINGS,
        Binding("P", "promote_project", "promote", id="inbox-promote-project"),
    ]
    HINT = "↑↓ select · a answers · p pins · P to project memory · escape closes"

    def __init__(self, *args: object, to_project: Callable[[str], None]) -> None:
        super().__init__(*args)  # type: ignore[arg-type]
        self.to_project = to_project

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one(".dialog-hint", Static).update(self.HINT)

    def action_promote_project(self) -> None:
        entry = self.selected
        if entry is None:
            return
        if reason := entry.why_not_promoted():
            self.notify(reason, title="promote: not now", severity="warning", markup=False)
            return
        self.promote_project(entry.id)

    @work(thread=True, exclusive=True, exit_on_error=False, group="inbox")
    def promote_project(self, entry_id: str) -> None:
        """`to_project` says what it did (the workbench's toast) and reloads the panes."""
        try:
            self.to_project(entry_id)
        except ForgeError as exc:
            self.app.call_from_thread(
                self.notify, exc.message, title="promote", severity="error", markup=False
            )
