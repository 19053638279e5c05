"""Reading the task for the workbench's views, off the UI thread: the snapshot, the action log's
rows, and the folder watched for other programs' edits. Workers run on the screen and only post
messages; the screen shows a snapshot and hands the rest back here (rows go to the log pane).

Reloads asked for while one runs coalesce into one more, and loads are spaced (more while steps
run back to back) so a busy writer in another process cannot keep the UI thread repainting
instead of answering keys."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer

from forgetui.engine.api import ForgeError
from forgetui.tui.messages import (
    LogRowsLoaded,
    LogTailLoaded,
    LogWindowNeeded,
    SnapshotFailed,
    SnapshotLoaded,
    TaskFilesChanged,
)
from forgetui.tui.panes.action_log import ActionLogPane, LogView
from forgetui.tui.snapshot import TaskReader
from forgetui.tui.workers import in_thread

WATCHED_FILES = frozenset({"state.yaml", "working_memory.yaml", "actions.yaml", "lock"})
WATCH_DEBOUNCE_MS = 40
RELOAD_SPACING = 0.05  # seconds between two loads of the task's views
RELOAD_SPACING_RUNNING = 0.5  # ... while steps run back to back


def _is_task_file(_change: object, path: str) -> bool:
    return Path(path).name in WATCHED_FILES


class TaskLoader:
    """`running` says whether steps run back to back (the longer spacing), `rows_shown` is
    called once loaded rows are in the log pane (what applies may change with the selection);
    `screen` is where the workers run and their messages go."""

    def __init__(
        self,
        screen: Screen[Any],
        reader: TaskReader,
        running: Callable[[], bool],
        rows_shown: Callable[[], None],
    ) -> None:
        self._screen = screen
        self._reader = reader
        self._running = running
        self._rows_shown = rows_shown
        self._loading = False
        self._again = False
        self._urgent = False
        self._last_load = 0.0
        self._timer: Timer | None = None

    @property
    def pending(self) -> bool:
        """A load runs or waits for its turn: the views may not show the files yet."""
        return self._loading or self._timer is not None

    # -- the snapshot ---------------------------------------------------------------------------

    def request(self, urgent: bool = False) -> None:
        """Reload the task's views. An urgent one (our own step was recorded) skips the
        spacing: the run waits for it, so the screen is never more than a step behind."""
        if self._loading:
            self._again = True
            self._urgent = self._urgent or urgent
            return
        if self._timer is not None:
            if not urgent:
                self._again = True
                return
            self._timer.stop()
            self._timer = None
        spacing = 0.0 if urgent else RELOAD_SPACING_RUNNING if self._running() else RELOAD_SPACING
        wait = self._last_load + spacing - time.monotonic()
        if wait > 0:
            self._timer = self._screen.set_timer(wait, self._when_due)
            return
        self._loading = True
        self._again = self._urgent = False
        self._last_load = time.monotonic()
        in_thread(self._screen, self._load_snapshot, "loader")

    def _when_due(self) -> None:
        self._timer = None
        self._again = False
        self.request()

    def _load_snapshot(self) -> None:
        try:
            self._screen.post_message(SnapshotLoaded(self._reader.snapshot()))
        except ForgeError as exc:
            self._screen.post_message(SnapshotFailed(exc.message))

    def loaded(self) -> None:
        """A load ended (read or not): the one asked for meanwhile starts."""
        self._loading = False
        if self._again:
            urgent, self._again, self._urgent = self._urgent, False, False
            self.request(urgent)

    # -- the action log and other programs' edits ----------------------------------------------

    def handle(self, message: Message) -> None:
        """The log pane's or a log read's message, or the watcher's, routed by the screen."""
        match message:
            case LogTailLoaded(count=count, rows=rows):
                self._screen.query_one(ActionLogPane).show_log(count, rows)
            case LogWindowNeeded(first=first, end=end):
                self._load_log_rows(first, end)
            case LogRowsLoaded(rows=rows):
                self._screen.query_one(LogView).add_rows(rows)
                self._rows_shown()
            case TaskFilesChanged():
                self.request()

    def load_log_tail(self) -> None:
        """The log's newest rows on their own, while the task's other files do not read."""
        in_thread(self._screen, self._load_log_tail, "log", exclusive=True)

    def _load_log_tail(self) -> None:
        try:
            count, rows = self._reader.log_tail()
        except ForgeError:
            return  # the log does not read either: the banner names the first problem
        self._screen.post_message(LogTailLoaded(count, rows))

    def _load_log_rows(self, first: int, end: int) -> None:
        def load() -> None:
            self._screen.post_message(LogRowsLoaded(first, self._reader.log_rows(first, end)))

        in_thread(self._screen, load, "log")

    def watch(self) -> None:
        """Another program's edits (an editor, a headless run) show within a second."""
        self._screen.run_worker(
            self._watch_folder(), name="watch_task_folder", group="watch", exclusive=True,
            exit_on_error=False,
        )  # fmt: skip

    async def _watch_folder(self) -> None:
        from watchfiles import awatch

        async for _changes in awatch(
            self._reader.path, watch_filter=_is_task_file, debounce=WATCH_DEBOUNCE_MS, step=20
        ):
            self._screen.post_message(TaskFilesChanged())
