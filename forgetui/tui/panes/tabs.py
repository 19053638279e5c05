"""The tab bar of a narrow terminal: one top pane shows at a time; the bar names them all, with
the figure that says whether a hidden one needs a look (memory items, failing checks)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from rich.cells import cell_len
from textual.content import Content
from textual.events import Click
from textual.message import Message
from textual.widgets import Static

from forgetui.tui.layout import PANES, TABBED, TITLES, Pane
from forgetui.tui.markup import fmt

ZOOM_HINT = "z zoom"


class PaneTabs(Static):
    DEFAULT_CSS = """
    PaneTabs {
        height: 1;
        background: $panel;
    }
    """

    @dataclass
    class Chosen(Message):
        """The operator clicked a tab."""

        pane: Pane

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.selected: Pane = "context"
        self.badges: Mapping[Pane, str] = {}
        self.active = False  # the selected tab's pane has focus
        self._spans: list[tuple[int, int, Pane]] = []

    def show(self, selected: Pane, badges: Mapping[Pane, str], active: bool = False) -> None:
        """`active`: the selected pane has focus. The tab is then drawn as the focused pane's
        title is (accent background); otherwise only underlined, so one block on the screen
        says where the keys go."""
        unchanged = (selected, dict(badges), active) == (self.selected, self.badges, self.active)
        if unchanged and self._spans:
            return
        self.selected, self.badges, self.active = selected, dict(badges), active
        self._render_tabs()

    def on_resize(self) -> None:
        self._render_tabs()

    def _render_tabs(self) -> None:
        parts: list[Content] = []
        self._spans = []
        x = 0
        for pane in TABBED:
            key = PANES.index(pane) + 1
            badge = self.badges.get(pane, "")
            label = f" {key} {TITLES[pane]}" + (f" {badge}" if badge else "") + " "
            style = "$foreground"
            if pane == self.selected:
                style = "bold reverse $accent" if self.active else "bold underline $accent"
            parts.append(fmt(f"[{style}]$label[/]", label=label))
            width = cell_len(label)
            self._spans.append((x, x + width, pane))
            x += width
        line = Content("").join(parts)
        gap = self.size.width - x - cell_len(ZOOM_HINT) - 1
        if gap > 0:
            line += Content(" " * gap) + fmt("[$foreground-muted]$hint[/] ", hint=ZOOM_HINT)
        self.update(line, layout=False)

    def on_click(self, event: Click) -> None:
        for start, end, pane in self._spans:
            if start <= event.x < end:
                self.post_message(self.Chosen(pane))
                return
