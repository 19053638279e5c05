"""The escalation inbox: every question the task asked and the answer given, newest first, so
the one waiting for an answer is on top. `a` answers it (the escalation modal), `p` pins the
selected answer in working memory, where the agent sees it in every later context.

The inbox is read from the log and state.yaml in a thread worker of the modal's own; a promotion
goes through the workbench's session (the writer) in the same worker, then the list reads
again."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, TypeAlias

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from forgetui.engine.api import ForgeError
from forgetui.tui.markup import fmt, lines
from forgetui.tui.modals.escalation import REASON_TEXT

if TYPE_CHECKING:  # the inbox's engine module loads when an inbox is read, not with the app
    from forgetui.engine.api import InboxEntry

LoadInbox: TypeAlias = "Callable[[], list[InboxEntry]]"
Promote = Callable[[str], None]  # in a worker: pins the answer of entry id, through the session
WhyNot = Callable[[str], str]  # why a workbench action does not apply now ("" if it does)


@dataclass
class InboxLoaded(Message):
    """The inbox read (oldest first), or why it could not be."""

    entries: list[InboxEntry]
    error: str | None = None


def entry_prompt(entry: InboxEntry) -> Content:
    """Three lines: the step, why it asked and what became of it; the question; the answer, or
    the options while it waits."""
    why = REASON_TEXT.get(entry.reason, entry.reason)
    head = fmt("[b]step $id[/] · $why", id=entry.id, why=why)
    if entry.pending:
        head += fmt(" · [b $warning]waiting for your answer (a)[/]")
        options = " / ".join(entry.options)
        last = fmt("[$foreground-muted]options: $options[/]", options=options) if options else None
    else:
        head += fmt(" · [$foreground-muted]answered[/]")
        if entry.undone_by_rewind is not None:
            head += fmt(" · [$warning]undone: rewound to step $to[/]", to=entry.undone_by_rewind)
        if entry.promoted:
            head += fmt(" · [$success]pinned as $key[/]", key=entry.key)
        last = fmt("→ $answer", answer=entry.answer or "")
    return lines([head, Content(entry.question), *([last] if last is not None else [])])


class InboxScreen(ModalScreen[str | None]):
    """Dismisses with "answer" when the operator asks to answer the waiting question (the
    workbench opens its modal), None when closed."""

    DEFAULT_CSS = """
    #inbox-dialog { width: 110; }
    #inbox-list { height: auto; max-height: 55vh; border: none; padding: 0; }
    #inbox-list > .option-list--option-highlighted { background: $primary 45%; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("p", "promote", "pin answer", id="inbox-promote"),
        Binding("a", "answer", "answer", id="inbox-answer"),
        Binding("escape", "close", "close", id="inbox-close"),
    ]

    def __init__(self, load: LoadInbox, promote: Promote, why_not: WhyNot) -> None:
        super().__init__(id="inbox")
        self.load = load
        self.promote = promote
        self.why_not = why_not
        self.entries: list[InboxEntry] = []  # newest first, as listed

    def compose(self) -> ComposeResult:
        with Vertical(id="inbox-dialog", classes="dialog"):
            yield Label("Escalation inbox", id="inbox-title", classes="dialog-title")
            yield OptionList(id="inbox-list")
            yield Static(
                "↑↓ select · a answers · p pins the answer in memory · escape closes",
                classes="dialog-hint",
                markup=False,
            )

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()
        self.read_inbox()

    @work(thread=True, exclusive=True, exit_on_error=False, group="inbox")
    def read_inbox(self, promote: str | None = None) -> None:
        """The inbox, after pinning entry `promote`'s answer if one is given."""
        try:
            if promote is not None:
                self.promote(promote)
            self.post_message(InboxLoaded(self.load()))
        except ForgeError as exc:
            self.post_message(InboxLoaded(self.entries[::-1], exc.message))

    @on(InboxLoaded)
    def show_inbox(self, message: InboxLoaded) -> None:
        if message.error is not None:
            self.notify(message.error, title="inbox", severity="error", markup=False)
        listed = self.query_one(OptionList)
        selected = self.selected
        self.entries = message.entries[::-1]
        waiting = sum(entry.pending for entry in self.entries)
        title = f"Escalation inbox: {len(self.entries)} question"
        title += "s" * (len(self.entries) != 1) + (", 1 waiting" if waiting else "")
        self.query_one("#inbox-title", Label).update(Content(title))
        listed.set_options(Option(entry_prompt(entry), id=entry.id) for entry in self.entries)
        if not self.entries:
            listed.add_option(Option(Content("No question was asked in this task yet.")))
            listed.disable_option_at_index(0)
            return
        ids = [entry.id for entry in self.entries]
        listed.highlighted = ids.index(selected.id) if selected and selected.id in ids else 0

    @property
    def selected(self) -> InboxEntry | None:
        index = self.query_one(OptionList).highlighted
        return self.entries[index] if index is not None and index < len(self.entries) else None

    def action_promote(self) -> None:
        entry = self.selected
        if entry is None:
            return
        reason = entry.why_not_promoted() or self.why_not("add_note")
        if reason:
            self.notify(reason, title="pin answer: not now", severity="warning", markup=False)
        elif entry.promoted:
            self.notify(f"{entry.key} is already pinned", markup=False)
        else:
            self.read_inbox(promote=entry.id)

    def action_answer(self) -> None:
        reason = self.why_not("answer")
        if reason:
            self.notify(reason, title="answer: not now", severity="warning", markup=False)
        else:
            self.dismiss("answer")

    def action_close(self) -> None:
        self.dismiss(None)
