"""One section of the context as sent at step N (Enter on a section while paging through the
contexts as sent): its full text, and with `d` its text diff against the same section as sent
at the step before, beside the memory changes and their reasons the context pane lists.

The saved context is a file read, so the modal opens at once and reads in a thread worker."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Label, Static

from forgetui.engine.api import ForgeError, SectionDiff, section_diff
from forgetui.tui.diff_view import diff_content
from forgetui.tui.markup import fmt

LoadSection = Callable[[], SectionDiff]


@dataclass
class SectionLoaded(Message):
    """The section and its diff, or why they could not be read."""

    section: SectionDiff | None
    error: str | None = None


class SectionDiffScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    #section-diff-dialog { width: 140; height: 90%; }
    #section-diff-what { height: auto; color: $text-muted; }
    #section-diff-box { height: 1fr; background: $panel; padding: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("d", "toggle_diff", "diff / full text", id="section-diff-toggle"),
        Binding("escape", "close", "close", id="section-diff-close"),
        Binding("q", "close", "close", show=False),
    ]

    def __init__(self, step: int, name: str, load: LoadSection) -> None:
        super().__init__(id="section-diff")
        self.step = step
        self.section_name = name
        self.load = load
        self.section: SectionDiff | None = None
        self.showing_diff = False

    def compose(self) -> ComposeResult:
        with Vertical(id="section-diff-dialog", classes="dialog"):
            yield Label(
                Content(f"{self.section_name} as sent at step {self.step}"),
                classes="dialog-title",
            )
            yield Static(Content("reading the saved context…"), id="section-diff-what")
            with VerticalScroll(id="section-diff-box"):
                yield Static("", id="section-diff-body")
            yield Label("d: diff / full text · escape: close", classes="dialog-hint")

    def on_mount(self) -> None:
        self.read_section()

    @work(thread=True, exit_on_error=False, group="section-diff")
    def read_section(self) -> None:
        try:
            self.post_message(SectionLoaded(self.load()))
        except ForgeError as exc:
            self.post_message(SectionLoaded(None, exc.message))

    @on(SectionLoaded)
    def show_loaded(self, message: SectionLoaded) -> None:
        self.section = message.section
        if message.section is None:
            what = self.query_one("#section-diff-what", Static)
            what.update(fmt("[$error]$error[/]", error=message.error or "not saved"))
            return
        self._show()

    def _show(self) -> None:
        section = self.section
        if section is None:
            return
        what = self.query_one("#section-diff-what", Static)
        body = self.query_one("#section-diff-body", Static)
        if self.showing_diff:
            since = f"step {section.since}" if section.since else "no step before"
            counts = f" ({section.diff.counts()})" if section.diff.note is None else ""
            what.update(Content(f"diff against the same section at {since}{counts}"))
            body.update(diff_content(section.diff))
        else:
            what.update(Content(f"full text, {len(section.text.splitlines()):,} lines"))
            body.update(Content(section.text.rstrip("\n")))
        self.query_one("#section-diff-box").scroll_home(animate=False)

    def action_toggle_diff(self) -> None:
        self.showing_diff = not self.showing_diff
        self._show()

    def action_close(self) -> None:
        self.dismiss(None)


def open_section(widget: Widget, step: int, name: str) -> None:
    """Open section `name` as sent at `step` over `widget`'s screen, read from its task."""
    from forgetui.tui.snapshot import TaskReader

    reader = getattr(widget.screen, "reader", None)
    if not isinstance(reader, TaskReader):
        return
    folder = reader.folder
    widget.app.push_screen(SectionDiffScreen(step, name, lambda: section_diff(folder, step, name)))
