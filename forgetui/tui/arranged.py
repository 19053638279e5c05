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
                screen.call_after_refresh(self.focus_pane, visible[0])

    def show_tabs(self) -> None:
        if self.layout.tab_bar:
            badges = pane_badges(self._snapshot())
            self._screen.query_one(PaneTabs).show(self.layout.tab, badges)

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
        """Focus the pane's first focusable widget (the pane itself if it takes focus)."""
        root = self._screen.query_one(f"#{WIDGET_ID[pane]}")
        for widget in (root, *root.query("*")):
            if widget.focusable:
                widget.focus()
                return

    def show_pane(self, pane: Pane) -> None:
        """Bring a pane into view (its tab, or the zoom moves to it) and focus it."""
        layout = self.layout
        tab = pane if pane in TABBED else layout.tab
        zoomed = pane if layout.zoomed is not None else None
        self._arrange(Layout(layout.width, layout.height, tab, zoomed))
        self._screen.call_after_refresh(self.focus_pane, pane)

    def zoom(self) -> None:
        """The focused pane fills the screen; again, the layout comes back."""
        layout = self.layout
        if layout.zoomed is not None:
            self._arrange(Layout(layout.width, layout.height, layout.tab, None))
            return
        focused = self._screen.focused
        pane = (self.pane_of(focused) if focused is not None else None) or "context"
        self._arrange(Layout(layout.width, layout.height, layout.tab, pane))
