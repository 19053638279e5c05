"""The key footer: the focused pane's keys, then the global ones, from the screen's active
bindings (so keymaps and check_action apply), commands that do not apply now dimmed, the palette
key on the right. Every key works wherever it applied before: the footer only offers, per pane,
what that pane is for (commands.py's `panes`).

One widget rendering one line. Textual's Footer mounts a widget per key and rebuilds them all
whenever bindings refresh, which on a slow machine costs tens of milliseconds per refresh; the
workbench refreshes bindings at every change of what applies."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from rich.cells import cell_len
from textual.content import Content
from textual.events import Click
from textual.screen import Screen
from textual.widgets import Static

from forgetui.tui.commands import COMMANDS, Situation, offered
from forgetui.tui.layout import Pane
from forgetui.tui.markup import fmt


@dataclass(frozen=True)
class FooterKey:
    key: str
    display: str
    description: str
    enabled: bool
    binding_id: str | None = None
    pane_key: bool = False  # offered for the focused pane (else offered everywhere)

    @property
    def width(self) -> int:
        return 1 + cell_len(self.display) + 1 + cell_len(self.description)


ALWAYS_SHOWN = frozenset({"help", "quit"})
# Kept at a narrow width before the focused pane's keys; the other global ones give way first.
ESSENTIAL = ("answer", "step", "run-pause")
SEPARATOR = " │"
PANES_OF = {command.id: command.panes for command in COMMANDS}
ORDER = {command.id: index for index, command in enumerate(COMMANDS)}
DISABLED = "$foreground-disabled"  # the foreground with alpha: blended into the background
MUTED = "$foreground-muted"


def _focused_pane(screen: Screen[object]) -> Pane | None:
    pane = getattr(screen, "focused_pane", None)
    return pane if isinstance(pane, str) else None  # type: ignore[return-value]


def _situation(screen: Screen[object]) -> Situation | None:
    """What applies on the workbench (None on another screen: every key is offered)."""
    situation = getattr(screen, "situation", None)
    now = situation() if callable(situation) else None
    return now if isinstance(now, Situation) else None


class KeyFooter(Static):
    DEFAULT_CSS = """
    KeyFooter {
        dock: bottom;
        height: 1;
        background: $footer-background;
    }
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.keys: tuple[FooterKey, ...] = ()
        self.shown_keys: tuple[FooterKey, ...] = ()
        self.palette: FooterKey | None = None
        self._palette_shown: FooterKey | None = None

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self.bindings_changed)
        self.bindings_changed(self.screen)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def bindings_changed(self, screen: Screen[object]) -> None:
        keys: list[FooterKey] = []
        seen: set[str] = set()
        palette: FooterKey | None = None
        now = _situation(screen)
        pane = _focused_pane(screen)
        for node, binding, enabled, _tooltip in screen.active_bindings.values():
            display = self.app.get_key_display(binding)
            if binding.key == self.app.COMMAND_PALETTE_BINDING:
                palette = FooterKey(binding.key, display, "palette", enabled)
                continue
            if not binding.show or binding.action in seen:
                continue
            if not offered(binding.action.split("(")[0], now):
                continue
            panes = PANES_OF.get(binding.id or "", ())
            if panes and pane is not None and pane not in panes:
                continue
            seen.add(binding.action)
            # a screen without panes (the task list): its own keys and its widgets' come first,
            # as a pane's do; the app's follow
            own = pane is None and node is not self.app and binding.id not in PANES_OF
            keys.append(FooterKey(binding.key, display, binding.description, enabled, binding.id,
                                  pane_key=bool(panes) or own))  # fmt: skip
        self.keys = tuple(
            sorted(keys, key=lambda key: (not key.pane_key, ORDER.get(key.binding_id or "", 99)))
        )
        self.palette = palette if self.app.ENABLE_COMMAND_PALETTE else None
        self._render_keys()

    def on_resize(self) -> None:
        self._render_keys()

    @staticmethod
    def _give_way_rank(key: FooterKey) -> int:
        """Which keys give way first when the width is short (lower first): those that do not
        apply now, the other global ones, the pane's, then run, step and answer."""
        if not key.enabled:
            return 0
        if key.pane_key:
            return 2
        return 3 if key.binding_id in ESSENTIAL else 1

    def _width(self, keys: list[FooterKey], palette: FooterKey | None) -> int:
        split = any(key.pane_key for key in keys) and any(not key.pane_key for key in keys)
        used = sum(key.width for key in keys) + (cell_len(SEPARATOR) if split else 0)
        return used + (palette.width + 1 if palette is not None else 0)

    def fitting(self) -> tuple[tuple[FooterKey, ...], FooterKey | None]:
        """The keys that fit the width, and the palette key if it does too. Help and quit
        always stay; the rest give way by rank (_give_way_rank), each rank from its end."""
        room = self.size.width
        keys = list(self.keys)
        palette = self.palette
        removable = [key for key in reversed(keys) if key.binding_id not in ALWAYS_SHOWN]
        removable.sort(key=self._give_way_rank)  # stable: each rank from the end
        for key in removable:
            if self._width(keys, palette) <= room:
                break
            if palette is not None and key.enabled:
                palette = None  # ctrl+p is in help: it goes before any key that applies
                if self._width(keys, palette) <= room:
                    break
            keys.remove(key)
        if palette is not None and self._width(keys, palette) > room:
            palette = None
        return tuple(keys), palette

    def fitting_keys(self) -> tuple[FooterKey, ...]:
        return self.fitting()[0]

    def _render_keys(self) -> None:
        keys, palette = self.fitting()
        self.shown_keys = keys
        parts: list[Content] = []
        for index, key in enumerate(keys):
            if index and key.pane_key != keys[index - 1].pane_key:
                parts.append(fmt(f"[{MUTED}]$bar[/]", bar=SEPARATOR))
            parts.append(self._content(key))
        line = Content("").join(parts)
        self._palette_shown = palette
        if palette is not None:
            gap = max(1, self.size.width - line.cell_length - palette.width)
            line += Content(" " * gap) + self._content(palette)
        self.update(line, layout=False)

    @staticmethod
    @functools.lru_cache(maxsize=512)
    def _content(key: FooterKey) -> Content:
        """A key that does not apply in the theme's foreground faded into the footer's ground.
        Not `$text-disabled`: an "auto" colour, which a Content span paints at full contrast
        (white on a dark footer), brighter than the keys that apply. Kept: the footer renders
        at every change of what applies, a few times a step, each key's markup parsed again."""
        template = " [b $accent]$key[/] $text" if key.enabled else f" [{DISABLED}]$key $text[/]"
        return fmt(template, key=key.display, text=key.description)

    def on_click(self, event: Click) -> None:
        """A click on a key presses it."""
        x = 0
        for index, key in enumerate(self.shown_keys):
            if index and key.pane_key != self.shown_keys[index - 1].pane_key:
                x += cell_len(SEPARATOR)
            if x <= event.x < x + key.width:
                if key.enabled:
                    self.app.simulate_key(key.key)
                else:
                    self.app.bell()
                return
            x += key.width
        palette = self._palette_shown
        if palette is not None and event.x >= self.size.width - palette.width:
            self.app.simulate_key(palette.key)
