"""A yes/no question before a change the operator may not mean, such as evicting a pinned item
(pinning said "keep this"). Dismisses with True for yes; no, escape and Close mean False."""

from __future__ import annotations

from typing import ClassVar, Literal

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static


class ConfirmScreen(ModalScreen[bool]):
    """A subclass renames the two answers (its BINDINGS give their keys) and says which one
    enter takes by default."""

    YES, NO, HINT = "Yes", "No", "y yes · n or escape no"
    YES_VARIANT: Literal["error", "primary"] = "error"
    FOCUS_YES = False  # enter on the default keeps what is pinned
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
                yield Button(self.YES, id="yes", variant=self.YES_VARIANT)
                yield Button(self.NO, id="no", variant="default" if self.FOCUS_YES else "primary")
            yield Label(self.HINT, classes="dialog-hint")

    def on_mount(self) -> None:
        self.query_one("#yes" if self.FOCUS_YES else "#no", Button).focus()

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")
