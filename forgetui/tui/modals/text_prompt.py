"""A modal asking for one piece of text: an operator note, or (with `--model human`) the
action the operator takes as the model. Dismisses with the text, or None when cancelled."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Input, Label, Static

from forgetui.tui.inputs import apply_input_settings
from forgetui.tui.modals.fit import FittedModal


class TextPromptScreen(FittedModal[str | None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "cancel", id="prompt-cancel"),
    ]

    def __init__(
        self, title: str, explanation: str = "", placeholder: str = "", prompt_id: str = "prompt"
    ) -> None:
        super().__init__(id=prompt_id)
        self.title_text = title
        self.explanation = explanation
        self.placeholder = placeholder

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog prompt-dialog"):
            yield Label(self.title_text, classes="dialog-title")
            if self.explanation:
                with VerticalScroll(classes="prompt-explanation -flex"):
                    yield Static(self.explanation, markup=False)
            yield Static("", classes="prompt-error")
            yield Input(placeholder=self.placeholder, classes="prompt-input")
            yield Label("enter submits · escape cancels", classes="dialog-hint")

    def on_mount(self) -> None:
        apply_input_settings(self)
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if not event.value.strip():
            self.query_one(".prompt-error", Static).update("[$error]type something first[/]")
            return
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)
