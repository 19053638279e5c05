"""Going from one task to another inside one app: the task list's enter pushes a task's
workbench (reader and session built in a thread worker: opening a task reads its files), and
escape takes it off again, closing its session so its lock and its engine child go with it.

A fork opened right away takes the place of the workbench it was made from (one workbench is
open at a time: it holds the task's session and the screen's name); escape there opens the
task it came from again, read afresh from its files."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from textual.message import Message
from textual.screen import Screen

from forgetui.engine.api import ForgeError
from forgetui.tui.session import Session
from forgetui.tui.snapshot import TaskReader
from forgetui.tui.workers import in_thread

if TYPE_CHECKING:
    from forgetui.tui.app import ForgeApp
    from forgetui.tui.workbench import WorkbenchScreen

# In a worker: the reader and the session of a task's workbench (launch.workbench_parts).
OpenTask = Callable[[Path], tuple[TaskReader, Session]]


@dataclass
class WorkbenchReady(Message):
    """A task's workbench parts, built; `marks` undoes what showing it set up."""

    reader: TaskReader
    session: Session
    marks: contextlib.ExitStack[bool | None] = field(default_factory=contextlib.ExitStack)
    replace: bool = False  # in place of the workbench shown


@dataclass
class WorkbenchFailed(Message):
    path: Path
    error: str
    replace: bool = False


class TaskSwitch:
    """Opens a task's workbench over the screen shown, and takes it off again."""

    def __init__(self, app: ForgeApp, open_task: OpenTask) -> None:
        self._app = app
        self._open_task = open_task
        self._marks: dict[int, contextlib.ExitStack[bool | None]] = {}
        self.opening: Path | None = None  # a workbench being built: one at a time
        self.trail: list[Path] = []  # the tasks forks were opened from, to go back to

    def open(self, path: Path, replace: bool = False) -> None:
        """`path`'s workbench over the screen shown, or (`replace`) in the workbench's place."""
        if self.opening is not None:
            return
        self.opening = path
        in_thread(self._app, lambda: self._build(path, replace), "open-task")

    def open_fork(self, path: Path) -> None:
        """The fork in place of the workbench shown; escape there comes back to this task."""
        from forgetui.tui.workbench import WorkbenchScreen

        shown = self._app.screen
        if isinstance(shown, WorkbenchScreen) and self.opening is None:
            self.trail.append(shown.reader.path)
            self.open(path, replace=True)

    def _build(self, path: Path, replace: bool) -> None:
        """In a thread worker: the parts, and the run copy marked as shown (so `runs --prune`
        leaves it alone while its workbench is open)."""
        from forgetui.engine import api

        marks = contextlib.ExitStack()
        try:
            reader, session = self._open_task(path)
            with contextlib.suppress(OSError, ForgeError):
                marks.enter_context(api.shown_in_workbench(reader.path))
        except (ForgeError, OSError) as exc:
            marks.close()
            message = exc.message if isinstance(exc, ForgeError) else str(exc)
            self._app.post_message(WorkbenchFailed(path, message, replace))
            return
        self._app.post_message(WorkbenchReady(reader, session, marks, replace))

    async def ready(self, message: WorkbenchReady) -> None:
        """Show the workbench, once its parts are built. One replaced is taken off (it
        unmounts: its session closes) before the new one mounts: they share the screen's name."""
        from forgetui.tui.workbench import WorkbenchScreen

        self.opening = None
        screen = WorkbenchScreen(message.reader, message.session, self._app.settings)
        self._marks[id(screen)] = message.marks
        shown = self._app.screen
        if message.replace and isinstance(shown, WorkbenchScreen):
            self._let_go(shown)
            if not shown._result_callbacks:  # the app's first screen was never pushed
                shown._push_result_callback(self._app, None)
            await self._app.switch_screen(Screen[None]())
            await self._app.switch_screen(screen)
        else:
            await self._app.push_screen(screen)

    def _let_go(self, screen: WorkbenchScreen) -> None:
        marks = self._marks.pop(id(screen), None)
        if marks is not None:
            in_thread(self._app, marks.close, "open-task")

    def failed(self, message: WorkbenchFailed) -> None:
        self.opening = None
        if message.replace and self.trail:
            self.trail.pop()  # still on the task it would have come back to
        self._app.notify(message.error, title=f"cannot open {message.path.name}",
                         severity="error", markup=False)  # fmt: skip

    def can_go_back(self) -> bool:
        """A workbench opened from the list, or a fork opened from its task."""
        from forgetui.tui.workbench import WorkbenchScreen

        stack = self._app.screen_stack
        return isinstance(stack[-1], WorkbenchScreen) and (len(stack) > 1 or bool(self.trail))

    def back(self) -> None:
        """Off the top workbench, once no step is in flight: a run is paused first (the step
        in flight finishes and is recorded), and escape again leaves."""
        from forgetui.tui.workbench import WorkbenchScreen

        screen = self._app.screen
        if not self.can_go_back() or not isinstance(screen, WorkbenchScreen):
            return
        if screen.running:
            screen.run_control.run_pause()
        if screen.step_in_flight is not None:
            self._app.notify(
                f"step {screen.step_in_flight} is finishing: escape again once it is recorded",
                markup=False,
            )
            return
        if self.trail:
            if self.opening is None:
                self.open(self.trail.pop(), replace=True)
            return
        self._let_go(screen)
        self._app.pop_screen()  # its unmount closes the session: lock and engine child go
