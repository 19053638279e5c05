"""Reading the task for the workbench's views, off the UI thread: the snapshot, the action log's
rows, and the folder watched for other programs' edits. Workers run on the screen and only post
messages; the screen shows a snapshot and hands the rest back here (rows go to the log pane).

Reloads asked for while one runs coalesce into one more, and loads are spaced (more while steps
run back to back) so a busy writer in another process cannot keep the UI thread repainting
instead of answering keys. While our own steps run back to back the watcher's reloads are left
out: every change is ours, each step's own reload shows it, and a new record reaches the log
pane as it is written, by a read of the log's tail alone (`show_new_records`).

That read, and the log pane's loads of older rows, go through a reader of their own: the
task's reader is held for a whole snapshot (the next context counted: a tenth of a second,
and a second or more for the first one in this process on a loaded machine), and a step's
records queued behind it left the screen two records behind the run."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer

from forgetui.engine.api import ForgeError, LogRow
from forgetui.tui.folder_watch import FolderWatch
from forgetui.tui.messages import (
    LogRowsLoaded,
    LogTailLoaded,
    LogWindowNeeded,
    SnapshotFailed,
    SnapshotLoaded,
    TaskFilesChanged,
)
from forgetui.tui.panes.action_log import ActionLogPane, LogView
from forgetui.tui.snapshot import FIRST_VIEW_WAIT_S, TaskReader, TaskSnapshot
from forgetui.tui.workers import after_paint, in_thread

RELOAD_SPACING = 0.05  # seconds between two loads of the task's views
RELOAD_SPACING_RUNNING = 0.5  # ... while steps run back to back


def _nothing() -> None:
    return None


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
        self._framed = False  # the first load showed the frame before counting tokens
        self._tail_reading = False  # a read of the log's tail for new records runs
        self._tail_again = False
        self._tail_shown: list[Callable[[], None]] = []  # to call once the rows are painted
        # the log's own reader (see the module's docstring); it reads task.yaml at its first use
        self._log = TaskReader(reader.path, owns_lock=reader.owns_lock)
        # When each read began (time.monotonic()), so a read that began before the one the log
        # pane shows never replaces it: a snapshot counted while a step's records came in would
        # take them off the screen again (the log only grows, except when cut: counts can't tell)
        self._snapshot_began = 0.0  # of the snapshot last handed to the panes
        self._tail_began = 0.0  # of the tail read running or last run
        self._log_began = 0.0  # of the read the log pane shows
        self._folder_watch = FolderWatch(screen, reader.path)  # before the first read
        self._watch_wanted = False
        self._first_shown = False  # a first load (the whole view, or why not) ended
        self.painting = False  # set by whoever puts a loaded snapshot on the panes

    @property
    def pending(self) -> bool:
        """A load runs or waits for its turn, or the last one is still being put on the panes
        (`painting`, one pane per turn): the views may not show the files yet."""
        return self._loading or self._timer is not None or self.painting

    # -- the snapshot ---------------------------------------------------------------------------

    def start(self) -> TaskSnapshot | None:
        """The first load: the launcher's child's view if it is here already, returned for the
        mount to put on the panes before the first paint; at once when the child still counts
        (the worker waits on its answer, which costs the first paint nothing); else once the
        screen is painted (the frame first)."""
        early = self._reader.first_view
        # waited for here, the screen's loop held: the panes are composed by now, and painted
        # before it answers they would be empty, then painted again (it answers in moments)
        shown = early.answered(self._reader.path, FIRST_VIEW_WAIT_S) if early else None
        if shown is not None:
            self._framed = self._loading = True
            self._last_load = time.monotonic()
            return shown
        if early is not None:
            self.request()
        else:
            self._screen.call_after_refresh(self.request)
        return None

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
        """The first load puts the frame up first, unless the launcher's child has counted the
        whole view already: counting tokens needs the compiler and tiktoken's tables, which
        take longer to load than the app."""
        try:
            if self._framed:
                snapshot = self._reader.snapshot()
            else:
                self._framed = True
                snapshot = self._reader.first_snapshot(self._show_frame)
            self._screen.post_message(SnapshotLoaded(snapshot))
        except ForgeError as exc:
            self._screen.post_message(SnapshotFailed(exc.message))

    def _show_frame(self, frame: TaskSnapshot) -> None:
        self._screen.post_message(SnapshotLoaded(frame))

    def loaded(self, frame: bool = False) -> None:
        """A load ended (read or not): the one asked for meanwhile starts. Not a `frame`: the
        same worker is reading the rest."""
        self._snapshot_began = self._last_load
        if frame:
            return
        self._first_shown = True
        if self._watch_wanted:
            self._folder_watch.start()
        self._loading = False
        if self._again:
            urgent, self._again, self._urgent = self._urgent, False, False
            self.request(urgent)

    # -- the action log and other programs' edits ----------------------------------------------

    def handle(self, message: Message) -> None:
        """The log pane's or a log read's message, or the watcher's, routed by the screen."""
        match message:
            case LogTailLoaded(count=count, rows=rows):
                self._tail_loaded(count, rows)
            case LogWindowNeeded(first=first, end=end):
                self._load_log_rows(first, end)
            case LogRowsLoaded(rows=rows):
                self._screen.query_one(LogView).add_rows(rows)
                self._rows_shown()
            case TaskFilesChanged():
                if not self._running():  # while running, each step's own reads show it
                    self.show_new_records(_nothing)  # a new record first: read on its own
                    self.request()

    def show_new_records(self, then: Callable[[], None]) -> None:
        """Read the log's tail and show it; `then` once the screen shows it. Asked while a read
        runs, one more read follows that one (a running step waits on `then`)."""
        self._tail_shown.append(then)
        if self._tail_reading:
            self._tail_again = True
            return
        self._tail_reading = True
        self._tail_began = time.monotonic()
        in_thread(self._screen, self._read_new_records, "log-tail")

    def _read_new_records(self) -> None:
        try:
            count, rows = self._log.log_tail()
        except ForgeError:  # nothing to show; the step's own reload tells what is wrong
            self._screen.app.call_from_thread(self._tail_failed)
            return
        except BaseException:  # reported by the screen's worker handler; nobody waits on
            self._screen.app.call_from_thread(self._tail_failed)
            raise
        self._screen.post_message(LogTailLoaded(count, rows))

    def _tail_loaded(self, count: int, rows: tuple[LogRow, ...]) -> None:
        reading, self._tail_reading = self._tail_reading, False
        pane = self._screen.query_one(ActionLogPane)
        if not reading:  # the log alone, the task's other files not reading: no run goes on
            pane.show_log(count, rows)
        elif self._tail_began >= self._log_began:  # else a later read is on screen already
            self._log_began = self._tail_began
            pane.show_log(count, rows)
        if self._tail_again:
            self._tail_again = False
            self._tail_reading = True
            self._tail_began = time.monotonic()
            in_thread(self._screen, self._read_new_records, "log-tail")
            return
        waiting, self._tail_shown = self._tail_shown, []
        for then in waiting:
            after_paint(self._screen, then)

    def snapshot_log_is_newest(self) -> bool:
        """Whether the snapshot being put on the panes read the log no earlier than what the log
        pane shows (then the pane is to show its log, and does from now)."""
        if self._snapshot_began < self._log_began:
            return False
        self._log_began = self._snapshot_began
        return True

    def load_log_tail(self) -> None:
        """The log's newest rows on their own, while the task's other files do not read."""
        in_thread(self._screen, self._load_log_tail, "log", exclusive=True)

    def _load_log_tail(self) -> None:
        try:
            count, rows = self._reader.log_tail()
        except ForgeError:
            return  # the log does not read either: the banner names the first problem
        self._screen.post_message(LogTailLoaded(count, rows))

    def _tail_failed(self) -> None:
        """Nothing to show: whoever waits on it goes on (a step's own result will tell)."""
        self._tail_reading = self._tail_again = False
        waiting, self._tail_shown = self._tail_shown, []
        for then in waiting:
            then()

    def _load_log_rows(self, first: int, end: int) -> None:
        def load() -> None:
            self._screen.post_message(LogRowsLoaded(first, self._log.log_rows(first, end)))

        in_thread(self._screen, load, "log")

    def watch(self) -> None:
        """Another program's edits (an editor, a headless run) show within a second, from the
        first view's paint on (folder_watch.py)."""
        self._watch_wanted = True
        if self._first_shown:
            self._folder_watch.start()
