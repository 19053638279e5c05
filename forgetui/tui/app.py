"""The Textual app: themes, help, quit and the command palette around the workbench on top,
over the task list when it opened on several tasks (task_switch.py opens and leaves them).

Built by `make_app` from settings the launcher read; nothing here reads a file on the UI thread
(the theme choice is saved from a worker)."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterable
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import SystemCommand
from textual.binding import BindingType
from textual.screen import Screen

from forgetui.engine.api import ForgeError
from forgetui.tui import terminal_watch
from forgetui.tui.commands import COMMANDS, Command, bindings, key_for
from forgetui.tui.messages import ThemeSaved
from forgetui.tui.notices import NoticedApp
from forgetui.tui.session import Session
from forgetui.tui.settings import DEFAULT_THEME, Settings
from forgetui.tui.snapshot import TaskReader
from forgetui.tui.task_switch import OpenTask, TaskSwitch, WorkbenchFailed, WorkbenchReady
from forgetui.tui.theme_set import METER_VARIABLES, ThemeSet
from forgetui.tui.workbench import WorkbenchScreen

if TYPE_CHECKING:
    from forgetui.engine.api import TaskList

STYLES = Path(__file__).parent / "styles" / "app.tcss"
THEME_TOAST = "theme: "
THEME_NOT_SAVED = "Theme not remembered"


class ForgeApp(NoticedApp):
    CSS_PATH = STYLES
    TITLE = "forgetui"
    BINDINGS: ClassVar[list[BindingType]] = bindings("app")  # type: ignore[assignment]
    ENABLE_COMMAND_PALETTE = True

    def __init__(
        self,
        settings: Settings,
        themes: ThemeSet,
        reader: TaskReader | None,
        session: Session | None,
        *,
        open_task: OpenTask | None = None,
        tasks: TaskList | None = None,
    ) -> None:
        """One task (`reader` and `session`), or the list of `tasks`; `open_task` builds the
        parts of another task's workbench (a list's row, a fork)."""
        super().__init__()
        self.settings = settings
        self.theme_set = themes
        self._first = (reader, session)
        self.tasks = tasks
        self.switch = TaskSwitch(self, open_task or _cannot_open)
        self._startup_notices: list[str] = list(settings.notices)
        for theme in themes.themes:
            self.register_theme(theme)
        chosen = settings.theme
        if chosen not in self.available_themes:
            self._startup_notices.append(
                f"theme {chosen!r} is not available; using {DEFAULT_THEME}"
            )
            chosen = DEFAULT_THEME
        if themes.problems:
            self._startup_notices.append(
                "broken theme files skipped: " + "; ".join(themes.problems)
            )
        self.theme = chosen
        if settings.keymap:
            self.set_keymap(dict(settings.keymap))

    def get_theme_variable_defaults(self) -> dict[str, str]:
        """The meter colours, for themes (Textual's built-ins) that do not set them."""
        return dict(METER_VARIABLES)

    def get_default_screen(self) -> Screen[None]:
        reader, session = self._first
        if reader is None or session is None:
            assert self.tasks is not None, "the app needs a task or a list of tasks"
            from forgetui.tui.task_list import TaskListScreen  # the list's engine reads: not here

            return TaskListScreen(self.tasks, self.settings)
        return WorkbenchScreen(reader, session, self.settings)

    @property
    def current_workbench(self) -> WorkbenchScreen | None:
        """The workbench on top (modals over it included); None on the task list."""
        found = (s for s in reversed(self.screen_stack) if isinstance(s, WorkbenchScreen))
        return next(found, None)

    @property
    def workbench(self) -> WorkbenchScreen:
        screen = self.current_workbench
        assert screen is not None, "no workbench is open"
        return screen

    @property
    def reader(self) -> TaskReader:
        """The workbench's on top (before any screen: the one the app opens with)."""
        workbench, first = self.current_workbench, self._first[0]
        if workbench is None and first is not None:
            return first
        return self.workbench.reader

    @property
    def session(self) -> Session:
        workbench, first = self.current_workbench, self._first[1]
        if workbench is None and first is not None:
            return first
        return self.workbench.session

    # -- several tasks --------------------------------------------------------------------------

    def open_task(self, path: Path) -> None:
        """The task's workbench over the screen shown (built in a worker, then pushed)."""
        self.switch.open(path)

    @on(WorkbenchReady)
    async def show_workbench(self, message: WorkbenchReady) -> None:
        await self.switch.ready(message)

    @on(WorkbenchFailed)
    def workbench_failed(self, message: WorkbenchFailed) -> None:
        self.switch.failed(message)

    def action_leave_task(self) -> None:
        self.switch.back()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Back applies only to a workbench opened over another screen (hidden otherwise, so
        escape goes on to whatever else wants it)."""
        if action == "leave_task":
            return self.switch.can_go_back()
        return True

    def on_mount(self) -> None:
        if self._startup_notices:
            # One notification, however many problems: the app still works.
            self.notify(
                "\n".join(self._startup_notices), title="Settings", severity="warning", markup=False
            )
        if not self.is_headless and sys.__stdin__ is not None and sys.platform != "win32":
            terminal_watch.watch(sys.__stdin__.fileno(), self._without_terminal)

    def _without_terminal(self) -> None:
        """The terminal went away (terminal_watch.py; called from its thread, the UI thread
        may be blocked for good): every open task's writer lets go of its lock, an answer
        streaming in stopped first (else the step waits for all of it)."""
        for screen in list(self.screen_stack):
            if isinstance(screen, WorkbenchScreen):
                with contextlib.suppress(Exception):  # the others are let go of all the same
                    screen.session.stop_answer()
                with contextlib.suppress(Exception):
                    screen.session.close()

    # -- commands -----------------------------------------------------------------------------

    def action_next_theme(self) -> None:
        self.theme = self.theme_set.next_after(self.theme)
        # One toast however often `t` is pressed: the last theme named is the one on screen.
        for shown in list(self._notifications):
            if shown.message.startswith(THEME_TOAST) or shown.title == THEME_NOT_SAVED:
                self._unnotify(shown, refresh=False)
        self.notify(f"{THEME_TOAST}{self.theme}", markup=False)
        self.remember_theme(self.theme)

    @work(thread=True, exclusive=True, exit_on_error=False, group="config")
    def remember_theme(self, theme: str) -> None:
        from forgetui.tui.config import save_theme  # the config's reader: YAML and pydantic

        try:
            save_theme(self.settings, theme)
        except (OSError, ForgeError) as exc:
            self.post_message(ThemeSaved(theme, str(exc)))
            return
        self.post_message(ThemeSaved(theme))

    @on(ThemeSaved)
    def report_theme_not_saved(self, message: ThemeSaved) -> None:
        if message.error:
            self.notify(
                f"{message.error}; {message.theme} is used until you quit",
                title=THEME_NOT_SAVED,
                severity="warning",
                markup=False,
            )
        else:
            self.settings = replace(self.settings, theme=message.theme)

    def action_help(self) -> None:
        from forgetui.tui.modals.help import HelpScreen  # not needed for the first view

        if isinstance(self.screen, HelpScreen):
            return
        workbench = self.current_workbench
        snapshot = workbench.snapshot if workbench is not None else None
        self.push_screen(
            HelpScreen(
                self.settings.keymap,
                self.command_applies,
                task_path=workbench.reader.path if workbench is not None else None,
                sandbox=snapshot.sandbox if snapshot is not None else None,
                environment=snapshot.environment if snapshot is not None else None,
            )
        )

    async def action_quit(self) -> None:
        workbench = self.current_workbench
        if workbench is None or workbench.request_quit():
            self.exit(0)

    def command_applies(self, command: Command) -> bool:
        if command.scope == "screen":
            workbench = self.current_workbench
            return workbench is not None and workbench.applies(command.action)
        return self.check_action(command.action, ()) is True

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """The palette offers the commands that apply now, from the one command table."""
        for command in COMMANDS:
            if not self.command_applies(command):
                continue
            target = self if command.scope == "app" else self.current_workbench
            action = getattr(target, f"action_{command.action}")
            if command.argument is not None:
                action = partial(action, command.argument)
            key = key_for(command, self.settings.keymap)
            yield SystemCommand(command.title, f"key {key} · {command.help}", action)


def _cannot_open(path: Path) -> tuple[TaskReader, Session]:
    raise ForgeError(f"{path}: this workbench opens no other task")
