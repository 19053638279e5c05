"""A reloaded task put on the panes one pane per turn of the event loop.

While steps run back to back a reload comes after every step, and applying it in one piece
(the log, the header, the context meters, memory, the checks) held the UI thread for a
frame's worth of work: a key pressed meanwhile waited for all of it. Here each pane whose part
of the snapshot changed gets its own callback, the next one queued only from the loop's next
turn, so a key (and the frame showing it) gets in between two panes. The first view is still
painted in one piece: nothing half-shown there."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from forgetui.tui import task_display
from forgetui.tui.panes.context import ContextPane
from forgetui.tui.snapshot import TaskSnapshot

if TYPE_CHECKING:
    from forgetui.tui.workbench import WorkbenchScreen

# The snapshot's fields each pane shows; a pane whose fields did not change is left alone.
PARTS: dict[str, tuple[str, ...]] = {
    "log": ("log_count", "tail_rows"),
    "header": (),  # the run's state too: always (it repaints only what changed)
    "context": ("context", "context_error", "status", "loading"),
    "memory": (),  # always: it reads the project's memory again at every reload
    "checks": ("checks", "ready"),
    "frame": (
        "goal", "criteria", "phase", "phases", "task_type", "constraints", "plan", "approval",
    ),
}  # fmt: skip


class ReloadTurns:
    """`shown(snapshot)` is called once every pane shows `snapshot` (the newest asked for)."""

    def __init__(self, screen: WorkbenchScreen, shown: Callable[[TaskSnapshot], object]) -> None:
        self._screen = screen
        self._shown = shown
        self._painted: dict[str, TaskSnapshot] = {}  # what each pane shows
        self._pending: list[str] = []
        self._target: TaskSnapshot | None = None

    @property
    def painting(self) -> bool:
        return bool(self._pending)

    async def show(self, snapshot: TaskSnapshot, whole: bool) -> None:
        """Paint `snapshot`: every pane now if `whole`, else its changed panes in turns."""
        self._target = snapshot
        changed = [part for part in PARTS if self._changed(part, snapshot)]
        if whole:
            self._pending = []
            self._screen.loader.painting = False
            for part in changed:
                await self._paint(part, snapshot)
            self._shown(snapshot)
            return
        started = bool(self._pending)
        self._pending += [part for part in changed if part not in self._pending]
        self._screen.loader.painting = bool(self._pending)
        if not started:
            self._screen.call_later(self._turn)

    def _changed(self, part: str, snapshot: TaskSnapshot) -> bool:
        before = self._painted.get(part)
        fields = PARTS[part]
        if before is None or not fields:
            return True
        if part == "context" and self._screen.query_one(ContextPane).view is not before.context:
            return True  # the pane showed a saved step's meanwhile: the preview again
        return any(getattr(before, name) != getattr(snapshot, name) for name in fields)

    async def _turn(self) -> None:
        snapshot = self._target
        if snapshot is None:
            return
        if self._pending:
            await self._paint(self._pending.pop(0), snapshot)
        self._screen.loader.painting = bool(self._pending)
        if self._pending:  # from the loop's next turn: what came in meanwhile goes first
            asyncio.get_running_loop().call_soon(self._screen.call_later, self._turn)
        else:
            self._shown(snapshot)

    async def _paint(self, part: str, snapshot: TaskSnapshot) -> None:
        self._painted[part] = snapshot
        screen = self._screen
        if part == "log" and not screen.loader.snapshot_log_is_newest():
            return  # a step's records read since are on screen: they stay
        paint: dict[str, Callable[[], Awaitable[None] | None]] = {
            "log": lambda: task_display.show_log(screen, snapshot),
            "header": lambda: task_display.show_header(screen),
            "context": lambda: task_display.show_context(screen, snapshot),
            "memory": lambda: task_display.show_memory(screen, snapshot),
            "checks": lambda: task_display.show_checks(screen, snapshot),
            "frame": lambda: task_display.show_frame(screen, snapshot),
        }
        done = paint[part]()
        if done is not None:
            await done
