"""task.yaml changed since the operator accepted it (an edit by hand, or an agent rewriting its
own allow-list): no step runs until the operator has seen what changed and accepted it. The
diff scrolls, so the buttons stay on screen at 80x24. Dismisses with True to accept."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from forgetui.engine.api import TaskChange
from forgetui.tui.markup import fmt, lines

# A diff line's first character -> its style
_DIFF_STYLES = {"+": "$success", "-": "$error", "@": "$accent"}


def diff_content(diff: str) -> Content:
    """The unified diff, added lines green and removed ones red."""
    shown = []
    for line in diff.rstrip("\n").splitlines():
        style = _DIFF_STYLES.get(line[:1]) if not line.startswith(("+++", "---")) else None
        shown.append(fmt(f"[{style}]$line[/]", line=line) if style else Content(line))
    return lines(shown)


class TaskChangeScreen(ModalScreen[bool]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "accept", id="task-change-accept"),
        Binding("n", "answer(False)", "not now", id="task-change-later"),
        Binding("escape", "answer(False)", "not now", show=False),
    ]

    def __init__(self, change: TaskChange) -> None:
        super().__init__(id="task-change")
        self.change = change

    def compose(self) -> ComposeResult:
        change = self.change
        with Vertical(id="task-change-dialog", classes="dialog"):
            yield Label(
                Content(f"{change.summary()} since it was accepted"), classes="dialog-title"
            )
            yield Static(
                "No step runs until you accept it: the agent's commands, limits and checks come "
                "from this file. Accepting is recorded in the log.",
                id="task-change-why",
                markup=False,
            )
            with VerticalScroll(id="task-change-diff"):
                if change.diff:
                    yield Static(diff_content(change.diff))
                else:
                    yield Static(
                        Content(
                            "(the accepted copy is gone, so the change cannot be shown: "
                            f"open {change.task_file} to review it)"
                        )
                    )
            with Horizontal(classes="buttons"):
                yield Button("Accept", id="accept", variant="warning")
                yield Button("Not now", id="later", variant="primary")
            yield Label("y accept · n or escape not now", classes="dialog-hint")

    def on_mount(self) -> None:
        self.query_one("#later", Button).focus()  # enter on the default runs nothing new

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "accept")
