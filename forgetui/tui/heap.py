"""The workbench's heap: left uncollected while the workbench starts, settled once its first
complete view is on screen.

Starting allocates hundreds of thousands of objects that live as long as the app (modules,
classes, widgets, styles); every few thousand allocations Python walks the young ones, and now
and then all of them, finding nothing to free: a sixth of the start's CPU time. So collections
wait (`hold`) until the first complete view, or HOLD_LIMIT_S if that never comes (a task that
does not read). Then (`settle_once`) one collection, and what survives is frozen: Python's
oldest-generation collection walks every object the app holds, most of them made by imports
and never freed; on a slow machine one takes a few hundred milliseconds on the UI thread, and
steps run back to back allocate enough to bring one every few seconds. Those pauses, not
painting, were the slowest key presses. Frozen, those objects are left out of every later
collection; what the app allocates afterwards is collected as usual."""

from __future__ import annotations

import gc
import threading

HOLD_LIMIT_S = 20.0  # collections resume by then, whether or not a complete view came

_settled = False


def hold() -> None:
    """No collection until `settle_once` (or HOLD_LIMIT_S): for the start, once a process."""
    if _settled or not gc.isenabled():
        return
    gc.disable()
    limit = threading.Timer(HOLD_LIMIT_S, gc.enable)
    limit.daemon = True
    limit.start()


def settle_once(complete: bool = True) -> None:
    """Collect, then freeze what survives and let collections run again, once the view on
    screen is `complete`; once a process (later calls do nothing)."""
    global _settled
    if _settled or not complete:
        return
    _settled = True
    gc.collect()
    gc.freeze()
    gc.enable()


def settled() -> bool:
    return _settled
