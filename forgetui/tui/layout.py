"""Which panes the workbench shows at a terminal size: a pure function of the size, the chosen
tab and the zoomed pane, so the rules are tested as a table and the screen only applies them.

Wide terminals get three columns over the action log. Under TABS_BELOW columns a column of
the context would be too thin to read, so one top pane shows at a time, picked from a tab bar,
with the action log kept below it. `z` zooms one pane to the whole screen at any size. Under
MIN_WIDTH x MIN_HEIGHT nothing readable fits: a notice says so."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Pane = Literal["context", "memory", "task", "checks", "log"]
Mode = Literal["columns", "tabs", "too-small"]

# The order of the digit keys and of the tab bar (then the log, under it).
PANES: tuple[Pane, ...] = ("context", "memory", "task", "checks", "log")
TABBED: tuple[Pane, ...] = ("context", "memory", "task", "checks")
# Tab's order in columns: left to right, top to bottom, as the panes sit on the screen.
COLUMNS_ORDER: tuple[Pane, ...] = ("task", "checks", "context", "memory", "log")
WIDGET_ID: dict[Pane, str] = {
    "context": "context",
    "memory": "memory",
    "task": "task-frame",
    "checks": "verification",
    "log": "action-log",
}
TITLES: dict[Pane, str] = {
    "context": "context",
    "memory": "memory",
    "task": "task",
    "checks": "verification",
    "log": "action log",
}
TABS_BELOW = 120
MIN_WIDTH = 60
MIN_HEIGHT = 20
# The screen's CSS classes for the mode, as Textual's breakpoints: "-too-small" when either
# side is under its minimum ("-tabs" may come with it then, over panes that are all hidden).
HORIZONTAL_BREAKPOINTS = [(0, "-too-small"), (MIN_WIDTH, "-tabs"), (TABS_BELOW, "-columns")]
VERTICAL_BREAKPOINTS = [(0, "-too-small"), (MIN_HEIGHT, "-high-enough")]


def breakpoint_classes(width: int, height: int) -> dict[str, bool]:
    """The screen's classes at this size, as Textual's breakpoints set them on a resize: for
    each axis, the class of the widest breakpoint the size reaches."""
    classes = {name: False for _, name in (*HORIZONTAL_BREAKPOINTS, *VERTICAL_BREAKPOINTS)}
    for size, breakpoints in ((width, HORIZONTAL_BREAKPOINTS), (height, VERTICAL_BREAKPOINTS)):
        reached = [(at, name) for at, name in breakpoints if size >= at]
        if reached:
            classes[max(reached)[1]] = True
    return classes


@dataclass(frozen=True)
class Layout:
    width: int
    height: int
    tab: Pane = "context"  # the top pane shown in tabs mode
    zoomed: Pane | None = None

    @property
    def mode(self) -> Mode:
        if self.width < MIN_WIDTH or self.height < MIN_HEIGHT:
            return "too-small"
        return "tabs" if self.width < TABS_BELOW else "columns"

    @property
    def shown(self) -> frozenset[Pane]:
        mode = self.mode
        if mode == "too-small":
            return frozenset()
        if self.zoomed is not None:
            return frozenset({self.zoomed})
        if mode == "tabs":
            top: Pane = self.tab if self.tab in TABBED else "context"
            return frozenset({top, "log"})
        return frozenset(PANES)

    @property
    def tab_bar(self) -> bool:
        return self.mode == "tabs" and self.zoomed is None

    @property
    def tab_order(self) -> tuple[Pane, ...]:
        """The panes Tab goes through, in the order they sit on screen. In tabs mode (and
        zoomed in it) that is the tab bar, then the log: Tab reaches every pane, switching the
        tab, so it is never stuck on the two that show."""
        if self.mode == "too-small":
            return ()
        return COLUMNS_ORDER if self.mode == "columns" else (*TABBED, "log")

    def next_pane(self, current: Pane | None, step: int) -> Pane | None:
        """The pane `step` places after `current` in Tab's order, round the end."""
        order = self.tab_order
        if not order:
            return None
        if current not in order:
            return order[0] if step > 0 else order[-1]
        return order[(order.index(current) + step) % len(order)]

    def too_small_text(self) -> str:
        return (
            f"terminal too small: {self.width}x{self.height} (need {MIN_WIDTH}x{MIN_HEIGHT})\n"
            "enlarge the window, or press q to quit"
        )
