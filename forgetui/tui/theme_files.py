"""themes/*.yaml read and checked for shape, without Textual: the child that reads the task
while the workbench starts (first_view.py) reads these too, and sends them on. Their colours
are parsed where the themes are built (themes.py), with Textual's own parser."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from forgetui.engine.api import YAML_LOADER, first_error, load_yaml
from forgetui.tui.theme_set import ThemeFiles


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


def read_theme_file(path: Path) -> dict[str, Any]:
    """One file's fields, its shape checked; raises ValueError with a one-line reason."""
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
        return ThemeFile.model_validate(data).model_dump()
    except ValidationError as exc:
        field, _loc, msg = first_error(exc)
        raise ValueError(f"field '{field}': {msg}") from None


def read_theme_files(folder: Path) -> ThemeFiles:
    """Every *.yaml file in `folder` that reads and has a theme's shape; the others reported."""
    themes: list[tuple[str, dict[str, Any]]] = []
    problems: list[tuple[str, str]] = []
    for path in sorted(folder.glob("*.yaml")) if folder.is_dir() else []:
        try:
            themes.append((path.name, read_theme_file(path)))
        except ValueError as exc:
            problems.append((path.name, str(exc)))
    return ThemeFiles(tuple(themes), tuple(problems))


def bundled_theme_files() -> ThemeFiles:
    """The bundled themes' files, or none and why."""
    from forgetui.paths import data_dir

    try:
        return read_theme_files(data_dir("themes"))
    except FileNotFoundError as exc:
        return ThemeFiles((), (("", str(exc)),))
