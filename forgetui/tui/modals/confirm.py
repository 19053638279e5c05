"""A yes/no question before a change the operator may not mean, such as evicting a pinned item
(pinning said "keep this"). Dismisses with True for yes; no, escape and Close mean False."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static


class ConfirmScreen(ModalScreen[bool]):
    DEFAULT_CSS = """
    #confirm-explanation { color: $text-muted; height: auto; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "yes", id="confirm-yes"),
        Binding("n", "answer(False)", "no", id="confirm-no"),
        Binding("escape", "answer(False)", "no", show=False),
    ]

    def __init__(self, question: str, explanation: str = "", confirm_id: str = "confirm") -> None:
        super().__init__(id=confirm_id)
        self.question = question
        self.explanation = explanation

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-dialog", classes="dialog"):
            yield Label(Content(self.question), classes="dialog-title")
            if self.explanation:
                yield Static(self.explanation, id="confirm-explanation", markup=False)
            with Horizontal(classes="buttons"):
                yield Button("Yes", id="yes", variant="error")
                yield Button("No", id="no", variant="primary")
            yield Label("y yes · n or escape no", classes="dialog-hint")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()  # enter on the default keeps what is pinned

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")
