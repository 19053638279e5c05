"""The context pane's blocks: a section's line (toggle, name, meter, figures) expanding to its
exact text, and a message as sent, expanding likewise."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from forgetui.tui.markup import fmt
from forgetui.tui.snapshot import ContextView, Level, SectionView, meter_level
from forgetui.tui.steady import update_static

METER_WIDTH = 12
DIFF_MARKS = {"entered": "[$success]+[/]", "left": "[$error]-[/]", "changed": "[$warning]~[/]"}


def meter_bar(tokens: int, budget: int, width: int = METER_WIDTH) -> str:
    """A bar of `width` cells, full at the budget; an over-budget bar is full."""
    if budget <= 0:
        return "░" * width
    filled = min(width, round(width * tokens / budget))
    if tokens > 0 and filled == 0:
        filled = 1
    return "█" * filled + "░" * (width - filled)


LEVEL_STYLE: dict[Level, str] = {
    "ok": "$meter-ok",
    "warn": "$meter-warn",
    "over": "$meter-over bold",
}
NAME_WIDTH = 20
METER_CELLS = METER_WIDTH + 2


def line_content(
    expanded: bool, name: str, numbers: str, meter: tuple[int, int] | None = None,
    level: Level = "ok",
) -> Content:  # fmt: skip
    """A section's (or a message's) line: its toggle, its name (coloured as the section's level
    when near or over its budget), its meter (coloured as full as it is) and its figures, one
    Static: a widget for each part was five more widgets per section to style and lay out
    before the first paint. Unstyled parts take the line's muted colour."""
    name_style = LEVEL_STYLE[level] if level != "ok" else "$foreground"
    parts: list[str | tuple[str, str]] = [
        "▾ " if expanded else "▸ ",
        (f"{name:<{NAME_WIDTH}}", name_style),
    ]
    if meter is not None:
        tokens, budget = meter
        bar = meter_bar(tokens, budget)
        parts += [(bar, LEVEL_STYLE[meter_level(tokens, budget)]), " " * (METER_CELLS - len(bar))]
    parts.append(numbers)
    return Content.assemble(*parts)


class Expandable(Vertical, can_focus=True):
    """A line that `enter` (or a click) expands to show its full text below. The text is only
    laid out while expanded: a collapsed section's new text costs nothing per step."""

    _text = ""
    _text_shown: str | None = None

    def compose(self) -> ComposeResult:
        yield Static(self.line(), classes="section-line", markup=False)

    def line(self) -> Content:
        """The line as it stands (expanded or not)."""
        raise NotImplementedError

    def show_line(self) -> None:
        update_static(self.query_one(".section-line", Static), self.line())

    def set_text(self, text: str) -> None:
        self._text = text
        if self.has_class("-expanded"):
            self._show_text()

    def _show_text(self) -> None:
        if self._text != self._text_shown:
            self._text_shown = self._text
            self._added(".section-text").update(self._text)

    def _added(self, kind: str) -> Static:
        """The text (or tools line) below the line, mounted the first time it is shown: a
        hidden widget per section is still styled and laid out before the first paint."""
        found = self.query(kind)
        if found:
            return found.first(Static)
        widget = Static("", classes=kind.lstrip("."), markup=False)
        if kind == ".section-tools":  # between the line and the text
            self.mount(widget, after=self.query_one(".section-line"))
        else:
            self.mount(widget)
        return widget

    @property
    def expanded(self) -> bool:
        return self.has_class("-expanded")

    def toggle(self) -> None:
        expanded = not self.expanded
        if expanded:
            self._show_text()
        self.set_class(expanded, "-expanded")
        self.show_line()

    def on_click(self) -> None:
        self.focus()
        self.toggle()


class ContextSection(Expandable):
    """One section: name, meter and numbers on a line; expanded, its exact text. Under
    available_actions, the tool schemas sent with the request, when they are, on a line of
    their own: counted in the total, not in the section's budget (engine/context/compiler.py
    says why)."""

    def __init__(self, name: str, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.section_name = name

    def line(self) -> Content:
        if self._shown is None:
            return line_content(self.expanded, self.section_name, "")
        section = self._shown[0]
        numbers = f"{section.tokens:>5,} / {section.budget:,}"
        if section.compressions:
            numbers += " ⇣"
        return line_content(
            self.expanded, self.section_name, numbers, (section.tokens, section.budget),
            section.level,
        )  # fmt: skip

    def toggle(self) -> None:
        """As sent at step N, the section opens in a modal, its diff against N-1 a key away."""
        # the pane's view (the pane imports this module: it is not named here)
        views = (getattr(node, "view", None) for node in self.ancestors)
        view = next((each for each in views if isinstance(each, ContextView)), None)
        if view and view.saved and not self.has_class("-expanded"):
            from forgetui.tui.section_diff import open_section

            open_section(self, view.step, self.section_name)
            return
        super().toggle()

    _shown: tuple[SectionView, str, int] | None = None

    def show(self, section: SectionView, text_note: str = "", tool_tokens: int = 0) -> None:
        if (section, text_note, tool_tokens) == self._shown:
            return  # unchanged since the last step: no repaint (this runs after every step)
        self._shown = (section, text_note, tool_tokens)
        text = section.text or text_note
        if section.compressions:
            text = f"(compressed to fit: {', '.join(section.compressions)})\n{text}"
        self.show_line()
        if tool_tokens:
            update_static(self._added(".section-tools"),
                fmt("  + $tokens tool schemas [$foreground-muted](sent as tools: in the total, "
                    "not this budget)[/]", tokens=f"{tool_tokens:,}")
            )  # fmt: skip
        shown = self.query(".section-tools")
        if shown and shown.first().display != bool(tool_tokens):
            shown.first().display = bool(tool_tokens)
        self.set_text(text)
        self.set_class(section.level == "over", "-over-budget")
        self.set_class(section.level == "warn", "-near-budget")


class MessageBlock(Expandable):
    """One of the two messages as sent."""

    def __init__(self, role: str, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.role = role
        self._lines = ""

    def line(self) -> Content:
        return line_content(self.expanded, f"{self.role} message", self._lines)

    def show(self, content: str) -> None:
        self._lines = f"{len(content.splitlines())} lines"
        self.show_line()
        self.set_text(content)
