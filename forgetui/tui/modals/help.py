"""The help modal: every command of the one command table, its key and whether it applies now."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from forgetui.engine.api import ProjectEnvironment, SandboxMode
from forgetui.tui.commands import COMMANDS, Command, key_for
from forgetui.tui.markup import fmt, lines

INTRO = (
    "Each step sends a fresh context compiled from the task's files, never a chat history. "
    "The task opens paused on the context its next step will send. Tab moves between panes; "
    "enter opens what is selected. ctrl+p opens the command palette, which offers only the "
    "commands that apply now."
)


def home_relative(path: Path) -> str:
    """`~/...` for a path under the home directory: a run copy's path is long, and this keeps
    it on one line of the dialog in the usual case."""
    try:
        return f"~/{path.relative_to(Path.home())}"
    except (ValueError, RuntimeError):  # not under home, or no home to speak of
        return str(path)


class HelpScreen(ModalScreen[None]):
    DEFAULT_CSS = "#help-task-path, #help-sandbox, #help-python { margin-bottom: 1; }"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q", "close", "close", id="help-close"),
    ]

    def __init__(
        self,
        keymap: Mapping[str, str],
        applies: Callable[[Command], bool],
        task_path: Path | None = None,
        sandbox: SandboxMode | None = None,
        environment: ProjectEnvironment | None = None,
    ) -> None:
        super().__init__()
        self.keymap = keymap
        self.applies = applies
        # A sample opens as a copy in the runs directory; help is where to find out which.
        self.task_path = task_path
        self.sandbox = sandbox
        self.environment = environment

    def compose(self) -> ComposeResult:
        entries = []
        panes = [command for command in COMMANDS if command.action == "show_pane"]
        for command in COMMANDS:
            if command in panes[1:]:
                continue  # the pane keys are one entry
            now = "" if self.applies(command) else "  [$text-muted](not now)[/]"
            key, title, text = key_for(command, self.keymap), command.title, command.help
            if command is panes[0]:
                key = f"{key}-{key_for(panes[-1], self.keymap)}"
                title = "Show a pane"
                text = " · ".join(f"{key_for(p, self.keymap)} {p.description}" for p in panes)
                text += " (in a narrow terminal: its tab)"
            entries.append(
                fmt(f" [b $accent]$key[/]  [b]$title[/]  $help{now}",
                    key=key.rjust(7), title=title.ljust(24), help=text)
            )  # fmt: skip
        with Vertical(id="help-dialog", classes="dialog"):
            yield Label("forgetui: keys", classes="dialog-title")
            if self.task_path is not None:
                yield Static(
                    fmt("[b]task folder[/] $path", path=home_relative(self.task_path)),
                    id="help-task-path",
                )
            if self.sandbox is not None:
                yield Static(
                    fmt("[b]sandbox[/] $name: $reason", name=self.sandbox.name,
                        reason=self.sandbox.reason),
                    id="help-sandbox",
                )  # fmt: skip
            if self.environment is not None:
                yield Static(
                    fmt("[b]python[/] $python ($label)", python=str(self.environment.python),
                        label=self.environment.label),
                    id="help-python",
                )  # fmt: skip
            yield Static(INTRO, id="help-intro")
            with VerticalScroll():
                yield Static(lines(entries), id="help-keys")
            yield Label("escape closes", classes="dialog-hint")

    def action_close(self) -> None:
        self.dismiss(None)
