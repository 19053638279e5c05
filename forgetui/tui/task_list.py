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
from forgetui.tui.footer import KeyFooter
from forgetui.tui.markup import fmt
from forgetui.tui.settings import Settings
from forgetui.tui.task_columns import SHORT, Column, fitted, plan_columns, short_workspace

REFRESH_S = 2.0
QUESTION_WIDTH = 48  # the question's first words; the inbox has it whole
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


def context_cell(task: TaskOverview, colours: Colours, short: bool = False) -> Text:
    """The fullest section against its budget, as the header names it under pressure (short:
    its figure only)."""
    worst = task.worst
    variable = LEVEL_VARIABLE.get(worst.level) if worst is not None else None
    text = f"{int(worst.percent)}%" if short and worst is not None else task.context_text
    return Text(text, style=f"bold {colours.get(variable, '')}" if variable else "")


def question_cell(task: TaskOverview, colours: Colours) -> Text:
    muted = colours.get("text-muted", "") if task.error is not None else ""
    return Text(task.question_line(QUESTION_WIDTH), style=muted)


class TaskTable(DataTable[Text]):
    """The rows, one per task. Home and End go to the first and last task (the columns fit the
    width: there is nothing to scroll sideways). Enter is the table's own key, not one the
    screen takes first, so arrows typed before it move the cursor before it opens a task."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "screen.open_task", "open", id="list-open"),
    ]

    def action_scroll_home(self) -> None:
        self.action_scroll_top()

    def action_scroll_end(self) -> None:
        self.action_scroll_bottom()


class TaskListScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
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
        self._rows: list[dict[str, Text]] = []
        self._plan: list[Column] | None = None  # the columns in place: rebuilt when they change

    def compose(self) -> ComposeResult:
        yield Static(id="list-header")
        yield TaskTable(id="task-table", cursor_type="row", zebra_stripes=True)
        yield Static("reading the tasks…", id="list-empty")
        yield KeyFooter(id="footer")

    def on_mount(self) -> None:
        table: DataTable[Text] = self.query_one(DataTable)
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
        current = self.selected
        self.shown = message.tasks
        colours = self.app.theme_variables
        self._rows = []
        for task in self.shown:
            workspace = task.workspace_from(self.tasks.place)
            self._rows.append({
                "task": Text(task.name),
                "status": status_cell(task, colours),
                "step": Text(str(task.step), justify="right"),
                "waiting question": question_cell(task, colours),
                "cost": Text(f"${task.cost_usd:.4f}", justify="right"),
                "context": context_cell(task, colours),
                SHORT["context"]: context_cell(task, colours, short=True),
                "workspace": Text(workspace),
                SHORT["workspace"]: Text(short_workspace(workspace, task.name)),
            })  # fmt: skip
        self._paint_rows()
        paths = [task.path for task in self.shown]
        if current is not None and current.path in paths:
            table: DataTable[Text] = self.query_one(DataTable)
            table.move_cursor(row=paths.index(current.path), animate=False)
        empty = self.query_one("#list-empty", Static)
        empty.display = not self.shown
        if message.error is not None:
            empty.update(Content(message.error))
        self.show_header()

    def on_resize(self) -> None:
        if self._rows:
            row = self.query_one(DataTable).cursor_row
            self._paint_rows()
            self.query_one(DataTable).move_cursor(row=row, animate=False)

    def _paint_rows(self) -> None:
        """The rows in the columns that fit the table's width (task_columns.py)."""
        table: DataTable[Text] = self.query_one(DataTable)
        width = table.size.width or self.size.width
        columns = plan_columns(self._rows, width - 1, QUESTION_WIDTH)  # 1: a scrollbar's room
        table.clear(columns=columns != self._plan)
        if columns != self._plan:
            self._plan = columns
            for column in columns:
                table.add_column(column.title, width=column.width, key=column.key)
        for task, row in zip(self.shown, self._rows, strict=True):
            cells = [fitted(row[column.cell_key], column.width) for column in columns]
            table.add_row(*cells, key=str(task.path))

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
