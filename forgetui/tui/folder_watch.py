"""The task folder watched for other programs' edits (an editor, a headless run): each change
to a file the workbench shows posts TaskFilesChanged on the screen.

The watcher starts once the first view is on screen, not at mount: watchfiles loads anyio, and
setting up the watch is work the first paint need not wait for. What changed in between is not
lost: the files' stamps, taken before the first read, are compared once the watch is set up,
and a difference counts as a change."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from textual.screen import Screen

from forgetui.tui.first_view import FileStamp, task_files
from forgetui.tui.messages import TaskFilesChanged
from forgetui.tui.workers import after_paint

WATCHED_FILES = frozenset({"state.yaml", "working_memory.yaml", "actions.yaml", "lock"})
WATCH_DEBOUNCE_MS = 40


def _is_task_file(_change: object, path: str) -> bool:
    return Path(path).name in WATCHED_FILES


class FolderWatch:
    """Made before the task is first read (the stamps are taken then); `start` once the first
    view is painted."""

    def __init__(self, screen: Screen[Any], path: Path) -> None:
        self._screen = screen
        self._path = path
        self._stamps: tuple[FileStamp, ...] = task_files(path)
        self._started = False

    def start(self) -> None:
        """Watch from the next paint on (once: the first view just shown)."""
        if not self._started:
            self._started = True
            after_paint(self._screen, self._run)

    def _run(self) -> None:
        self._screen.run_worker(
            self._watch(), name="watch_task_folder", group="watch", exclusive=True,
            exit_on_error=False,
        )  # fmt: skip

    async def _watch(self) -> None:
        from watchfiles import awatch

        # The task's own files only: a recursive watch would walk (and wake for) every step's
        # saved context and snapshot.
        changes = awatch(
            self._path, watch_filter=_is_task_file, debounce=WATCH_DEBOUNCE_MS, step=20,
            recursive=False,
        )  # fmt: skip
        # Runs when the generator first waits for changes, which it does once it watches: a
        # change from here on is reported; one before, the stamps tell.
        asyncio.get_running_loop().call_soon(self._changed_before)
        async for _changes in changes:
            self._screen.post_message(TaskFilesChanged())

    def _changed_before(self) -> None:
        if task_files(self._path) != self._stamps:
            self._screen.post_message(TaskFilesChanged())
