"""The action log detail modal: the full record, the model's raw response for its step, and the
context exactly as sent, headed by the memory items it left out and why and what its sections
gave up to fit."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static, TabbedContent, TabPane

from forgetui.engine.api import RecordDetail


class RecordDetailScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "close", id="record-detail-close"),
        Binding("q", "close", "close", show=False),
    ]

    def __init__(self, detail: RecordDetail) -> None:
        super().__init__()
        self.detail = detail

    def compose(self) -> ComposeResult:
        row = self.detail.row
        with Vertical(id="record-detail-dialog", classes="dialog"):
            yield Label(
                f"Record {row.index + 1}: step {row.step} {row.kind} {row.action}",
                classes="dialog-title",
            )
            with TabbedContent(id="record-tabs"):
                with TabPane("Record", id="tab-record"), VerticalScroll():
                    yield Static(self.detail.record_yaml, markup=False, id="record-yaml")
                with TabPane("Model response", id="tab-response"), VerticalScroll():
                    raw = self.detail.raw_response
                    yield Static(
                        raw if raw is not None else "(no model response for this record)",
                        markup=False,
                        id="record-response",
                    )
                with TabPane("Context as sent", id="tab-context"), VerticalScroll():
                    if self.detail.context_note:
                        yield Static(self.detail.context_note, markup=False)
                    if self.detail.context_left:
                        yield Label("left out of this context", classes="dialog-heading")
                        yield Static("\n".join(self.detail.context_left), markup=False)
                    if self.detail.context_squeezed:
                        yield Label("compressed to fit", classes="dialog-heading")
                        yield Static("\n".join(self.detail.context_squeezed), markup=False)
                    for role, content in self.detail.context_messages:
                        yield Label(f"{role} message", classes="dialog-heading")
                        yield Static(content, markup=False, classes="record-message")
            yield Label("tab / arrows switch tabs · escape closes", classes="dialog-hint")

    def action_close(self) -> None:
        self.dismiss(None)
