"""The workbench's pane arrangement at the terminal's size: columns, tabs, a zoomed pane or the
"too small" notice (rules in layout.py). The screen composes the widgets named in
layout.WIDGET_ID and the containers below and hands its resizes, pane keys and tab clicks here;
its CSS classes for the mode come from Textual's breakpoints (layout.py builds them)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from forgetui.tui.layout import PANES, TABBED, WIDGET_ID, Layout, Pane
from forgetui.tui.panes.tabs import PaneTabs
from forgetui.tui.snapshot import TaskSnapshot

PANE_OF_ID: dict[str, Pane] = {widget_id: pane for pane, widget_id in WIDGET_ID.items()}


def pane_badges(snapshot: TaskSnapshot | None) -> dict[Pane, str]:
    """The figures a hidden tab shows: memory items, failing or passing checks."""
    if snapshot is None:
        return {}
    failing = sum(1 for check in snapshot.checks if check.passing is False)
    passing = bool(snapshot.checks) and all(check.passing for check in snapshot.checks)
    return {
        "memory": str(len(snapshot.memory)),
        "checks": f"✗{failing}" if failing else ("✓" if passing else ""),
    }


class PaneArranger:
    """Owns the layout in force (size, tab, zoom) and applies it to `screen`'s widgets;
    `snapshot` gives the task as last read, for the tabs' badges."""

    def __init__(self, screen: Screen[Any], snapshot: Callable[[], TaskSnapshot | None]) -> None:
        self._screen = screen
        self._snapshot = snapshot
        self.layout = Layout(0, 0)
        self._applied: tuple[str, frozenset[Pane], bool, Pane | None] | None = None

    # -- applying the layout --------------------------------------------------------------------

    def resized(self, width: int, height: int) -> None:
        now = self.layout
        self._arrange(Layout(width, height, now.tab, now.zoomed))

    def _arrange(self, layout: Layout) -> None:
        screen = self._screen
        self.layout = layout
        mode, shown = layout.mode, layout.shown
        key = (mode, shown, layout.tab_bar, layout.zoomed)
        if mode == "too-small":
            screen.query_one("#too-small", Static).update(layout.too_small_text())
        if key == self._applied:
            return
        self._applied = key
        for pane in PANES:
            screen.query_one(f"#{WIDGET_ID[pane]}").display = pane in shown
        screen.query_one("#left-column").display = bool(shown & {"task", "checks"})
        screen.query_one("#panes-top").display = bool(shown - {"log"})
        screen.query_one(PaneTabs).display = layout.tab_bar
        screen.query_one("#too-small").display = mode == "too-small"
        screen.query_one("#status-header").display = mode != "too-small"
        screen.query_one("#footer").display = mode != "too-small"
        screen.set_class(layout.zoomed is not None, "-zoomed")
        self.show_tabs()
        focused = screen.focused
        if focused is None or self.pane_of(focused) not in shown:
            visible = [pane for pane in PANES if pane in shown]
            if visible:
                screen.call_after_refresh(self._focus_if_lost, visible[0])

    def show_tabs(self) -> None:
        if self.layout.tab_bar:
            badges = pane_badges(self._snapshot())
            active = getattr(self._screen, "focused_pane", None) == self.layout.tab
            self._screen.query_one(PaneTabs).show(self.layout.tab, badges, active)

    # -- choosing panes -------------------------------------------------------------------------

    def pane_of(self, widget: Widget) -> Pane | None:
        node: Widget | None = widget
        while node is not None and node is not self._screen:
            if node.id in PANE_OF_ID:
                return PANE_OF_ID[node.id]
            parent = node.parent
            node = parent if isinstance(parent, Widget) else None
        return None

    def focus_pane(self, pane: Pane) -> None:
        """Focus where the pane is entered: its own choice (the context pane's section last
        visited), else its first focusable widget (the pane itself if it takes focus)."""
        root = self._screen.query_one(f"#{WIDGET_ID[pane]}")
        entry = getattr(root, "focus_entry", None)
        if callable(entry):
            entry()
            return
        chain = self._screen.focus_chain  # what shows and takes focus
        for widget in (root, *root.query("*")):
            # a text box in a pane (the log's filter) is entered by its own key, not by Tab;
            # text boxes are what has a cursor to blink (not a class named here: importing
            # TextArea, which no pane holds, took longer than the rest of this module)
            if widget in chain and not hasattr(widget, "cursor_blink"):
                self._screen.set_focus(widget)  # now: the next key typed goes to it
                return

    def _focus_if_lost(self, pane: Pane) -> None:
        """After a re-arrangement hid the focused pane: `pane`, unless a pane key (`1`..`5`,
        Tab) has focused one since."""
        focused = self._screen.focused
        if focused is None or self.pane_of(focused) not in self.layout.shown:
            self.focus_pane(pane)

    def show_pane(self, pane: Pane) -> None:
        """Bring a pane into view (its tab, or the zoom moves to it) and focus it."""
        layout = self.layout
        tab = pane if pane in TABBED else layout.tab
        zoomed = pane if layout.zoomed is not None else None
        self._arrange(Layout(layout.width, layout.height, tab, zoomed))
        self.focus_pane(pane)  # at once: keys typed with the pane key (`1`, Home, Down) reach it

    def cycle(self, step: int) -> None:
        """Tab (1) or shift+Tab (-1): the next pane in screen order, shown and focused."""
        focused = self._screen.focused
        current = self.pane_of(focused) if focused is not None else None
        pane = self.layout.next_pane(current, step)
        if pane is not None:
            self.show_pane(pane)

    def unzoom(self) -> bool:
        """Leave the zoom; False if no pane was zoomed."""
        layout = self.layout
        if layout.zoomed is None:
            return False
        self._arrange(Layout(layout.width, layout.height, layout.tab, None))
        return True

    def zoom(self) -> None:
        """The focused pane fills the screen; again, the layout comes back."""
        if self.unzoom():
            return
        layout = self.layout
        focused = self._screen.focused
        pane = (self.pane_of(focused) if focused is not None else None) or "context"
        self._arrange(Layout(layout.width, layout.height, layout.tab, pane))
