"""The model dialog: which model runs the next steps. A text prompt whose input may start
filled in (`human` when the task has no model that can run: enter takes it)."""

from __future__ import annotations

from textual.widgets import Input

from forgetui.tui.modals.text_prompt import TextPromptScreen


class ModelPromptScreen(TextPromptScreen):
    def __init__(self, explanation: str, current: str, value: str = "") -> None:
        super().__init__("Model", explanation, current, prompt_id="model-prompt")
        self.value = value

    def on_mount(self) -> None:  # after the prompt's own (Textual calls both)
        if self.value:
            field = self.query_one(Input)
            field.value = self.value
            field.cursor_position = len(self.value)
