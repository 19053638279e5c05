"""The action log's filter prompt: the text prompt, starting from the filter in force, where an
empty answer is an answer (show every row) and escape clears the filter too."""

from __future__ import annotations

from textual.widgets import Input

from forgetui.tui.modals.text_prompt import TextPromptScreen


class LogFilterScreen(TextPromptScreen):
    """Dismisses with the filter text, "" to show every row."""

    def __init__(self, current: str = "") -> None:
        super().__init__(
            "Filter the action log",
            "Only the rows whose action, target, result or summary holds this text (any case). "
            "An empty filter, or escape, shows every row.",
            "e.g. write_file, failure, hello.py",
            prompt_id="log-filter-prompt",
        )
        self.current = current

    def on_mount(self) -> None:
        # TextPromptScreen.on_mount runs too (Textual calls each class's handler): it focuses
        self.query_one(Input).value = self.current

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        event.prevent_default()  # the text prompt's own handler refuses an empty answer
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss("")
