"""One way to move in the workbench: Tab and shift+Tab go from pane to pane in screen order
(never into a widget inside one; in a narrow terminal or zoomed, the tab or the zoom follows),
arrows move inside the focused pane, escape backs out of whatever is open (the focused widget's
own escape first: a section collapses, a filter clears; then the zoom). The focused pane's
title is marked (pane_title.py) and the footer offers its keys.

The workbench screen derives from NavigableScreen, so these keys apply before the task is read
(the screen's own commands wait for the first snapshot)."""

from __future__ import annotations

from typing import ClassVar

from textual.actions import SkipAction
from textual.binding import BindingType
from textual.screen import Screen
from textual.widget import Widget

from forgetui.tui.arranged import PaneArranger
from forgetui.tui.commands import bindings
from forgetui.tui.layout import PANES, WIDGET_ID, Pane
from forgetui.tui.pane_title import mark_focused


class NavigableScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [*bindings("navigation")]

    arranger: PaneArranger
    focused_pane: Pane | None = None  # the pane holding focus: its title is marked

    def action_next_pane(self) -> None:
        self.arranger.cycle(1)

    def action_previous_pane(self) -> None:
        self.arranger.cycle(-1)

    def action_back_out(self) -> None:
        """The last thing escape backs out of on the workbench: the zoom. Otherwise the key
        goes on to the app (a modal's own escape closes it before this is reached)."""
        if not self.arranger.unzoom():
            raise SkipAction()

    def watch_focused(self, focused: Widget | None) -> None:
        pane = self.arranger.pane_of(focused) if focused is not None else None
        if pane is None or pane == self.focused_pane:
            return  # focus left the panes for a moment (a section remounted): keep the mark
        self.focused_pane = pane
        for each in PANES:
            mark_focused(self.query_one(f"#{WIDGET_ID[each]}"), each == pane)
        self.arranger.show_tabs()
        self.refresh_bindings()  # the footer offers the pane's keys
