"""The key footer: every binding that shows, from the screen's active bindings (so keymaps and
check_action apply), commands that do not apply now dimmed, the palette key on the right.

One widget rendering one line. Textual's Footer mounts a widget per key and rebuilds them all
whenever bindings refresh, which on a slow machine costs tens of milliseconds per refresh; the
workbench refreshes bindings at every change of what applies."""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len
from textual.content import Content
from textual.events import Click
from textual.screen import Screen
from textual.widgets import Static

from forgetui.tui.commands import COMMANDS, Situation, offered
from forgetui.tui.markup import fmt


@dataclass(frozen=True)
class FooterKey:
    key: str
    display: str
    description: str
    enabled: bool
    binding_id: str | None = None

    @property
    def width(self) -> int:
        return cell_len(self.display) + 1 + cell_len(self.description) + 2


ALWAYS_SHOWN = frozenset({"help", "quit"})


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
        for _node, binding, enabled, _tooltip in screen.active_bindings.values():
            display = self.app.get_key_display(binding)
            if binding.key == self.app.COMMAND_PALETTE_BINDING:
                palette = FooterKey(binding.key, display, "palette", enabled)
                continue
            if not binding.show or binding.action in seen:
                continue
            if not offered(binding.action.split("(")[0], now):
                continue
            seen.add(binding.action)
            keys.append(FooterKey(binding.key, display, binding.description, enabled, binding.id))
        order = {command.id: index for index, command in enumerate(COMMANDS)}
        self.keys = tuple(sorted(keys, key=lambda key: order.get(key.binding_id or "", len(order))))
        self.palette = palette if self.app.ENABLE_COMMAND_PALETTE else None
        self._render_keys()

    def on_resize(self) -> None:
        self._render_keys()

    def fitting_keys(self) -> tuple[FooterKey, ...]:
        """The keys that fit the width. Help and quit always stay; keys that do not apply now
        give way first, then the last ones of the table."""
        room = self.size.width - (self.palette.width if self.palette is not None else 0)
        keys = list(self.keys)
        removable = [key for key in reversed(keys) if key.binding_id not in ALWAYS_SHOWN]
        removable.sort(key=lambda key: key.enabled)  # stable: dimmed first, each from the end
        for key in removable:
            if sum(k.width for k in keys) <= room:
                break
            keys.remove(key)
        return tuple(keys)

    def _render_keys(self) -> None:
        keys = self.fitting_keys()
        self.shown_keys = keys
        line = Content("").join(self._content(key) for key in keys)
        if self.palette is not None:
            used = sum(key.width for key in keys)
            gap = max(1, self.size.width - used - self.palette.width)
            line += Content(" " * gap) + self._content(self.palette)
        self.update(line, layout=False)

    @staticmethod
    def _content(key: FooterKey) -> Content:
        template = (
            " [b $accent]$key[/] $text " if key.enabled else " [$text-disabled]$key $text[/] "
        )
        return fmt(template, key=key.display, text=key.description)

    def on_click(self, event: Click) -> None:
        """A click on a key presses it."""
        x = 0
        for key in self.shown_keys:
            if x <= event.x < x + key.width:
                if key.enabled:
                    self.app.simulate_key(key.key)
                else:
                    self.app.bell()
                return
            x += key.width
        if self.palette is not None and event.x >= self.size.width - self.palette.width:
            self.app.simulate_key(self.palette.key)
