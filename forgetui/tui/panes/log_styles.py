"""The log view's line styles, worked out once per component until the CSS or the focus
changes: `render_line` runs for every line on screen at every repaint."""

from __future__ import annotations

from rich.style import Style
from textual.scroll_view import ScrollView


class LogLineStyles(ScrollView):
    """A Line API view painting each line with a component class's style over its own."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._styles: dict[str, Style] = {}  # per component, until the CSS or focus changes

    def _style(self, component: str) -> Style:
        """The widget's style with a component's colour on top (blended, so `$text-muted`
        reads muted); the background stays the pane's except on the cursor row."""
        style = self._styles.get(component)
        if style is None:
            part = self.get_component_rich_style(component)
            style = self.rich_style + Style(
                color=part.color, bold=part.bold, dim=part.dim, italic=part.italic,
                bgcolor=part.bgcolor if component == "log--cursor" else None,
            )  # fmt: skip
            self._styles[component] = style
        return style

    def notify_style_update(self) -> None:
        self._styles.clear()
        super().notify_style_update()

    def on_focus(self) -> None:
        self._styles.clear()
        self.refresh()

    def on_blur(self) -> None:
        self._styles.clear()
        self.refresh()
