"""The operator's commands on the workbench: what a step needs settled first (a changed
task.yaml, a model), answering, changing working memory, the model and the limits, the inbox,
re-running and rewinding a step. Each opens its modal and, once the operator has said, makes
the change through the session in a worker of its own; the screen binds the keys and hands
back the messages these workers post."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from textual.message import Message
from textual.screen import Screen

from forgetui.engine.api import ForgeError
from forgetui.tui.commands import Situation, why_not
from forgetui.tui.messages import ModelChosen, OperatorDone, TaskChangeAccepted
from forgetui.tui.model_choice import ModelChoice
from forgetui.tui.panes.action_log import ActionLogPane
from forgetui.tui.panes.memory import MemoryPane
from forgetui.tui.session import Session
from forgetui.tui.settings import Settings
from forgetui.tui.snapshot import TaskReader, TaskSnapshot
from forgetui.tui.workers import in_thread

if TYPE_CHECKING:
    from forgetui.engine.api import Adoption, Rerun
    from forgetui.tui.modals.escalation import Handover
    from forgetui.tui.modals.inbox import InboxScreen, LoadInbox, Promote, WhyNot


class OperatorHost(Protocol):
    """What the commands ask of the workbench: the task as last read (and amended), what
    applies now, and a reload once a change is on disk."""

    @property
    def snapshot(self) -> TaskSnapshot | None: ...

    def situation(self) -> Situation | None: ...

    def request_reload(self, urgent: bool = False) -> None: ...

    def amend_snapshot(self, **changes: Any) -> None:
        """What a change just made true, before the next load agrees (a step may start first)."""
        ...


class OperatorCommands:
    """The commands that change the task (and the two that read it in modals of their own);
    `screen` is where their workers run and their modals open."""

    def __init__(
        self, screen: Screen[Any], host: OperatorHost, reader: TaskReader, session: Session
    ) -> None:
        self._screen = screen
        self._host = host
        self._reader = reader
        self._session = session
        self._adopted: list[Path] = []  # forks a re-run was adopted into, not yet offered
        self.model = ModelChoice(screen, host, reader, session)

    def _push(self, modal: Screen[Any], then: Callable[[Any], None] | None = None) -> None:
        self._screen.app.push_screen(modal, then)

    def operate(self, change: Callable[[], str]) -> None:
        """One change through the session, in a thread worker; OperatorDone says it is done."""
        in_thread(self._screen, partial(self._change, change), "operator")

    def _change(self, change: Callable[[], str]) -> None:
        self._screen.post_message(OperatorDone(change()))

    def handle(self, message: Message) -> None:
        """A message one of its workers posted, routed back by the screen: the change is on
        disk; what waited on it (a step, a run) goes on."""
        match message:
            case OperatorDone(text=text):
                self._done(text)
            case TaskChangeAccepted(text=text, then=then):
                self._host.amend_snapshot(task_change=None)
                self._done(text, then)
            case ModelChosen(text=text, spec=spec, then=then):
                self._host.amend_snapshot(model=spec, model_problem=None)
                self._done(text, then)

    def _done(self, text: str, then: Callable[[], None] | None = None) -> None:
        self._screen.notify(text, timeout=3, markup=False)
        self._host.request_reload()
        if then is not None:
            then()

    # -- what a step needs first ----------------------------------------------------------------

    def asked_before_step(self, then: Callable[[], None]) -> bool:
        """What a step needs first, asked before it: the operator's review of a changed
        task.yaml, then a model; True if it asked (`then` goes on once it is settled)."""
        snap = self._host.snapshot
        if snap is None or snap.task_change is None:
            return self.model.first(then)
        from forgetui.tui.modals.task_change import TaskChangeScreen

        def answered(yes: bool | None) -> None:
            if yes:
                in_thread(self._screen, partial(self._accept_task_change, then), "operator")

        self._push(TaskChangeScreen(snap.task_change), answered)
        return True

    def _accept_task_change(self, then: Callable[[], None]) -> None:
        said = self._session.accept_task_change()
        self._reader.reopen()
        self._screen.post_message(TaskChangeAccepted(said, then))

    # -- answering ------------------------------------------------------------------------------

    def answer(self) -> None:
        snap = self._host.snapshot
        if snap is None or snap.escalation is None:
            return
        from forgetui.tui.modals.escalation import EscalationScreen

        self._push(EscalationScreen(snap.escalation, snap.recent, snap.phases), self._answered)

    def _answered(self, text: str | Handover | None) -> None:
        from forgetui.tui.modals.escalation import Handover

        if isinstance(text, Handover):
            # answered, then the human model from the next step on (as `m` and `human` do)
            answer = text.answer
            self.model.apply(ModelChoice.HUMAN, before=lambda: self._session.answer(answer))
        elif text is not None:
            self.operate(lambda: self._session.answer(text))

    def question_arrived(self, settings: Settings) -> None:
        """A question new to this workbench: the bell, and the answer modal if the user asked
        for it (not over a modal already open: the operator is busy there)."""
        if settings.bell:
            self._screen.app.bell()
        if settings.open_questions and self._screen.app.screen is self._screen:
            self.answer()

    def open_inbox(self) -> None:
        """Every question and its answer. The modal reads the inbox and promotes in a worker of
        its own, through the session; the panes reload after a promotion."""
        from forgetui.engine.api import escalation_inbox, open_task

        path, session, post = self._reader.path, self._session, self._screen.post_message

        def promote(entry_id: str) -> None:
            post(OperatorDone(session.promote(entry_id)))

        def refused(action: str) -> str:
            now = self._host.situation()
            return why_not(action, now) if now is not None else "the task has not been read yet"

        def closed(then: str | None) -> None:
            if then == "answer":
                self.answer()

        load = lambda: escalation_inbox(open_task(path))  # noqa: E731
        self._push(self._inbox_screen(load, promote, refused), closed)

    def _inbox_screen(self, load: LoadInbox, promote: Promote, refused: WhyNot) -> InboxScreen:
        """The inbox modal pushed (a subclass may offer more keys on it)."""
        from forgetui.tui.modals.inbox import InboxScreen

        return InboxScreen(load, promote, refused)

    # -- working memory -------------------------------------------------------------------------

    def toggle_pin(self) -> None:
        row = self._screen.query_one(MemoryPane).selected
        if row is not None:
            ref, pinned = row.ref, not row.pinned
            self.operate(lambda: self._session.pin(ref, pinned))

    def evict(self) -> None:
        """Evict at once, but ask first for a pinned item: pinning said "keep this"."""
        row = self._screen.query_one(MemoryPane).selected
        if row is None:
            return
        ref = row.ref
        if not row.pinned:
            self.operate(lambda: self._session.evict(ref))
            return
        from forgetui.tui.modals.confirm import ConfirmScreen

        def answered(yes: bool | None) -> None:
            if yes:
                self.operate(lambda: self._session.evict(ref))

        question = f"Evict pinned item {ref}?"
        why = "It is pinned: FIFO and expiry never remove it. Evicted, it leaves working memory "
        why += "and the agent no longer sees it from the next step on."
        self._push(ConfirmScreen(question, why, "evict-confirm"), answered)

    def add_note(self) -> None:
        from forgetui.tui.modals.text_prompt import TextPromptScreen

        def typed(text: str | None) -> None:
            if text is not None:
                self.operate(lambda: self._session.note(text))

        self._push(
            TextPromptScreen(
                "Add a note to working memory",
                "The agent sees it in every context from the next step on.",
                "what the agent should know",
                prompt_id="note-prompt",
            ),
            typed,
        )

    def open_memory_detail(self, editing: bool = False) -> None:
        row = self._screen.query_one(MemoryPane).selected
        if row is None:
            return
        now = self._host.situation()
        read_only = now is None or now.read_only or now.busy

        def edited(content: str | None) -> None:
            if content is not None:
                self.operate(lambda: self._session.edit(row.ref, content))

        from forgetui.engine.api import EditForm, memory_edit_form, open_task
        from forgetui.tui.modals.memory_detail import MemoryDetailScreen

        path, ref = self._reader.path, row.ref

        def load() -> EditForm:  # in the modal's thread worker: a folder of its own
            return memory_edit_form(open_task(path), ref)

        self._push(MemoryDetailScreen(row, editing, read_only, load), edited)

    # -- the model and the limits ---------------------------------------------------------------

    def choose_model(self) -> None:
        self.model.choose()

    def set_limits(self) -> None:
        from forgetui.tui.modals.text_prompt import TextPromptScreen

        self._push(
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
        from forgetui.engine.api import parse_limits  # the replies' grammar: loaded when typed

        if text is None:
            return
        try:
            steps, cost = parse_limits(text)
        except ForgeError as exc:
            self._screen.notify(exc.message, severity="error", markup=False)
            return
        self.operate(lambda: self._session.set_limits(steps, cost))

    # -- a step again: re-run, rewind -----------------------------------------------------------

    def rerun(self) -> None:
        """The selected step's saved context to a model again, the answers side by side: the
        modal reads, asks and adopts in workers of its own, through the session."""
        row = self._screen.query_one(ActionLogPane).view.selected
        if row is None or row.kind != "step":
            self._screen.notify("select a step's row in the action log first",
                                title="re-run: not now", timeout=3, markup=False)  # fmt: skip
            return
        from forgetui.engine.api import open_task, recorded_answer
        from forgetui.tui.modals.rerun import RerunScreen

        path, step, session, snap = self._reader.path, row.step, self._session, self._host.snapshot
        screen = RerunScreen(
            step,
            snap.model if snap is not None else "",
            self._reader.folder.workspace,
            load_recorded=lambda: recorded_answer(open_task(path), step),
            ask=lambda spec: session.rerun(step, spec),
            adopt=self._adopt_and_offer,
        )
        self._push(screen, self._offer_adopted)

    def rewind(self) -> None:
        """Back to the end of the selected step, in place or as a fork: the modal's dry run
        and the change itself go through the session, the change as other operator writes do
        (the lock taken for the write only); the panes reload from disk afterwards."""
        row = self._screen.query_one(ActionLogPane).view.selected
        said = None
        if row is None or row.kind != "step" or not row.done:
            said = "select a step's row in the action log first"
        elif row.superseded:
            said = f"step {row.step} is on a branch a rewind left behind: pick a live step"
        if said is not None:
            self._screen.notify(said, title="rewind: not now", timeout=3, markup=False)
            return
        assert row is not None
        from forgetui.tui.modals.rewind import RewindChoice, RewindScreen

        step, session, snap = row.step, self._session, self._host.snapshot
        in_place_refused = (
            "another program is running this task: this workbench cannot rewind it in place"
            if snap is not None and snap.read_only
            else ""
        )

        def chosen(choice: RewindChoice | None) -> None:
            if choice is None:
                return
            if choice.fork is not None:
                dest = choice.fork
                in_thread(self._screen, partial(self._fork_and_offer, step, dest), "operator")
            else:
                self.operate(lambda: session.rewind(step, choice.force))

        workspace = self._reader.folder.workspace
        screen = RewindScreen(step, lambda: session.plan_rewind(step), workspace, in_place_refused)
        self._push(screen, chosen)

    # -- a fork made: open it now? --------------------------------------------------------------

    def _fork_and_offer(self, step: int, dest: str) -> None:
        """In a thread worker: the fork (this task unchanged), then the offer to open it."""
        said = self._session.fork(step, dest)
        self._screen.post_message(OperatorDone(said))
        self._offer(Path(dest).expanduser().absolute())

    def _adopt_and_offer(self, rerun: Rerun, dest: str) -> Adoption:
        """In the re-run modal's worker: the adoption; the offer to open the fork comes once
        the modal closes (it shows how the fork's step went first)."""
        adoption = self._session.adopt_rerun(rerun, dest, True)
        self._adopted.append(adoption.folder)
        return adoption

    def _offer_adopted(self, _: object = None) -> None:
        if self._adopted:
            from forgetui.tui.modals.open_fork import offer_fork

            offer_fork(self._screen, self._adopted[-1])
            self._adopted.clear()

    def _offer(self, fork: Path) -> None:
        from forgetui.tui.modals.open_fork import offer_fork

        self._screen.app.call_from_thread(offer_fork, self._screen, fork)
