"""Content built from markup templates with user text substituted as literal values.

Task goals, file paths, command lines and model output can hold `[` and `\\`, which Textual
markup would read as tags or escapes. `$name` template variables are inserted verbatim."""

from __future__ import annotations

from collections.abc import Iterable

from textual.content import Content


def fmt(template: str, **values: object) -> Content:
    """`template` is trusted markup; `values` are shown exactly as they are."""
    return Content.from_markup(template, **{key: str(value) for key, value in values.items()})


def lines(parts: Iterable[Content | str]) -> Content:
    return Content("\n").join(parts)
