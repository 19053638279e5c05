"""The message history: every message the app showed, newest first, with when it came, at
which step and of which task; `c` copies the selected one's text (a fork's path, a command)."""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from forgetui.tui.markup import fmt, lines
from forgetui.tui.notice_log import HISTORY_LIMIT, Notice

SEVERITY_STYLE = {
    "information": "$foreground-muted", "warning": "bold $warning", "error": "bold $error",
}  # fmt: skip
NAMES_A_STEP = re.compile(r"step \d")  # a title such as "step 4: answer stopped"
HINT = "↑↓ select · c copies the message · escape closes"


def clock(at: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(at))


def notice_prompt(notice: Notice) -> Content:
    """The time, step, task and title on one line; the message below it, as it was shown."""
    head = fmt("[b]$time[/]", time=clock(notice.at))
    if notice.task:
        head += fmt(" · $task", task=notice.task)
    if notice.step is not None and not NAMES_A_STEP.match(notice.heading):
        # a message about a step names it in its title; the step the screen stood at when it
        # came may lag that one, and two step numbers on one line disagree
        head += fmt(" · step $step", step=notice.step)
    if notice.heading:
        style = SEVERITY_STYLE.get(notice.severity, "")
        head += Content(" · ") + Content.styled(notice.heading, style)
    if notice.kept:
        head += fmt(" · [$accent]kept on screen[/]")
    return lines([head, Content(notice.text)])


class MessageHistoryScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    #messages-dialog { width: 120; }
    #messages-list { height: auto; max-height: 70vh; border: none; padding: 0; }
    #messages-list > .option-list--option-highlighted { background: $primary 45%; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "copy", "copy", id="messages-copy"),
        Binding("escape", "close", "close", id="messages-close"),
        # the command's own binding id: a keymap that moves the key that opens it moves this too
        Binding("h", "close", "close", id="messages", show=False),
    ]

    def __init__(self, notices: Sequence[Notice]) -> None:
        super().__init__(id="messages")
        self.notices = list(notices)  # newest first

    def compose(self) -> ComposeResult:
        count = len(self.notices)
        title = f"Messages: {count}" + (f" (the last {HISTORY_LIMIT} are kept)" if count >=
                                        HISTORY_LIMIT else "")  # fmt: skip
        with Vertical(id="messages-dialog", classes="dialog"):
            yield Label(Content(title), id="messages-title", classes="dialog-title")
            listed = OptionList(id="messages-list")
            for index, notice in enumerate(self.notices):
                if index:
                    listed.add_option(None)  # a rule between two messages
                listed.add_option(Option(notice_prompt(notice), id=str(index)))
            if not self.notices:
                listed.add_option(Option(Content("No message was shown yet.")))
                listed.disable_option_at_index(0)
            yield listed
            yield Static(HINT, id="messages-hint", classes="dialog-hint", markup=False)

    def on_mount(self) -> None:
        listed = self.query_one(OptionList)
        listed.focus()
        if self.notices:
            listed.highlighted = 0

    @property
    def selected(self) -> Notice | None:
        option = self.query_one(OptionList).highlighted_option
        return None if option is None or option.id is None else self.notices[int(option.id)]

    def action_copy(self) -> None:
        """To the clipboard (the terminal's, by OSC 52); said in the hint, not as a message,
        so copying does not add to the history it copies from."""
        notice = self.selected
        if notice is None:
            return
        self.app.copy_to_clipboard(notice.text)
        self.query_one("#messages-hint", Static).update(f"copied · {HINT}")

    def action_close(self) -> None:
        self.dismiss(None)
