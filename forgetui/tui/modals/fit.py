"""A dialog taller than the terminal keeps its controls on screen: its one long part (a list
of actions, an item's text, an escalation's evidence) gives up the rows, and scrolls.

A dialog is as tall as what it holds, up to most of the screen; past that Textual would clip
its bottom, where the input and buttons are. Once laid out, a dialog that overflows gets the
`-fill` class: it then takes its whole allowed height and the parts marked `-flex` share what
the rest leaves (app.tcss). A resize or a part shown or hidden measures again."""

from __future__ import annotations

from typing import TypeVar

from textual import events
from textual.containers import Vertical
from textual.geometry import Size
from textual.screen import ModalScreen
from textual.widget import Widget

FILL = "-fill"
R = TypeVar("R")


class FittedModal(ModalScreen[R]):
    """A modal whose `.dialog` fits the screen; call `refit` after showing or hiding a part."""

    def _dialog(self) -> Widget | None:
        found = self.query(".dialog")
        return found.first() if found else None

    def refit(self) -> None:
        dialog = self._dialog()
        if dialog is None:
            return
        dialog.remove_class(FILL)
        self.call_after_refresh(self._fill_if_over, dialog)

    def _fill_if_over(self, dialog: Widget) -> None:
        if dialog.is_attached and dialog.max_scroll_y > 0:
            dialog.add_class(FILL)

    def on_mount(self) -> None:
        self.refit()

    def on_resize(self, event: events.Resize) -> None:
        self.refit()


class FittingDialog(Vertical):
    """A `.dialog` whose room changes while the screen keeps its size (toasts take rows above
    it, or give them back): its modal measures again. Only its own size counts: `-fill`
    changes what it holds, not its size, so measuring never sets off another measure."""

    _room: Size | None = None  # its size when last measured

    def on_resize(self, event: events.Resize) -> None:
        if event.size != self._room:
            self._room = event.size
            if isinstance(self.screen, FittedModal):
                self.screen.refit()
