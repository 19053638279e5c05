"""The action log detail modal: the full record, the model's raw response for its step, and the
context exactly as sent, headed by the memory items it left out and why and what its sections
gave up to fit. A write_file or edit_file step opens on what it did to the file: a coloured
diff from the snapshots the step kept."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Label, Static, TabbedContent, TabPane

from forgetui.engine.api import FileDiff, RecordDetail
from forgetui.tui.diff_view import diff_content


class RecordDetailScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    .record-file-diff { background: $panel; padding: 0 1; }
    """
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
            diffs = self.detail.file_diffs
            with TabbedContent(id="record-tabs", initial="tab-diff" if diffs else ""):
                if diffs:
                    with TabPane("File diff", id="tab-diff"), VerticalScroll(id="record-diff"):
                        yield from self._file_diffs(diffs)
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

    @staticmethod
    def _file_diffs(diffs: tuple[FileDiff, ...]) -> ComposeResult:
        for diff in diffs:
            yield Label(Content(diff.heading()), classes="dialog-heading")
            yield Static(diff_content(diff.diff), classes="record-file-diff")

    def action_close(self) -> None:
        self.dismiss(None)
