"""The escalation modal: the question, its options, the evidence (a loop's matching steps, an
approval's pending action) and a text answer. Dismisses with the answer text the engine takes
(`executor.answer`): free text or an option; for an approval `approve`, `reject WHY` or
`modify {json}`; for an interrupted step `re-run` or `skip`; a take-over (`mark complete`,
`mark failed`, `phase NAME`). A Handover when the operator types the actions from now on; None
when cancelled."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.widgets import Button, Input, Label, Static, TextArea

from forgetui.engine import api
from forgetui.engine.api import ForgeError
from forgetui.tui.inputs import apply_input_settings
from forgetui.tui.markup import fmt, lines
from forgetui.tui.modals.fit import FittedModal, FittingDialog

if TYPE_CHECKING:  # names only: the operator's replies load when an answer is checked
    from forgetui.engine.api import Escalation, LogRow

REASON_TEXT = {
    "agent": "the agent asks",
    "loop": "a loop was blocked",
    "failed_approaches": "failed approaches in a row",
    "regression": "verification regressed",
    "max_steps": "step limit reached",
    "max_cost": "cost limit reached",
    "over_budget": "context over budget",
    "model_error": "the model call failed",
    "context_window": "the context does not fit the model's window",
    "unparseable": "the model's answers could not be parsed",
    "approval": "an action needs approval",
    "interrupted": "a step was interrupted",
    "confirm_complete": "the agent says it is done",
}

HANDOVER_WHY = "the operator types the actions from here"


@dataclass(frozen=True)
class Handover:
    """The operator takes the model's place: `answer` lets the next step run (the engine's
    grammar for this question), then the human model asks for each action."""

    answer: str


def handover_answer(escalation: Escalation) -> str:
    """The answer that hands the next step to the operator: an action waiting for approval is
    refused (the operator types their own), an interrupted step is skipped."""
    if escalation.reason == "approval":
        return f"reject {HANDOVER_WHY}"
    if escalation.reason == "interrupted":
        return "skip"
    if escalation.reason == "confirm_complete":
        return f"keep working: {HANDOVER_WHY}"
    return HANDOVER_WHY


class EscalationScreen(FittedModal[str | Handover | None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "close", id="escalation-close"),
        # over the answer box (priority), on keys it does not use: an approval is one key away
        Binding("ctrl+y", "approval('approve')", "approve", id="escalation-approve", priority=True),
        Binding("ctrl+r", "approval('reject')", "reject", id="escalation-reject", priority=True),
    ]
    # the take-over buttons need about 90 columns in a row; narrower, they go two by two
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (96, "-wide")]
    # under 34 rows the buttons lose their borders so the take-over row needs no scrolling
    VERTICAL_BREAKPOINTS = [(0, "-short"), (34, "-tall")]

    def __init__(
        self,
        escalation: Escalation,
        recent: tuple[LogRow, ...] = (),
        phases: tuple[str, ...] = (),
    ) -> None:
        super().__init__()
        self.escalation = escalation
        self.recent = recent
        self.phases = phases  # the task's phases: an answer may switch to one

    @property
    def is_approval(self) -> bool:
        return self.escalation.reason == "approval" and self.escalation.pending_action is not None

    def compose(self) -> ComposeResult:
        esc = self.escalation
        with FittingDialog(id="escalation-dialog", classes="dialog"):
            yield Label(
                f"Escalation at step {esc.step}: {REASON_TEXT.get(esc.reason, esc.reason)}",
                classes="dialog-title",
            )
            yield Static(esc.question, id="escalation-question", markup=False)
            # Tab goes between what can be answered with; the body scrolls to what has focus
            with VerticalScroll(id="escalation-body", classes="-flex", can_focus=False):
                if self.is_approval:
                    yield from self._compose_approval()
                elif esc.options:
                    yield Label("Options", classes="dialog-heading")
                    with Horizontal(id="escalation-options", classes="buttons"):
                        for index, option in enumerate(esc.options):
                            yield Button(Content(option), id=f"option-{index}", classes="option")
                if esc.evidence:
                    heading = "Matching steps" if esc.reason == "loop" else "Evidence"
                    yield Label(heading, classes="dialog-heading")
                    yield Static(
                        lines(fmt(" • $line", line=line) for line in esc.evidence),
                        id="escalation-evidence",
                    )
                if self.recent:
                    yield Label("What led here", classes="dialog-heading")
                    yield Static(
                        lines(
                            fmt(" $step $action $result: $summary", step=f"{row.step:>4}",
                                action=row.action, result=row.result, summary=row.summary)
                            for row in self.recent
                        ),
                        id="escalation-recent",
                    )  # fmt: skip
                yield from self._compose_takeover()
            yield Static("", id="escalation-error")
            placeholder = (
                "approve | reject WHY | modify {json}" if self.is_approval else "type an answer"
            )
            yield Input(placeholder=placeholder, id="escalation-answer")
            keys = "ctrl+y approves · ctrl+r rejects · " if self.is_approval else ""
            yield Label(
                f"{keys}enter answers · escape closes · reject and mark use the box as reason",
                classes="dialog-hint",
                markup=False,
            )

    def _compose_takeover(self) -> ComposeResult:
        """What the CLI's take-over answers do, as buttons: the operator need not know them."""
        yield Label("Take over", classes="dialog-heading")
        with Horizontal(id="takeover-buttons", classes="buttons"):
            yield Button("Type the actions yourself", id="takeover-human")
            yield Button("Mark complete", id="takeover-complete", variant="success")
            yield Button("Mark failed", id="takeover-failed", variant="error")
            if self.phases:
                yield Button("Change phase", id="takeover-phase")
        phases = Horizontal(id="phase-buttons", classes="buttons")
        phases.display = False
        with phases:
            for phase in self.phases:
                yield Button(Content(phase), id=f"phase-{phase}", classes="phase")

    def _compose_approval(self) -> ComposeResult:
        pending = self.escalation.pending_action
        assert pending is not None
        yield Label("Pending action", classes="dialog-heading")
        yield Static(
            fmt(
                "[b]$action[/]\n$args",
                action=pending.action,
                args=api.yaml_text(pending.args).rstrip(),
            ),
            id="escalation-pending",
        )
        with Horizontal(id="approval-buttons", classes="buttons"):
            yield Button("Approve", id="approve", variant="success")
            yield Button("Edit arguments", id="edit", variant="primary")
            yield Button("Reject", id="reject", variant="error")
        editor = TextArea(
            json.dumps(pending.args, indent=2, ensure_ascii=False),
            id="modify-args",
            language=None,
            soft_wrap=True,
        )
        editor.display = False
        yield editor
        save = Button("Run with these arguments", id="modify", variant="primary")
        save.display = False
        yield save

    def on_mount(self) -> None:
        apply_input_settings(self)
        self.query_one("#escalation-answer", Input).focus()
        # it opens at its top, on the question's evidence (the pending action), whatever the
        # layout's first passes scrolled to
        body = self.query_one("#escalation-body", VerticalScroll)
        self.call_after_refresh(body.scroll_home, animate=False, immediate=True)

    def _error(self, text: str) -> None:
        error = self.query_one("#escalation-error", Static)
        error.update(fmt("[$error]$text[/]", text=text))
        error.display = bool(text)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        if not text:
            self._error("type an answer first (or press escape)")
            return
        try:
            api.check_answer(self.escalation, text, self.phases)  # the engine's grammar, checked
        except ForgeError as exc:
            self._error(exc.message)
            return
        self.dismiss(text)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        button = event.button
        if button.has_class("option") and button.id:
            self.dismiss(self.escalation.options[int(button.id.removeprefix("option-"))])
        elif button.id == "approve":
            self.dismiss("approve")
        elif button.id == "reject":
            self.dismiss(f"reject {self._reason('reject')}".strip())
        elif button.id and button.id.startswith(("takeover-", "phase-")):
            self._take_over(button.id)
        elif button.id == "edit":
            self.query_one("#modify-args", TextArea).display = True
            save = self.query_one("#modify", Button)
            save.display = True
            self.query_one("#modify-args", TextArea).focus()
            self.call_after_refresh(save.scroll_visible, animate=False)  # the body scrolls
        elif button.id == "modify":
            try:
                self.dismiss(api.modify_answer(self.query_one("#modify-args", TextArea).text))
            except ForgeError as exc:
                self._error(exc.message)

    def _reason(self, verb: str) -> str:
        """The answer box's text as the reason a button's answer gives (without the verb, if
        the operator typed it too)."""
        reason = self.query_one("#escalation-answer", Input).value.strip()
        if reason.lower().startswith(verb):
            reason = reason[len(verb) :].strip(" :,")
        return reason

    def _take_over(self, button_id: str) -> None:
        if button_id == "takeover-human":
            self.dismiss(Handover(handover_answer(self.escalation)))
        elif button_id == "takeover-phase":
            self.query_one("#phase-buttons").display = True
            first = self.query_one("#phase-buttons Button", Button)
            first.focus()
            self.call_after_refresh(first.scroll_visible, animate=False)  # the body scrolls
        elif button_id.startswith("phase-"):
            self.dismiss(f"phase {button_id.removeprefix('phase-')}")
        else:
            status = button_id.removeprefix("takeover-")
            reason = self._reason(f"mark {status}")
            self.dismiss(f"mark {status}: {reason}" if reason else f"mark {status}")

    def action_approval(self, verb: str) -> None:
        if self.is_approval:
            self.query_one(f"#{verb}", Button).press()

    def action_cancel(self) -> None:
        self.dismiss(None)
