"""The help screen: every command of the one command table, its key and whether it applies now,
grouped as the footer offers them (everywhere, moving around, then each pane's), in aligned
columns that wrap under their own column. It fills the terminal and scrolls; the task's facts
come first (one line each), the few words on how the workbench works last."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from forgetui.engine.api import ProjectEnvironment, SandboxMode
from forgetui.tui.commands import COMMANDS, Command, key_for
from forgetui.tui.layout import TITLES, Pane
from forgetui.tui.markup import fmt

INTRO = (
    "Each step sends a fresh context compiled from the task's files, never a chat history. "
    "The task opens paused on the context its next step will send. The footer offers the "
    "focused pane's keys and the global ones; every key above works wherever it applies."
)
PANE_GROUPS: tuple[Pane, ...] = ("context", "memory", "checks", "log")
ARROWS = (
    "↑ ↓",
    "Move in the pane",
    "The cursor of a list; in the context pane, from section to section. home / end: the "
    "first / last; page up / down: a page (in the context pane and the task: scroll)",
)
PALETTE = ("ctrl+p", "Command palette", "Every command that applies now, by name")
# Under this width the titles go in front of the text, which then has the room of two columns.
WIDE = 120


@dataclass(frozen=True)
class Row:
    key: str
    title: str
    text: str
    now: bool = True  # the command applies now


def home_relative(path: Path) -> str:
    """`~/...` for a path under the home directory: a run copy's path is long, and this keeps
    it on one line of the dialog in the usual case."""
    try:
        return f"~/{path.relative_to(Path.home())}"
    except (ValueError, RuntimeError):  # not under home, or no home to speak of
        return str(path)


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q", "close", "close", id="help-close"),
    ]

    DEFAULT_CSS = "HelpScreen.-narrow .help-title { display: none; }"

    def __init__(
        self,
        keymap: Mapping[str, str],
        applies: Callable[[Command], bool],
        task_path: Path | None = None,
        sandbox: SandboxMode | None = None,
        environment: ProjectEnvironment | None = None,
    ) -> None:
        super().__init__()
        self.keymap = keymap
        self.applies = applies
        # A sample opens as a copy in the runs directory; help is where to find out which.
        self.task_path = task_path
        self.sandbox = sandbox
        self.environment = environment
        self._texts: list[tuple[Static, Row]] = []
        self._wide: bool | None = None

    def _row(self, command: Command) -> Row:
        return Row(key_for(command, self.keymap), command.title, command.help,
                   self.applies(command))  # fmt: skip

    def groups(self) -> Iterator[tuple[str, list[Row]]]:
        """(heading, rows) in the order shown: the global commands, moving between and in
        panes, then each pane's own."""
        panes = [command for command in COMMANDS if command.action == "show_pane"]
        everywhere = [
            self._row(command)
            for command in COMMANDS
            if not command.panes and command.scope != "navigation" and command not in panes
        ]
        yield "Everywhere", [*everywhere, Row(*PALETTE)]
        first, last = key_for(panes[0], self.keymap), key_for(panes[-1], self.keymap)
        shown = " · ".join(f"{key_for(p, self.keymap)} {p.description}" for p in panes)
        moving = [self._row(command) for command in COMMANDS if command.scope == "navigation"]
        moving.insert(2, Row(f"{first}-{last}", "Show a pane", f"{shown} (in a narrow "
                             "terminal: its tab; zoomed: the zoom moves to it)"))  # fmt: skip
        yield "Moving around", [*moving, Row(*ARROWS)]
        for pane in PANE_GROUPS:
            rows = [self._row(command) for command in COMMANDS if pane in command.panes]
            yield f"{TITLES[pane]} pane", rows

    def compose(self) -> ComposeResult:
        groups = list(self.groups())
        rows = [row for _, group in groups for row in group]
        key_width = max(cell_len(row.key) for row in rows) + 2
        title_width = max(cell_len(row.title) for row in rows) + 2
        self._wide = self.app.size.width >= WIDE
        self.set_class(not self._wide, "-narrow")
        with Vertical(id="help-dialog", classes="dialog"):
            yield Label("forgetui: keys", classes="dialog-title")
            with VerticalScroll(id="help-body"):
                yield from self._facts()
                for heading, group in groups:
                    yield Static(heading, classes="help-group")
                    for row in group:
                        yield self._row_widget(row, key_width, title_width)
                yield Static(INTRO, id="help-intro")
            yield Label("arrows and page keys scroll · escape closes", classes="dialog-hint")

    def _row_widget(self, row: Row, key_width: int, title_width: int) -> Horizontal:
        key = Static(Content(row.key), classes="help-key")
        key.styles.width = key_width
        title = Static(Content(row.title), classes="help-title")
        title.styles.width = title_width
        text = Static(self._text(row), classes="help-text")
        self._texts.append((text, row))
        return Horizontal(key, title, text, classes="help-row")

    def _text(self, row: Row) -> Content:
        now = "  [$foreground-muted](not now)[/]" if not row.now else ""
        if self._wide:
            return fmt(f"$text{now}", text=row.text)
        return fmt(f"[b]$title[/]: $text{now}", title=row.title, text=row.text)

    def on_resize(self) -> None:
        wide = self.size.width >= WIDE
        if wide != self._wide:
            self._wide = wide
            self.set_class(not wide, "-narrow")
            for text, row in self._texts:
                text.update(self._text(row))

    def _facts(self) -> Iterator[Vertical]:
        facts: list[Static] = []
        if self.task_path is not None:
            facts.append(Static(
                fmt("[b]task folder[/] $path", path=home_relative(self.task_path)),
                id="help-task-path",
            ))  # fmt: skip
        if self.sandbox is not None:
            facts.append(Static(
                fmt("[b]sandbox[/] $name: $reason", name=self.sandbox.name,
                    reason=self.sandbox.reason),
                id="help-sandbox",
            ))  # fmt: skip
        if self.environment is not None:
            facts.append(Static(
                fmt("[b]python[/] $python ($label)", python=str(self.environment.python),
                    label=self.environment.label),
                id="help-python",
            ))  # fmt: skip
        if facts:
            yield Vertical(*facts, id="help-facts")

    def action_close(self) -> None:
        self.dismiss(None)
