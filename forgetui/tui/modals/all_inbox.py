"""Every task's waiting question in one place, from the task list: `a` (or enter) answers the
selected one in the answer modal the workbench uses, and the answer goes to that task through
the engine's door (a TaskService of its own, closed at once: its lock is held only while the
answer is written). The questions are read again after each answer.

A task whose workbench is open elsewhere, or that another program runs, may be holding its lock
while it writes: the answer is then refused, and the notice says by whom."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from forgetui.engine import api
from forgetui.engine.api import ForgeError, TaskList, TaskOverview
from forgetui.tui.markup import fmt, lines
from forgetui.tui.modals.escalation import REASON_TEXT, EscalationScreen, Handover


@dataclass
class QuestionsRead(Message):
    waiting: list[TaskOverview]
    error: str | None = None


@dataclass
class Answered(Message):
    task: str
    said: str
    error: str | None = None


def question_prompt(task: TaskOverview) -> Content:
    """The task and why it asks; the question; its options."""
    esc = task.escalation
    assert esc is not None
    why = REASON_TEXT.get(esc.reason, esc.reason)
    head = fmt("[b]$name[/] · step $step · $why · [$foreground-muted]$where[/]",
               name=task.name, step=esc.step, why=why, where=task.workspace.name)  # fmt: skip
    parts = [head, Content(esc.question)]
    if esc.options:
        options = " / ".join(esc.options)
        parts.append(fmt("[$foreground-muted]options: $options[/]", options=options))
    return lines(parts)


class AllInboxScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    #all-inbox-dialog { width: 110; }
    #all-inbox-list { height: auto; max-height: 55vh; border: none; padding: 0; }
    #all-inbox-list > .option-list--option-highlighted { background: $primary 45%; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "answer", "answer", id="all-inbox-answer"),
        Binding("escape", "close", "close", id="all-inbox-close"),
    ]

    def __init__(self, tasks: TaskList) -> None:
        super().__init__(id="all-inbox")
        self.tasks = tasks
        self.waiting: list[TaskOverview] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="all-inbox-dialog", classes="dialog"):
            yield Label("Waiting questions", id="all-inbox-title", classes="dialog-title")
            yield OptionList(id="all-inbox-list")
            yield Static("↑↓ select · a or enter answers · escape closes",
                         classes="dialog-hint", markup=False)  # fmt: skip

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()
        self.read_questions()

    @work(thread=True, exclusive=True, exit_on_error=False, group="inbox")
    def read_questions(self) -> None:
        try:
            waiting = [task for task in self.tasks.read() if task.escalation is not None]
        except ForgeError as exc:
            self.post_message(QuestionsRead(self.waiting, exc.message))
            return
        self.post_message(QuestionsRead(waiting))

    @on(QuestionsRead)
    def show_questions(self, message: QuestionsRead) -> None:
        if message.error is not None:
            self.notify(message.error, title="inbox", severity="error", markup=False)
        listed = self.query_one(OptionList)
        selected = self.selected
        self.waiting = message.waiting
        count = len(self.waiting)
        title = f"Waiting questions: {count} task{'s' * (count != 1)} waiting for you"
        self.query_one("#all-inbox-title", Label).update(Content(title))
        listed.set_options(
            Option(question_prompt(task), id=str(task.path)) for task in self.waiting
        )
        if not self.waiting:
            listed.add_option(Option(Content("No task is waiting for an answer.")))
            listed.disable_option_at_index(0)
            return
        paths = [task.path for task in self.waiting]
        listed.highlighted = (
            paths.index(selected.path) if selected and selected.path in paths else 0
        )

    @property
    def selected(self) -> TaskOverview | None:
        index = self.query_one(OptionList).highlighted
        return self.waiting[index] if index is not None and index < len(self.waiting) else None

    @on(OptionList.OptionSelected)
    def action_answer(self) -> None:
        task = self.selected
        if task is None or task.escalation is None:
            return
        phases = api.phases_of(task.task_type) if task.task_type else ()

        def answered(text: str | Handover | None) -> None:
            if isinstance(text, Handover):  # typing its steps needs its workbench: answer only
                text = text.answer
            if text is not None:
                self.send_answer(task, text)

        self.app.push_screen(EscalationScreen(task.escalation, (), phases), answered)

    @work(thread=True, exit_on_error=False, group="inbox")
    def send_answer(self, task: TaskOverview, text: str) -> None:
        """Through the door, as the workbench's session answers: logged, under the lock."""
        service = api.TaskService(task.path)
        try:
            said = service.answer(text)
        except ForgeError as exc:
            self.post_message(Answered(task.name, "", exc.message))
            return
        finally:
            service.close()
        self.post_message(Answered(task.name, said))

    @on(Answered)
    def report_answer(self, message: Answered) -> None:
        if message.error is not None:
            self.notify(message.error, title=f"{message.task}: not answered",
                        severity="error", markup=False)  # fmt: skip
        else:
            self.notify(message.said, title=message.task, markup=False)
        self.read_questions()

    def action_close(self) -> None:
        self.dismiss(None)
