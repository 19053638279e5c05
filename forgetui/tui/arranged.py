"""The workbench's pane arrangement at the terminal's size: columns, tabs, a zoomed pane or the
"too small" notice (rules in layout.py). A base of the workbench screen, which composes the
widgets named in layout.WIDGET_ID and the containers below."""

from __future__ import annotations

from textual import events, on
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


class ArrangedScreen(Screen[None]):
    snapshot: TaskSnapshot | None

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.pane_layout = Layout(0, 0)
        self._applied: tuple[str, frozenset[Pane], bool, Pane | None] | None = None

    # -- applying the layout --------------------------------------------------------------------

    @on(events.Resize)
    def arrange_for_size(self, event: events.Resize) -> None:
        size, now = event.size, self.pane_layout
        self._arrange(Layout(size.width, size.height, now.tab, now.zoomed))

    def _arrange(self, layout: Layout) -> None:
        self.pane_layout = layout
        mode, shown = layout.mode, layout.shown
        key = (mode, shown, layout.tab_bar, layout.zoomed)
        if mode == "too-small":
            self.query_one("#too-small", Static).update(layout.too_small_text())
        if key == self._applied:
            return
        self._applied = key
        for pane in PANES:
            self.query_one(f"#{WIDGET_ID[pane]}").display = pane in shown
        self.query_one("#left-column").display = bool(shown & {"task", "checks"})
        self.query_one("#panes-top").display = bool(shown - {"log"})
        self.query_one(PaneTabs).display = layout.tab_bar
        self.query_one("#too-small").display = mode == "too-small"
        self.query_one("#status-header").display = mode != "too-small"
        self.query_one("#footer").display = mode != "too-small"
        self.set_class(mode == "tabs", "-tabs")
        self.set_class(mode == "too-small", "-too-small")
        self.set_class(layout.zoomed is not None, "-zoomed")
        self.show_tabs()
        focused = self.focused
        if focused is None or self.pane_of(focused) not in shown:
            visible = [pane for pane in PANES if pane in shown]
            if visible:
                self.call_after_refresh(self.focus_pane, visible[0])

    def show_tabs(self) -> None:
        if self.pane_layout.tab_bar:
            self.query_one(PaneTabs).show(self.pane_layout.tab, pane_badges(self.snapshot))

    # -- choosing panes -------------------------------------------------------------------------

    def pane_of(self, widget: Widget) -> Pane | None:
        node: Widget | None = widget
        while node is not None and node is not self:
            if node.id in PANE_OF_ID:
                return PANE_OF_ID[node.id]
            parent = node.parent
            node = parent if isinstance(parent, Widget) else None
        return None

    def focus_pane(self, pane: Pane) -> None:
        """Focus the pane's first focusable widget (the pane itself if it takes focus)."""
        root = self.query_one(f"#{WIDGET_ID[pane]}")
        for widget in (root, *root.query("*")):
            if widget.focusable:
                widget.focus()
                return

    def action_show_pane(self, pane: Pane) -> None:
        """Bring a pane into view (its tab, or the zoom moves to it) and focus it."""
        layout = self.pane_layout
        tab = pane if pane in TABBED else layout.tab
        zoomed = pane if layout.zoomed is not None else None
        self._arrange(Layout(layout.width, layout.height, tab, zoomed))
        self.call_after_refresh(self.focus_pane, pane)

    def action_zoom(self) -> None:
        """The focused pane fills the screen; again, the layout comes back."""
        layout = self.pane_layout
        if layout.zoomed is not None:
            self._arrange(Layout(layout.width, layout.height, layout.tab, None))
            return
        focused = self.focused
        pane = (self.pane_of(focused) if focused is not None else None) or "context"
        self._arrange(Layout(layout.width, layout.height, layout.tab, pane))

    @on(PaneTabs.Chosen)
    def tab_clicked(self, message: PaneTabs.Chosen) -> None:
        self.action_show_pane(message.pane)
