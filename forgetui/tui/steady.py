"""Repainting a text that changes after every step without laying the whole screen out again.

`Static.update` asks for a layout pass by default, and a layout pass of the workbench costs more
than a key's repaint budget; while steps run back to back it would come after every step. A
text whose height stays the same needs only its own repaint."""

from __future__ import annotations

from textual.content import Content
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import Static

_SHOWN = "_steady_shown"


def update_static(widget: Static, content: Content) -> None:
    """Show `content` in `widget`: nothing if it shows that already, a repaint of the widget if
    the height it takes stays, else a layout pass."""
    if getattr(widget, _SHOWN, None) == content:
        return
    setattr(widget, _SHOWN, content)
    width = widget.content_region.width
    height = content.get_height(widget.styles, width) if width > 0 else -1  # type: ignore[arg-type]
    same_height = bool(widget.display) and height == widget.content_region.height
    widget.update(content, layout=not same_height)


def set_subtitle(widget: Widget, subtitle: Content) -> None:
    """Set a border subtitle only if it changed: setting one repaints the whole widget, and a
    pane's whole widget is every child in it."""
    if widget.border_subtitle != subtitle.markup:
        widget.border_subtitle = subtitle


def set_subtitle_line(widget: Widget, subtitle: Content) -> None:
    """Set a border subtitle repainting only the border line it is on: a pane whose subtitle
    counts what it holds (the action log's rows and records) changes it at every record, and
    a whole pane's repaint each time redraws every line of it. Where Textual keeps the subtitle
    elsewhere, or the widget has no room for a border line, the subtitle is set as usual."""
    if widget.border_subtitle != subtitle.markup:
        _set_border_line(widget, "_border_subtitle", subtitle)


def set_title_line(widget: Widget, title: Content) -> None:
    """Set a border title repainting only the top border line: the context pane's title names
    the step it shows, which changes as the log's cursor rests on another step, and a whole
    pane's repaint redraws its every section and message for one line."""
    if widget.border_title != title.markup:
        _set_border_line(widget, "_border_title", title)


def _set_border_line(widget: Widget, name: str, text: Content) -> None:
    """Where Textual keeps the text elsewhere, or the widget has no room for a border line, the
    text is set as usual (a whole repaint)."""
    width, height = widget.outer_size
    if height < 2 or not isinstance(getattr(widget, name, None), Content):
        setattr(widget, name[1:], text)
        return
    setattr(widget, name, text)  # what the property keeps, without its whole repaint
    left, top = widget.content_offset
    line = -top if name == "_border_title" else height - 1 - top
    widget.refresh(Region(-left, line, width, 1))  # relative to the content
