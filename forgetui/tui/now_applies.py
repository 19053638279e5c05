"""What applies now on the workbench, read from its panes once per look at the keys.

Textual asks the screen about each of its commands whenever it lists the active keys (at every
key press and at every footer refresh): reading the panes for each of them cost a key press
some 25 reads of the same state. Inside `held()` the first read is kept and reused; nothing
changes the state while Textual lists the keys or while a key's handler looks at them, and
outside `held()` every read is fresh."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from forgetui.tui.commands import Situation
from forgetui.tui.panes.action_log import LogView
from forgetui.tui.panes.context import ContextPane
from forgetui.tui.panes.memory import MemoryList, MemoryPane
from forgetui.tui.panes.verification import VerificationPane

if TYPE_CHECKING:
    from forgetui.tui.workbench import WorkbenchScreen

_UNREAD = object()


def read_situation(screen: WorkbenchScreen) -> Situation | None:
    """The workbench's state that decides which commands apply (None: not read yet)."""
    snap = screen.snapshot
    if snap is None:
        return None
    focused = screen.focused
    memory = screen.query_one(MemoryPane).selected
    if screen.query_one(ContextPane).focused_block() is not None:
        detail_target = True
    elif isinstance(focused, MemoryList):
        detail_target = memory is not None
    elif screen.query_one(VerificationPane).focused_check() is not None:
        detail_target = True
    else:
        detail_target = isinstance(focused, LogView) and focused.selected is not None
    return Situation(
        read_only=snap.read_only,
        finished=snap.finished,
        status=snap.status,
        escalated=snap.escalation is not None,
        busy=screen.step_in_flight is not None,
        running=screen.running,
        memory_selected=memory is not None,
        detail_target=detail_target,
        step=snap.step,
        context_step=screen.browser.context_step,
    )


class NowApplies:
    def __init__(self, screen: WorkbenchScreen) -> None:
        self._screen = screen
        self._held: object = _UNREAD
        self._depth = 0

    def situation(self) -> Situation | None:
        if self._depth == 0:
            return read_situation(self._screen)
        if self._held is _UNREAD:
            self._held = read_situation(self._screen)
        return self._held  # type: ignore[return-value]

    @contextmanager
    def held(self) -> Iterator[None]:
        """One read for every look at the state inside the block (nested blocks share it)."""
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1
            if self._depth == 0:
                self._held = _UNREAD
