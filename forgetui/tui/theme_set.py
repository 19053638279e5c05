"""The themes the workbench cycles through, as themes.py validated them.

Apart from the loader, with no YAML or pydantic: the workbench unpickles the set from the child
that reads it while Textual loads (first_view.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.theme import Theme

METER_VARIABLES: dict[str, str] = {
    "meter-ok": "#5fb96f",
    "meter-warn": "#e5c07b",
    "meter-over": "#e06c75",
}


# the theme file's fields that name a colour (checked with Textual's parser when built)
COLOUR_FIELDS = (
    "primary", "secondary", "accent", "foreground", "background", "surface", "panel", "boost",
    "success", "warning", "error",
)  # fmt: skip


@dataclass(frozen=True)
class ThemeFiles:
    """The theme files that read and have a theme's shape (file name, fields), colours not
    parsed yet, and what failed: what the child reading the task sends the workbench."""

    themes: tuple[tuple[str, dict[str, Any]], ...]
    problems: tuple[tuple[str, str], ...] = ()  # (file name, what is wrong with it)


@dataclass(frozen=True)
class ThemeSet:
    """The themes that loaded, in cycling order (the default first), and what failed."""

    themes: tuple[Theme, ...]
    problems: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(theme.name for theme in self.themes)

    def next_after(self, name: str) -> str:
        names = self.names
        if name not in names:
            return names[0]
        return names[(names.index(name) + 1) % len(names)]
