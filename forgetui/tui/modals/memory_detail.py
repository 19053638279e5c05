"""The memory item detail modal: the item in full, and its editor. Dismisses with the new
content when the operator saves an edit, else None."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static, TextArea

from forgetui.engine.api import MemoryRow
from forgetui.tui.inputs import apply_input_settings
from forgetui.tui.panes.memory import expiry_text


class MemoryDetailScreen(ModalScreen[str | None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "close", id="memory-detail-close"),
        Binding("e", "edit", "edit", id="memory-detail-edit"),
        Binding("ctrl+s", "save", "save", id="memory-detail-save"),
    ]

    def __init__(self, row: MemoryRow, editing: bool = False, read_only: bool = False) -> None:
        super().__init__()
        self.row = row
        self.start_editing = editing and not read_only
        self.read_only = read_only

    def compose(self) -> ComposeResult:
        row = self.row
        facts = [
            f"[b]type[/] {row.type}",
            f"[b]added at step[/] {row.step if row.step is not None else '?'}",
            f"[b]tokens[/] {row.tokens:,}",
            f"[b]expires[/] {expiry_text(row)}",
            f"[b]in next context[/] {'yes' if row.visible else 'no'}",
        ]
        with Vertical(id="memory-detail-dialog", classes="dialog"):
            yield Label(f"Memory item {row.ref}", classes="dialog-title")
            yield Static("   ".join(facts), id="memory-facts")
            with VerticalScroll(id="memory-content-box"):
                yield Static(row.content, id="memory-content", markup=False)
            editor = TextArea(row.content, id="memory-editor", soft_wrap=True)
            editor.display = False
            yield editor
            with Horizontal(classes="buttons"):
                yield Button("Edit", id="edit", variant="primary", disabled=self.read_only)
                yield Button("Save", id="save", variant="success")
                yield Button("Close", id="close")
            yield Label("e edits · ctrl+s saves · escape closes", classes="dialog-hint")

    def on_mount(self) -> None:
        apply_input_settings(self)
        self.query_one("#save", Button).display = False
        if self.start_editing:
            self.action_edit()

    def action_edit(self) -> None:
        if self.read_only:
            return
        self.query_one("#memory-content-box").display = False
        editor = self.query_one("#memory-editor", TextArea)
        editor.display = True
        self.query_one("#save", Button).display = True
        self.query_one("#edit", Button).display = False
        editor.focus()

    def action_save(self) -> None:
        editor = self.query_one("#memory-editor", TextArea)
        if not editor.display:
            return
        self.dismiss(editor.text if editor.text != self.row.content else None)

    def action_close(self) -> None:
        self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        {"edit": self.action_edit, "save": self.action_save, "close": self.action_close}[
            event.button.id or "close"
        ]()
