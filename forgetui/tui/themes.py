"""Themes are data: themes/*.yaml validated into Textual themes.

Each file names Textual's base colours plus the workbench's own variables (the meter colours).
Its shape is checked where it is read (theme_files.py, without Textual: the child that reads
the files while the workbench starts has none); its colours here, as the themes are built. A
file that fails either is skipped and reported; the app shows the problems in one notification
and falls back to the default theme."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.color import Color, ColorParseError
from textual.theme import Theme

from forgetui.tui.settings import DEFAULT_THEME
from forgetui.tui.theme_set import COLOUR_FIELDS, METER_VARIABLES, ThemeFiles, ThemeSet

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


def _colour(name: str, value: str | None) -> None:
    if value is None:
        return
    try:
        Color.parse(value)
    except ColorParseError:
        raise ValueError(f"field '{name}': {value!r} is not a colour") from None


def theme_from(fields: dict[str, Any]) -> Theme:
    """A theme file's fields (as theme_files.py checked them) as a Textual theme; raises
    ValueError naming the first field that is no colour."""
    variables: dict[str, str] = fields.get("variables", {})
    for name in COLOUR_FIELDS:
        _colour(name, fields.get(name))
    for name in METER_VARIABLES:
        _colour(f"variables.{name}", variables.get(name))
    data = {key: value for key, value in fields.items() if key != "variables"}
    return Theme(**data, variables={**METER_VARIABLES, **variables})


def load_theme_file(path: Path) -> Theme:
    """Parse and validate one file; raises ValueError with a one-line reason."""
    from forgetui.tui.theme_files import read_theme_file

    return theme_from(read_theme_file(path))


def build_themes(files: ThemeFiles) -> ThemeSet:
    """The themes whose colours parse, sorted with the default first; the rest reported."""
    themes: dict[str, Theme] = {}
    problems = list(files.problems)
    for file_name, fields in files.themes:
        try:
            theme = theme_from(fields)
        except ValueError as exc:
            problems.append((file_name, str(exc)))
            continue
        themes[theme.name] = theme
    if DEFAULT_THEME not in themes:
        themes[DEFAULT_THEME] = FALLBACK_THEME
    ordered = sorted(themes.values(), key=lambda theme: (theme.name != DEFAULT_THEME, theme.name))
    said = (f"{name}: {what}" if name else what for name, what in sorted(problems))  # file order
    return ThemeSet(tuple(ordered), tuple(said))


def load_themes(folder: Path) -> ThemeSet:
    """Every *.yaml theme in `folder`, sorted with the default first; broken ones reported."""
    from forgetui.tui.theme_files import read_theme_files

    return build_themes(read_theme_files(folder))


def bundled_themes() -> ThemeSet:
    """The bundled themes, or the fallback and why."""
    from forgetui.tui.theme_files import bundled_theme_files

    return build_themes(bundled_theme_files())
