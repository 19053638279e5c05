"""Themes are data: themes/*.yaml validated into Textual themes.

Each file names Textual's base colours plus the workbench's own variables (the meter colours).
A file that does not parse or validate is skipped and reported; the app shows the problems in
one notification and falls back to the default theme."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from textual.color import Color, ColorParseError
from textual.theme import Theme

from forgetui.engine.api import YAML_LOADER, first_error, load_yaml
from forgetui.tui.config import DEFAULT_THEME

METER_VARIABLES: dict[str, str] = {
    "meter-ok": "#5fb96f",
    "meter-warn": "#e5c07b",
    "meter-over": "#e06c75",
}
# Used only when themes/dark.yaml itself is missing or broken: the app must still start.
FALLBACK_THEME = Theme(
    name=DEFAULT_THEME,
    primary="#4c9be8",
    secondary="#6c7a96",
    accent="#e5a84b",
    foreground="#dcdfe4",
    background="#16181d",
    surface="#1e2128",
    panel="#272b34",
    success="#5fb96f",
    warning="#e5c07b",
    error="#e06c75",
    dark=True,
    variables=dict(METER_VARIABLES),
)


def _colour(value: str | None) -> str | None:
    if value is None:
        return None
    try:
        Color.parse(value)
    except ColorParseError:
        raise ValueError(f"{value!r} is not a colour") from None
    return value


class ThemeFile(BaseModel):
    """One themes/*.yaml file."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    dark: bool = True
    primary: str
    secondary: str | None = None
    accent: str | None = None
    foreground: str | None = None
    background: str | None = None
    surface: str | None = None
    panel: str | None = None
    boost: str | None = None
    success: str | None = None
    warning: str | None = None
    error: str | None = None
    luminosity_spread: float = Field(0.15, ge=0, le=1)
    text_alpha: float = Field(0.95, ge=0, le=1)
    variables: dict[str, str] = Field(default_factory=dict)

    @field_validator(
        "primary", "secondary", "accent", "foreground", "background", "surface", "panel",
        "boost", "success", "warning", "error",
    )  # fmt: skip
    @classmethod
    def _check_colour(cls, value: str | None) -> str | None:
        return _colour(value)

    @field_validator("variables")
    @classmethod
    def _meter_colours(cls, value: dict[str, str]) -> dict[str, str]:
        for name in METER_VARIABLES:
            if name in value:
                _colour(value[name])
        return value

    def to_theme(self) -> Theme:
        data = self.model_dump(exclude={"variables"})
        return Theme(**data, variables={**METER_VARIABLES, **self.variables})


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


def load_theme_file(path: Path) -> Theme:
    """Parse and validate one file; raises ValueError with a one-line reason."""
    try:
        data = load_yaml(path.read_text(encoding="utf-8"), YAML_LOADER)
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read it ({exc})") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        raise ValueError(f"{where}not valid YAML") from None
    if not isinstance(data, dict):
        raise ValueError("expected a mapping of theme fields")
    try:
        return ThemeFile.model_validate(data).to_theme()
    except ValidationError as exc:
        field, _loc, msg = first_error(exc)
        raise ValueError(f"field '{field}': {msg}") from None


def load_themes(folder: Path) -> ThemeSet:
    """Every *.yaml theme in `folder`, sorted with the default first; broken ones reported."""
    themes: dict[str, Theme] = {}
    problems: list[str] = []
    for path in sorted(folder.glob("*.yaml")) if folder.is_dir() else []:
        try:
            theme = load_theme_file(path)
        except ValueError as exc:
            problems.append(f"{path.name}: {exc}")
            continue
        themes[theme.name] = theme
    if DEFAULT_THEME not in themes:
        themes[DEFAULT_THEME] = FALLBACK_THEME
    ordered = sorted(themes.values(), key=lambda theme: (theme.name != DEFAULT_THEME, theme.name))
    return ThemeSet(tuple(ordered), tuple(problems))
