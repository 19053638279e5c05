"""The memory commands on the workbench once project memory shares the memory pane: the same
keys edit (e) and remove (x) a project memory entry as they edit and evict a working-memory
item, pin does not apply to an entry, and P promotes a note or a decision to project memory
(in the inbox, P promotes an answer). Each change goes through the session in a worker, like
every operator command."""

from __future__ import annotations

from typing import TYPE_CHECKING

from forgetui.tui.messages import OperatorDone
from forgetui.tui.operator_commands import OperatorCommands
from forgetui.tui.panes.memory import MemoryPane

if TYPE_CHECKING:
    from forgetui.engine.api import MemoryRow
    from forgetui.tui.modals.inbox import InboxScreen, LoadInbox, Promote, WhyNot

PROMOTABLE = ("note", "decision")
KINDS_HINT = "lesson, convention, command, preference or knowledge"


class MemoryCommands(OperatorCommands):
    """OperatorCommands, with the memory keys aware of project memory entries."""

    def _project_row(self) -> MemoryRow | None:
        return self._screen.query_one(MemoryPane).selected_project

    def toggle_pin(self) -> None:
        if self._project_row() is not None:
            self._screen.notify(
                "a project memory entry is not pinned: every task's context shows it",
                timeout=3, markup=False,
            )  # fmt: skip
            return
        super().toggle_pin()

    def evict(self) -> None:
        row = self._project_row()
        if row is None:
            super().evict()
            return
        from forgetui.tui.modals.confirm import ConfirmScreen

        entry_id = row.ref

        def answered(yes: bool | None) -> None:
            if yes:
                self.operate(lambda: self._session.remove_project(entry_id))

        why = "Every task of this workspace stops seeing it; its file in .agentforge/memory/ "
        why += "loses the entry."
        self._push(ConfirmScreen(f"Remove project memory {entry_id}?", why, "remove-confirm"),
                   answered)  # fmt: skip

    def open_memory_detail(self, editing: bool = False) -> None:
        row = self._project_row()
        if row is None:
            super().open_memory_detail(editing)
            return
        from forgetui.engine.api import EditForm  # working memory's reader: after the first view
        from forgetui.tui.modals.memory_detail import MemoryDetailScreen

        now = self._host.situation()
        read_only = now is None or now.read_only
        entry_id, form = row.ref, EditForm(row.ref, row.content, "text")

        def edited(content: str | None) -> None:
            if content is not None:
                self.operate(lambda: self._session.edit_project(entry_id, content))

        screen = MemoryDetailScreen(row, editing, read_only, lambda: form, project=True)
        self._push(screen, edited)

    def _inbox_screen(self, load: LoadInbox, promote: Promote, refused: WhyNot) -> InboxScreen:
        """The inbox, with P for an answer to become project memory."""
        from forgetui.tui.modals.project_inbox import ProjectInboxScreen  # its dialogs: later

        session, post = self._session, self._screen.post_message

        def to_project(entry_id: str) -> None:
            # the toast, and the panes reload: the entry shows in the memory pane
            post(OperatorDone(session.promote_answer_to_project(entry_id)))

        return ProjectInboxScreen(load, promote, refused, to_project=to_project)

    def promote(self) -> None:
        """P: the selected note or decision to project memory, of the kind the operator
        types."""
        pane = self._screen.query_one(MemoryPane)
        row = pane.selected
        why = ""
        if row is None:
            why = "select a note or a decision in the memory pane first"
        elif pane.selected_project is not None:
            why = f"{row.ref} is project memory already"
        elif row.type not in PROMOTABLE:
            why = f"{row.ref} is a {row.type}: only a note or a decision becomes project memory"
        if row is None or why:
            self._screen.notify(why, title="promote: not now", timeout=3, markup=False)
            return
        from forgetui.tui.modals.text_prompt import TextPromptScreen

        ref = row.ref

        def typed(kind: str | None) -> None:
            if kind is not None:
                self.operate(lambda: self._session.promote_to_project(ref, kind))

        explanation = (
            f"{ref} becomes an entry of .agentforge/memory/, shown in the context of every "
            f"task of this workspace, this one's included. Its kind: {KINDS_HINT}."
        )
        self._push(
            TextPromptScreen(f"Promote {ref} to project memory", explanation, KINDS_HINT,
                             prompt_id="promote-prompt"),
            typed,
        )  # fmt: skip


class ProjectMemoryKeys:
    """The workbench's action for the promote key (the command table names it)."""

    operator: OperatorCommands

    def action_promote_memory(self) -> None:
        if isinstance(self.operator, MemoryCommands):
            self.operator.promote()
