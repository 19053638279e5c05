"""The task list: every task under a workspace (or the run copies) with its status, step, cost,
how full its context runs and the question it waits on. Enter opens a task's workbench, escape
there comes back; `i` gathers every waiting question in one inbox.

The list is read by a thread worker (api.TaskList: bounded reads per task, no log scan), on
mount, on coming back to it, and every REFRESH_S while the app watches files; the UI thread
only paints rows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Static

from forgetui.engine.api import ForgeError, TaskList, TaskOverview
from forgetui.tui.config import Settings
from forgetui.tui.footer import KeyFooter
from forgetui.tui.markup import fmt

REFRESH_S = 2.0
QUESTION_WIDTH = 48  # the question's first words; the inbox has it whole
# the question right after the status: at 80 columns it shows, cost and context scroll right
COLUMNS = ("task", "status", "step", "waiting question", "cost", "context", "workspace")
LEVEL_VARIABLE = {"warn": "warning", "critical": "error"}


@dataclass
class TasksRead(Message):
    tasks: list[TaskOverview]
    error: str | None = None

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, TasksRead)


Colours = dict[str, str]  # the theme's variables, for rich styles: the table's cells are Text


def status_cell(task: TaskOverview, colours: Colours) -> Text:
    if task.escalation is not None:
        return Text("waiting for you", style=f"bold {colours.get('warning', 'yellow')}")
    if task.error is not None:
        return Text(task.status, style=f"bold {colours.get('error', 'red')}")
    return Text(task.status_text)


def context_cell(task: TaskOverview, colours: Colours) -> Text:
    """The fullest section against its budget, as the header names it under pressure."""
    worst = task.worst
    variable = LEVEL_VARIABLE.get(worst.level) if worst is not None else None
    return Text(task.context_text, style=f"bold {colours.get(variable, '')}" if variable else "")


def question_cell(task: TaskOverview, colours: Colours) -> Text:
    muted = colours.get("text-muted", "") if task.error is not None else ""
    return Text(task.question_line(QUESTION_WIDTH), style=muted)


class TaskListScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open_task", "open", id="list-open", priority=True),
        Binding("i", "all_questions", "inbox", id="list-inbox",
                tooltip="Every task's waiting question, answered from one place"),
        Binding("f5", "reread", "refresh", id="list-refresh", show=False),
    ]  # fmt: skip
    DEFAULT_CSS = """
    TaskListScreen { layout: vertical; }
    #list-header { height: 1; background: $panel; }
    #task-table { height: 1fr; border: none; }
    #list-empty { color: $text-muted; padding: 1 2; height: auto; display: none; }
    """

    def __init__(self, tasks: TaskList, settings: Settings) -> None:
        super().__init__(id="task-list")
        self.tasks = tasks
        self.settings = settings
        self.shown: list[TaskOverview] = []

    def compose(self) -> ComposeResult:
        yield Static(id="list-header")
        yield DataTable[Text](id="task-table", cursor_type="row", zebra_stripes=True)
        yield Static("reading the tasks…", id="list-empty")
        yield KeyFooter(id="footer")

    def on_mount(self) -> None:
        table: DataTable[Text] = self.query_one(DataTable)
        for column in COLUMNS:
            table.add_column(column, key=column)
        self.show_header()
        table.focus()
        self.reread()
        if self.settings.watch:
            self.set_interval(REFRESH_S, self.reread)

    def on_screen_resume(self) -> None:
        """Back from a workbench: what was done there shows at once."""
        if self.is_mounted:
            self.reread()

    @work(thread=True, exclusive=True, exit_on_error=False, group="tasks")
    def reread(self) -> None:
        try:
            self.post_message(TasksRead(self.tasks.read()))
        except (ForgeError, OSError) as exc:
            error = exc.message if isinstance(exc, ForgeError) else str(exc)
            self.post_message(TasksRead([], error))

    def action_reread(self) -> None:
        self.reread()

    @on(TasksRead)
    def show_tasks(self, message: TasksRead) -> None:
        table: DataTable[Text] = self.query_one(DataTable)
        current = self.selected
        self.shown = message.tasks
        table.clear()
        colours = self.app.theme_variables
        for task in self.shown:
            cells = {
                "task": Text(task.name),
                "status": status_cell(task, colours),
                "step": Text(str(task.step), justify="right"),
                "waiting question": question_cell(task, colours),
                "cost": Text(f"${task.cost_usd:.4f}", justify="right"),
                "context": context_cell(task, colours),
                "workspace": Text(task.workspace_from(self.tasks.place)),
            }
            table.add_row(*(cells[column] for column in COLUMNS), key=str(task.path))
        paths = [task.path for task in self.shown]
        if current is not None and current.path in paths:
            table.move_cursor(row=paths.index(current.path), animate=False)
        empty = self.query_one("#list-empty", Static)
        empty.display = not self.shown
        if message.error is not None:
            empty.update(Content(message.error))
        self.show_header()

    def show_header(self) -> None:
        place = self.tasks.place.resolve()
        count = len(self.shown)
        waiting = sum(task.escalation is not None for task in self.shown)
        text = fmt(" [b]forgetui[/]  $count in $place/", place=place.name or str(place),
                   count=f"{count} task{'s' * (count != 1)}")  # fmt: skip
        if waiting:
            text += fmt("  [b $warning]$n waiting for you (i)[/]", n=str(waiting))
        self.query_one("#list-header", Static).update(text)

    @property
    def selected(self) -> TaskOverview | None:
        table: DataTable[Text] = self.query_one(DataTable)
        row = table.cursor_row
        return self.shown[row] if self.shown and 0 <= row < len(self.shown) else None

    def action_open_task(self) -> None:
        task = self.selected
        open_task = getattr(self.app, "open_task", None)  # ForgeApp's: task_switch.py
        if task is not None and callable(open_task):
            open_task(task.path)

    def action_all_questions(self) -> None:
        from forgetui.tui.modals.all_inbox import AllInboxScreen

        def closed(_: None) -> None:
            self.reread()

        self.app.push_screen(AllInboxScreen(self.tasks), closed)
