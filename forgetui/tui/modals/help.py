"""The help modal: every command of the one command table, its key and whether it applies now."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from forgetui.tui.commands import COMMANDS, Command, key_for
from forgetui.tui.markup import fmt, lines

INTRO = (
    "Each step sends a fresh context compiled from the task's files, never a chat history. "
    "The task opens paused on the context its next step will send. Tab moves between panes; "
    "enter opens what is selected. ctrl+p opens the command palette, which offers only the "
    "commands that apply now."
)


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q", "close", "close", id="help-close"),
    ]

    def __init__(self, keymap: Mapping[str, str], applies: Callable[[Command], bool]) -> None:
        super().__init__()
        self.keymap = keymap
        self.applies = applies

    def compose(self) -> ComposeResult:
        entries = []
        for command in COMMANDS:
            now = "" if self.applies(command) else "  [$text-muted](not now)[/]"
            entries.append(
                fmt(f" [b $accent]$key[/]  [b]$title[/]{now}\n          $help",
                    key=key_for(command, self.keymap).rjust(7), title=command.title,
                    help=command.help)
            )  # fmt: skip
        with Vertical(id="help-dialog", classes="dialog"):
            yield Label("forgetui: keys", classes="dialog-title")
            yield Static(INTRO, id="help-intro")
            with VerticalScroll():
                yield Static(lines(entries), id="help-keys")
            yield Label("escape closes", classes="dialog-hint")

    def action_close(self) -> None:
        self.dismiss(None)
