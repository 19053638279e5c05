"""The workbench's heap, settled once its first complete view is on screen.

Python's oldest-generation collection walks every object the app holds, most of them made by
imports and never freed; on a slow machine one takes a few hundred milliseconds, all of them on
the UI thread, and steps run back to back allocate enough to bring one every few seconds. Those
pauses, not painting, were the slowest key presses. Frozen once after the first complete view
(collected first, so nothing dead is kept), those objects are left out of every later collection;
what the app allocates afterwards is collected as usual."""

from __future__ import annotations

import gc

_settled = False


def settle_once(complete: bool = True) -> None:
    """Collect, then freeze what survives, once the view on screen is `complete`; once a
    process (later calls do nothing)."""
    global _settled
    if _settled or not complete:
        return
    _settled = True
    gc.collect()
    gc.freeze()


def settled() -> bool:
    return _settled
