"""The operator's commands on the workbench: answering, changing working memory, opening a
record in full and paging through the contexts as sent. A base of `WorkbenchScreen`, which
owns the state these read (the snapshot, the step in flight) and the reload they ask for."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from textual import on, work

from forgetui.engine.api import ForgeError, parse_limits
from forgetui.tui.arranged import ArrangedScreen
from forgetui.tui.commands import Situation, why_not
from forgetui.tui.messages import (
    DetailLoaded,
    ModelChosen,
    OperatorDone,
    SavedContextLoaded,
    StepFailed,
    StepRecorded,
    StepStarted,
)
from forgetui.tui.panes.action_log import (
    ActionLogPane,
    LogCursorRested,
    LogFiltered,
    LogFilterNeeded,
    LogStepFound,
    LogView,
)
from forgetui.tui.panes.context import ContextPane
from forgetui.tui.panes.memory import MemoryList, MemoryPane
from forgetui.tui.session import Session
from forgetui.tui.snapshot import TaskReader, TaskSnapshot


class OperatorCommands(ArrangedScreen):
    reader: TaskReader
    session: Session
    snapshot: TaskSnapshot | None
    step_in_flight: int | None
    context_step: int | None  # None: the next step's preview

    def request_reload(self) -> None:
        """Load the task's views again (the workbench coalesces these)."""
        raise NotImplementedError

    def sync_bindings(self) -> None:
        """Refresh the footer if what applies changed."""
        raise NotImplementedError

    def situation(self) -> Situation | None:
        """What decides which commands apply (None until the task was read)."""
        raise NotImplementedError

    # -- the operator ---------------------------------------------------------------------------

    @work(thread=True, exit_on_error=False, group="operator")
    def operate(self, change: Callable[[], str]) -> None:
        self.post_message(OperatorDone(change()))

    @on(OperatorDone)
    def reload_after_operator(self, message: OperatorDone) -> None:
        self.notify(message.text, timeout=3, markup=False)
        self.request_reload()

    def action_answer(self) -> None:
        snap = self.snapshot
        if snap is None or snap.escalation is None:
            return
        from forgetui.tui.modals.escalation import EscalationScreen

        screen = EscalationScreen(snap.escalation, snap.recent, snap.phases)
        self.app.push_screen(screen, self._answered)

    def _answered(self, text: str | None) -> None:
        if text is not None:
            self.operate(lambda: self.session.answer(text))

    def _selected_memory(self) -> str | None:
        row = self.query_one(MemoryPane).selected
        return row.ref if row is not None else None

    def action_toggle_pin(self) -> None:
        row = self.query_one(MemoryPane).selected
        if row is not None:
            ref, pinned = row.ref, not row.pinned
            self.operate(lambda: self.session.pin(ref, pinned))

    def action_evict(self) -> None:
        """Evict at once, but ask first for a pinned item: pinning said "keep this"."""
        row = self.query_one(MemoryPane).selected
        if row is None:
            return
        ref = row.ref
        if not row.pinned:
            self.operate(lambda: self.session.evict(ref))
            return
        from forgetui.tui.modals.confirm import ConfirmScreen

        def answered(yes: bool | None) -> None:
            if yes:
                self.operate(lambda: self.session.evict(ref))

        question = f"Evict pinned item {ref}?"
        why = "It is pinned: FIFO and expiry never remove it. Evicted, it leaves working memory "
        why += "and the agent no longer sees it from the next step on."
        self.app.push_screen(ConfirmScreen(question, why, "evict-confirm"), answered)

    def action_add_note(self) -> None:
        from forgetui.tui.modals.text_prompt import TextPromptScreen

        self.app.push_screen(
            TextPromptScreen(
                "Add a note to working memory",
                "The agent sees it in every context from the next step on.",
                "what the agent should know",
                prompt_id="note-prompt",
            ),
            self._note_typed,
        )

    def action_choose_model(self) -> None:
        self.choose_model()

    def choose_model(self, reason: str = "", then: Callable[[], None] | None = None) -> None:
        """Ask which model runs the next steps; `reason` says why it is asked (none can run)."""
        from forgetui.tui.modals.text_prompt import TextPromptScreen

        current = self.snapshot.model if self.snapshot is not None else ""
        explanation = (
            f"{reason}\n\n" if reason else ""
        ) + (
            f"Now: {current}. From the next step on: replay (the task's replay.yaml), "
            "replay:PATH, human (you type each action), or a litellm model name such as "
            "openai/gpt-4o-mini or ollama/llama3 (with the --api-base you started with). "
            "API keys come from your environment."
        )  # fmt: skip

        def typed(text: str | None) -> None:
            if text is not None and text.strip():
                self.set_model(text.strip(), then)

        screen = TextPromptScreen("Model", explanation, current, prompt_id="model-prompt")
        self.app.push_screen(screen, typed)

    @work(thread=True, exit_on_error=False, group="operator")
    def set_model(self, spec: str, then: Callable[[], None] | None) -> None:
        said = self.session.set_model(spec)  # a name that cannot run fails here, reported
        self.reader.model = spec
        self.post_message(ModelChosen(said, spec, then))

    @on(ModelChosen)
    def model_chosen(self, message: ModelChosen) -> None:
        self.notify(message.text, timeout=3, markup=False)
        if self.snapshot is not None:  # the next load agrees; a step may start before it
            self.snapshot = replace(self.snapshot, model=message.spec, model_problem=None)
        self.request_reload()
        if message.then is not None:
            message.then()

    def action_set_limits(self) -> None:
        from forgetui.tui.modals.text_prompt import TextPromptScreen

        self.app.push_screen(
            TextPromptScreen(
                "Set limits",
                "The step or cost limit from now on, e.g. 'steps 50', 'cost 2.5' or both. "
                "Recorded as a decision the agent sees.",
                "steps 50 cost 2.5",
                prompt_id="limits-prompt",
            ),
            self._limits_typed,
        )

    def _limits_typed(self, text: str | None) -> None:
        if text is None:
            return
        try:
            steps, cost = parse_limits(text)
        except ForgeError as exc:
            self.notify(exc.message, severity="error", markup=False)
            return
        self.operate(lambda: self.session.set_limits(steps, cost))

    def _note_typed(self, text: str | None) -> None:
        if text is not None:
            self.operate(lambda: self.session.note(text))

    def action_open_inbox(self) -> None:
        """Every question and its answer. The modal reads the inbox and promotes in a worker of
        its own, through the session; the panes reload after a promotion."""
        from forgetui.engine.api import escalation_inbox, open_task
        from forgetui.tui.modals.inbox import InboxScreen

        path, session = self.reader.path, self.session

        def promote(entry_id: str) -> None:
            self.post_message(OperatorDone(session.promote(entry_id)))

        def refused(action: str) -> str:
            now = self.situation()
            return why_not(action, now) if now is not None else "the task has not been read yet"

        def closed(then: str | None) -> None:
            if then == "answer":
                self.action_answer()

        screen = InboxScreen(lambda: escalation_inbox(open_task(path)), promote, refused)
        self.app.push_screen(screen, closed)

    def action_edit_memory(self) -> None:
        self._open_memory_detail(editing=True)

    def _open_memory_detail(self, editing: bool = False) -> None:
        row = self.query_one(MemoryPane).selected
        if row is None:
            return
        snap = self.snapshot
        read_only = snap is None or snap.read_only or self.step_in_flight is not None

        def edited(content: str | None) -> None:
            if content is not None:
                self.operate(lambda: self.session.edit(row.ref, content))

        from forgetui.engine.api import EditForm, memory_edit_form, open_task
        from forgetui.tui.modals.memory_detail import MemoryDetailScreen

        path, ref = self.reader.path, row.ref

        def load() -> EditForm:  # in the modal's thread worker: a folder of its own
            return memory_edit_form(open_task(path), ref)

        self.app.push_screen(MemoryDetailScreen(row, editing, read_only, load), edited)

    # -- detail and context navigation ----------------------------------------------------------

    def action_open_detail(self) -> None:
        focused = self.focused
        block = self.query_one(ContextPane).focused_block()
        if block is not None:
            block.toggle()
        elif isinstance(focused, MemoryList):
            self._open_memory_detail()
        elif isinstance(focused, LogView) and focused.selected is not None:
            self.load_detail(focused.selected.record)
        else:
            from forgetui.tui.panes.verification import VerificationPane

            check = self.query_one(VerificationPane).focused_check()
            if check is not None:
                from forgetui.tui.modals.check_detail import CheckDetailScreen

                reader, name = self.reader, check.name  # the modal reads the output off-thread
                self.app.push_screen(CheckDetailScreen(check, lambda: reader.check_output(name)))

    def action_rerun(self) -> None:
        """The selected step's saved context to a model again, the answers side by side: the
        modal reads, asks and adopts in workers of its own, through the session."""
        row = self.query_one(ActionLogPane).view.selected
        if row is None or row.kind != "step":
            self.notify("select a step's row in the action log first", title="re-run: not now",
                        timeout=3, markup=False)  # fmt: skip
            return
        from forgetui.engine.api import open_task, recorded_answer
        from forgetui.tui.modals.rerun import RerunScreen

        path, step, session = self.reader.path, row.step, self.session
        model = self.snapshot.model if self.snapshot is not None else ""
        screen = RerunScreen(
            step,
            model,
            self.reader.folder.workspace,
            load_recorded=lambda: recorded_answer(open_task(path), step),
            ask=lambda spec: session.rerun(step, spec),
            adopt=session.adopt_rerun,
        )
        self.app.push_screen(screen)

    def action_rewind(self) -> None:
        """Back to the end of the selected step, in place or as a fork: the modal's dry run
        and the change itself go through the session, the change as other operator writes do
        (the lock taken for the write only); the panes reload from disk afterwards."""
        row = self.query_one(ActionLogPane).view.selected
        said = None
        if row is None or row.kind != "step" or not row.done:
            said = "select a step's row in the action log first"
        elif row.superseded:
            said = f"step {row.step} is on a branch a rewind left behind: pick a live step"
        if said is not None:
            self.notify(said, title="rewind: not now", timeout=3, markup=False)
            return
        assert row is not None
        from forgetui.tui.modals.rewind import RewindChoice, RewindScreen

        step, session = row.step, self.session
        snap = self.snapshot
        why_not = (
            "another program is running this task: this workbench cannot rewind it in place"
            if snap is not None and snap.read_only
            else ""
        )

        def chosen(choice: RewindChoice | None) -> None:
            if choice is None:
                return
            if choice.fork is not None:
                dest = choice.fork
                self.operate(lambda: session.fork(step, dest))
            else:
                self.operate(lambda: session.rewind(step, choice.force))

        screen = RewindScreen(
            step, lambda: session.plan_rewind(step), self.reader.folder.workspace, why_not
        )
        self.app.push_screen(screen, chosen)

    @work(thread=True, exclusive=True, exit_on_error=False, group="detail")
    def load_detail(self, index: int) -> None:
        self.post_message(DetailLoaded(self.reader.record_detail(index)))

    @on(DetailLoaded)
    def show_detail(self, message: DetailLoaded) -> None:
        from forgetui.tui.modals.record_detail import RecordDetailScreen

        self.app.push_screen(RecordDetailScreen(message.detail))

    def action_earlier_context(self) -> None:
        snap = self.snapshot
        if snap is None or snap.step < 1:
            return
        step = snap.step if self.context_step is None else max(1, self.context_step - 1)
        self._show_context_step(step)

    def action_later_context(self) -> None:
        snap = self.snapshot
        if self.context_step is None or snap is None:
            return
        if self.context_step >= snap.step:
            self._show_context_step(None)
        else:
            self._show_context_step(self.context_step + 1)

    def _show_context_step(self, step: int | None) -> None:
        self.context_step = step
        self.sync_bindings()
        if step is None:
            self.request_reload()
            return
        self.load_saved_context(step)

    @work(thread=True, exclusive=True, exit_on_error=False, group="context")
    def load_saved_context(self, step: int) -> None:
        try:
            view = self.reader.saved_context(step)
        except ForgeError as exc:
            self.post_message(SavedContextLoaded(step, None, exc.message))
            return
        self.post_message(SavedContextLoaded(step, view, None))

    @on(SavedContextLoaded)
    async def show_saved_context(self, message: SavedContextLoaded) -> None:
        if message.step != self.context_step:
            return
        pane = self.query_one(ContextPane)
        if message.view is None:
            pane.view = None
            pane.show_error(f"step {message.step}", message.error or "not saved")
        else:
            await pane.show_view(message.view)

    # -- the action log: filter, go to a step, the context follows the cursor --------------------

    def action_filter_log(self) -> None:
        from forgetui.tui.modals.log_filter import LogFilterScreen

        pane = self.query_one(ActionLogPane)
        pane.view.focus()
        self.app.push_screen(LogFilterScreen(pane.view.filter or ""), pane.set_filter)

    @on(LogFilterNeeded)
    def search_log(self, message: LogFilterNeeded) -> None:
        self.find_log_rows(message.text, message.start)

    @work(thread=True, exit_on_error=False, group="log-filter")
    def find_log_rows(self, text: str, start: int) -> None:
        count, rows = self.reader.find_log_rows(text, start)
        self.post_message(LogFiltered(text, start, count, rows))

    @on(LogFiltered)
    def show_log_filtered(self, message: LogFiltered) -> None:
        self.query_one(ActionLogPane).show_filtered(message)
        self.sync_bindings()

    def action_goto_step(self) -> None:
        from forgetui.tui.modals.text_prompt import TextPromptScreen

        snap = self.snapshot
        last = f" (1 to {snap.step})" if snap is not None and snap.step else ""
        self.app.push_screen(
            TextPromptScreen(
                "Go to step",
                f"The log cursor moves to the step's row{last}; the context pane shows what "
                "was sent at that step.",
                "step number",
                prompt_id="goto-prompt",
            ),
            self._goto_typed,
        )

    def _goto_typed(self, text: str | None) -> None:
        if text is None:
            return
        number = text.strip().removeprefix("step").strip()
        if not number.isdigit():
            self.notify(f"not a step number: {text.strip()}", severity="error", markup=False)
            return
        self.find_step_row(int(number))

    @work(thread=True, exclusive=True, exit_on_error=False, group="log-goto")
    def find_step_row(self, step: int) -> None:
        self.post_message(LogStepFound(step, self.reader.log_row_of_step(step)))

    @on(LogStepFound)
    def go_to_step_row(self, message: LogStepFound) -> None:
        if message.row is None:
            self.notify(f"step {message.step} is not in the log", severity="warning", markup=False)
            return
        pane = self.query_one(ActionLogPane)
        pane.view.focus()
        pane.go_to_row(message.row)

    @on(LogCursorRested)
    def context_follows_log(self, message: LogCursorRested) -> None:
        """The context as sent at the step the cursor rests on; back on the newest row, the
        next step's preview (an operator row leaves the context as it is)."""
        if message.newest:
            if self.context_step is not None:
                self._show_context_step(None)
        elif message.row.kind == "step" and message.row.step != self.context_step:
            self._show_context_step(message.row.step)

    @on(StepStarted)
    def log_step_pending(self, message: StepStarted) -> None:
        self.query_one(ActionLogPane).view.set_pending(message.step)

    @on(StepRecorded)
    def log_step_recorded(self) -> None:
        self.query_one(ActionLogPane).view.pending_recorded()

    @on(StepFailed)
    def log_step_failed(self) -> None:
        self.query_one(ActionLogPane).view.set_pending(None)
