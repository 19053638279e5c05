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
        Binding("pageup", "page(-1)", "page up", show=False),
        Binding("pagedown", "page(1)", "page down", show=False),
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

    def action_page(self, direction: int) -> None:
        """A page of items: as many as the pane around the list shows, less one to keep
        context (an item may take more than a row: the cursor still lands on an item)."""
        parent = self.parent
        rows = parent.scrollable_content_region.height if isinstance(parent, Widget) else 0
        self.action_move(direction * max(1, rows - 1))

    def on_focus(self) -> None:
        self.refresh()  # the cursor row is highlighted only while the list has focus

    def on_blur(self) -> None:
        self.refresh()
