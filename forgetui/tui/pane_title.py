"""The focused pane's title bar: a marker before the title and the `-focused` class (the
stylesheet gives its title an accent background), so which pane has the keys shows in every
theme and without colour. A pane whose title changes while focused sets it here, to keep the
marker."""

from __future__ import annotations

from textual.content import Content
from textual.widget import Widget

from forgetui.tui.steady import set_title_line

FOCUS_MARK = "▶ "
FOCUSED = "-focused"


def set_pane_title(pane: Widget, title: str | Content) -> None:
    """Set the pane's title (plain text, or Content), with the marker while it is focused."""
    text = Content(title) if isinstance(title, str) else title
    new = Content(FOCUS_MARK) + text if pane.has_class(FOCUSED) else text
    set_title_line(pane, new)  # setting the property would repaint every child of the pane


def plain_title(pane: Widget) -> Content:
    """The pane's title without the marker."""
    title = Content.from_markup(pane.border_title or "")
    return title[len(FOCUS_MARK) :] if title.plain.startswith(FOCUS_MARK) else title


def mark_focused(pane: Widget, focused: bool) -> None:
    if pane.has_class(FOCUSED) == focused:
        return
    title = plain_title(pane)
    pane.set_class(focused, FOCUSED)
    set_pane_title(pane, title)
