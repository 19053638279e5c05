"""The answer streaming in the step in flight, in the action log pane under the step's row: the
operator reads what the model is writing while it writes. Recorded, the step's row takes over
and `enter` on it shows the answer as recorded.

A Line API view: an answer event (up to ten a second, for as long as the model writes) wraps
only the text's unfinished last paragraph again, resizes the scrollable area without a layout
pass and repaints the lines on screen. It follows the answer's end unless the operator scrolled
up to read."""

from __future__ import annotations

from rich.segment import Segment
from textual.content import Content
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

TAB = "    "
# A model's text goes to the terminal: no control character of its own may reach it.
_CONTROLS = {code: None for code in (*range(32), 127) if code != 10} | {9: TAB}


def wrapped(paragraph: str, width: int) -> list[str]:
    """One paragraph (no newline) as lines of at most `width` cells; an empty one is one line."""
    return [line.plain for line in Content(paragraph).wrap(width)] or [""]


class AnswerView(ScrollView):
    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.text = ""  # the answer so far, as shown
        self.following = True
        self._lines: list[str] = []
        self._final = 0  # characters of `text` (through its last newline) wrapped for good
        self._final_lines = 0  # ... and the lines they wrapped to
        self._width = 0

    def show(self, text: str) -> None:
        """The whole answer so far (each event carries all of it, not a delta)."""
        text = text.translate(_CONTROLS)
        width = self.scrollable_content_region.width
        if width != self._width or not text.startswith(self.text[: self._final]):
            self._width, self._final, self._final_lines = width, 0, 0
        self.text = text
        if width <= 0:  # not laid out yet: on_resize wraps it
            return
        lines = self._lines[: self._final_lines]
        *done, last = text[self._final :].split("\n")
        for paragraph in done:
            lines.extend(wrapped(paragraph, width))
        if done:
            self._final = text.rfind("\n") + 1
            self._final_lines = len(lines)
        lines.extend(wrapped(last, width) if last or not lines else [])
        self._lines = lines
        size = Size(0, len(lines))
        if size != self.virtual_size:
            # as LogView does: the view's own size never changes, so no layout pass is due
            self.set_reactive(ScrollView.virtual_size, size)
            self._scroll_update(size)
        if self.following:
            self.scroll_to(y=self.max_scroll_y, animate=False, immediate=True)
        self.refresh()

    def clear(self) -> None:
        self.text, self._lines, self._final, self._final_lines = "", [], 0, 0
        self.following = True
        self.set_reactive(ScrollView.virtual_size, Size(0, 0))
        self._scroll_update(Size(0, 0))
        self.scroll_to(y=0, animate=False, immediate=True)
        self.refresh()

    def on_resize(self) -> None:
        self.show(self.text)

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        self.following = new >= self.max_scroll_y

    def render_line(self, y: int) -> Strip:
        line = int(self.scroll_offset.y) + y
        width = self.scrollable_content_region.width
        style = self.rich_style
        if line >= len(self._lines):
            return Strip.blank(width, style)
        return Strip([Segment(self._lines[line], style)]).adjust_cell_length(width, style)
