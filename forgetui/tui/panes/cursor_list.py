"""A focusable list with a cursor that stays on its item (by key) when the items are replaced:
the memory pane's items and the verification pane's checks. Subclasses render and say what
an item's key is."""

from __future__ import annotations

from collections.abc import Hashable
from typing import ClassVar, Generic, TypeVar

from textual.binding import Binding, BindingType
from textual.reactive import reactive
from textual.widget import Widget

Item = TypeVar("Item")


class CursorList(Widget, Generic[Item], can_focus=True):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(-1)", "up", show=False),
        Binding("down", "move(1)", "down", show=False),
        Binding("home", "move(-1000)", "first", show=False),
        Binding("end", "move(1000)", "last", show=False),
    ]

    cursor: reactive[int] = reactive(0)

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.items: tuple[Item, ...] = ()

    @staticmethod
    def key_of(item: Item) -> Hashable:
        raise NotImplementedError

    @property
    def selected(self) -> Item | None:
        return self.items[self.cursor] if 0 <= self.cursor < len(self.items) else None

    def replace_items(self, items: tuple[Item, ...]) -> None:
        """New items; the cursor follows its item if it is still there, else keeps its place."""
        previous = self.selected
        self.items = items
        keys = [self.key_of(item) for item in items]
        if previous is not None and self.key_of(previous) in keys:
            self.cursor = keys.index(self.key_of(previous))
        else:
            self.cursor = max(0, min(self.cursor, len(items) - 1))

    def action_move(self, delta: int) -> None:
        if self.items:
            self.cursor = max(0, min(len(self.items) - 1, self.cursor + delta))

    def on_focus(self) -> None:
        self.refresh()  # the cursor row is highlighted only while the list has focus

    def on_blur(self) -> None:
        self.refresh()
