"""The memory item detail modal: the item (or a project memory entry) in full, and its editor.
Dismisses with the new content when the operator saves an edit, else None.

The editor holds the engine's edit form of the item (a result's fields as YAML), read in a thread
worker since it is a file read, and checks the text with the engine's parser before saving: a
result stays a result, and text that does not parse is refused here, with nothing saved."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Button, Label, Static, TextArea

from forgetui.engine.api import EditForm, ForgeError, MemoryRow, parse_memory_edit
from forgetui.tui.inputs import apply_input_settings
from forgetui.tui.markup import fmt
from forgetui.tui.modals.fit import FittedModal
from forgetui.tui.panes.memory import expiry_text

LoadForm = Callable[[], EditForm]


@dataclass
class FormLoaded(Message):
    """The item's edit form, or why it could not be read."""

    form: EditForm | None
    error: str | None = None


class MemoryDetailScreen(FittedModal[str | None]):
    DEFAULT_CSS = """
    #memory-editing { height: auto; }
    #memory-edit-says { color: $text-muted; margin-top: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "close", id="memory-detail-close"),
        Binding("e", "edit", "edit", id="memory-detail-edit"),
        Binding("ctrl+s", "save", "save", id="memory-detail-save"),
    ]

    def __init__(
        self, row: MemoryRow, editing: bool = False, read_only: bool = False,
        load: LoadForm | None = None, project: bool = False,
    ) -> None:  # fmt: skip
        super().__init__()
        self.row = row
        self.project = project  # a project memory entry: the workspace's, not this task's
        self.read_only = read_only or load is None  # without its form an item cannot be edited
        self.start_editing = editing and not self.read_only
        self.load = load
        self.form: EditForm | None = None
        self._edit_when_loaded = False

    def compose(self) -> ComposeResult:
        row = self.row
        facts = [
            f"[b]type[/] {row.type}",
            f"[b]added at step[/] {row.step if row.step is not None else '?'}",
            f"[b]tokens[/] {row.tokens:,}",
            f"[b]expires[/] {expiry_text(row)}",
            f"[b]in next context[/] {'yes' if row.visible else 'no'}",
        ]
        title = f"Memory item {row.ref}"
        if self.project:
            facts = [f"[b]kind[/] {row.type}", "[b]shown to[/] every task of this workspace"]
            title = f"Project memory {row.ref}"
        with Vertical(id="memory-detail-dialog", classes="dialog"):
            yield Label(title, classes="dialog-title")
            yield Static("   ".join(facts), id="memory-facts")
            with VerticalScroll(id="memory-content-box", classes="-flex"):
                yield Static(row.content, id="memory-content", markup=False)
            editing = Vertical(id="memory-editing", classes="-flex")
            editing.display = False
            with editing:
                yield Static("", id="memory-edit-says", markup=False)
                error = Static("", id="memory-edit-error", classes="prompt-error")
                error.display = False  # its row goes to the editor until there is an error
                yield error
                yield TextArea("", id="memory-editor", soft_wrap=True, disabled=True)
            with Horizontal(classes="buttons"):
                yield Button("Edit", id="edit", variant="primary", disabled=self.read_only)
                yield Button("Save", id="save", variant="success")
                yield Button("Close", id="close")
            yield Label("e edits · ctrl+s saves · escape closes", classes="dialog-hint")

    def on_mount(self) -> None:
        apply_input_settings(self)
        self.query_one("#save", Button).display = False
        if not self.read_only:
            self.load_form()
        if self.start_editing:
            self.action_edit()

    @work(thread=True, exit_on_error=False, group="memory-form")
    def load_form(self) -> None:
        assert self.load is not None
        try:
            self.post_message(FormLoaded(self.load()))
        except (ForgeError, OSError) as exc:
            self.post_message(FormLoaded(None, str(exc)))

    @on(FormLoaded)
    def form_loaded(self, message: FormLoaded) -> None:
        self.form = message.form
        if message.form is None:
            self._show_error(f"cannot edit: {message.error}")
            self.query_one("#edit", Button).disabled = True
            return
        self.query_one("#memory-edit-says", Static).update(message.form.says)
        editor = self.query_one("#memory-editor", TextArea)
        editor.text = message.form.text
        editor.disabled = False
        if self._edit_when_loaded:
            editor.focus()

    def action_edit(self) -> None:
        if self.read_only:
            return
        self.query_one("#memory-content-box").display = False
        self.query_one("#memory-editing").display = True
        self.query_one("#save", Button).display = True
        self.query_one("#edit", Button).display = False
        if self.form is None:
            self._edit_when_loaded = True  # the editor takes focus once it holds the item
        else:
            self.query_one("#memory-editor", TextArea).focus()
        self.refit()

    def action_save(self) -> None:
        editor = self.query_one("#memory-editor", TextArea)
        form = self.form
        if not self.query_one("#memory-editing").display or form is None:
            return
        if editor.text == form.text:
            self.dismiss(None)
            return
        try:
            parse_memory_edit(editor.text, form.shape)
        except ForgeError as exc:
            self._show_error(exc.message)
            return
        self.dismiss(editor.text)

    def _show_error(self, message: str) -> None:
        error = self.query_one("#memory-edit-error", Static)
        error.update(fmt("[$error]$message[/]", message=message))
        error.display = True
        if not self.query_one("#memory-editing").display:
            self.notify(message, severity="error", markup=False)

    def action_close(self) -> None:
        self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        {"edit": self.action_edit, "save": self.action_save, "close": self.action_close}[
            event.button.id or "close"
        ]()
