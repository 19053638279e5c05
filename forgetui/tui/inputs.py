"""Settings every text field in the workbench's dialogs follows."""

from __future__ import annotations

from typing import Any

from textual.screen import Screen
from textual.widgets import Input, TextArea


def apply_input_settings(screen: Screen[Any]) -> None:
    """Cursor blink from the app's settings (off in tests: a blinking cursor makes screenshots
    depend on the moment they are taken)."""
    settings = getattr(screen.app, "settings", None)
    blink = getattr(settings, "cursor_blink", True)
    for field in screen.query(Input):
        field.cursor_blink = blink
    for area in screen.query(TextArea):
        area.cursor_blink = blink
