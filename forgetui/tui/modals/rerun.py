"""Re-running one step (`R` on a log row): its saved context sent to a model again, nothing
executed, the recorded answer and the new one side by side, what differs standing out; `a`
adopts the new one as step N of a fork.

The modal opens at once. Its thread workers read the recorded answer, ask which model (the one
that answered the step, else the workbench's), make the call through the session (the engine's
child process, so litellm never loads here) and adopt: each posts a message, handled here."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from forgetui.engine.api import ForgeError
from forgetui.tui.markup import fmt, lines

if TYPE_CHECKING:
    from forgetui.engine.api import Adoption, RecordedAnswer, Rerun

ARG_CHARS = 200  # of an argument's first line: the facts are one line each, cut at the edge
LoadRecorded = Callable[[], "RecordedAnswer"]
Ask = Callable[[str], "Rerun"]
Adopt = Callable[["Rerun", str], "Adoption"]


@dataclass
class RecordedLoaded(Message):
    recorded: RecordedAnswer


@dataclass
class RerunAnswered(Message):
    rerun: Rerun


@dataclass
class RerunAdopted(Message):
    adoption: Adoption


@dataclass
class RerunFailed(Message):
    """A worker's ForgeError: `closing` when the modal has nothing left to show."""

    error: str
    closing: bool = False


def arg_line(value: object) -> str:
    """An argument on one line: a text's first line (and how many more), else its JSON."""
    if not isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)[:ARG_CHARS]
    first, *more = value.splitlines() or [""]
    return first[:ARG_CHARS] + (f" … (+{len(more)} lines)" if more else "")


@dataclass(frozen=True)
class Differences:
    """What the two answers differ in: the action, else the arguments named."""

    action: bool
    args: frozenset[str]


def differences(rerun: Rerun) -> Differences | None:
    """None when there is nothing to compare with (the call failed, no action was named)."""
    new, recorded = rerun.new, rerun.recorded
    if new.call_failed or new.action is None:
        return None
    if new.action != recorded.action:
        return Differences(action=True, args=frozenset())
    return Differences(action=False, args=frozenset(rerun.different_args))


def answer_facts(
    action: str | None,
    args: dict[str, object],
    outcome: str,
    usage: str,
    differ: Differences | None = None,
) -> Content:
    """The parsed action, its arguments one per line, what came of it, tokens and time. Beside
    the other answer (`differ`): a different action stands out; with the same action, the
    arguments whose values differ stand out (one the answer lacks says so) and the rest dim."""
    if not action:
        rows = [fmt("[$foreground-muted](no action)[/]")]
    elif differ is not None and differ.action:
        rows = [fmt("[b reverse $warning] $action [/] [$warning]a different action[/]",
                    action=action)]  # fmt: skip
    else:
        rows = [fmt("[b]$action[/]", action=action)]
    for name, value in args.items():
        line = {"name": name, "value": arg_line(value)}
        if differ is None or differ.action:
            rows.append(fmt("  $name: $value", **line))
        elif name in differ.args:
            rows.append(fmt("  [b $warning]$name:[/] [reverse $warning]$value[/]", **line))
        else:
            rows.append(fmt("[$foreground-muted]  $name: $value[/]", **line))
    missing = sorted(differ.args - set(args)) if differ is not None else []
    rows += [fmt("  [b $warning]$name:[/] [$warning](not given)[/]", name=n) for n in missing]
    rows.append(fmt("[$foreground-muted]$outcome[/]", outcome=outcome))
    rows.append(fmt("[$foreground-muted]$usage[/]", usage=usage))
    return lines(rows)


class RerunScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    #rerun-dialog { width: 150; height: 90%; }
    #rerun-verdict { height: auto; }
    #rerun-columns { height: 1fr; }
    .rerun-column { width: 1fr; height: 1fr; border: round $panel-lighten-2; padding: 0 1; }
    .rerun-column:focus-within { border: round $primary; }
    .rerun-facts { height: auto; max-height: 50%; text-wrap: nowrap; text-overflow: ellipsis; }
    .rerun-raw {
        height: 1fr; background: $panel;
        border-top: solid $panel-lighten-2; border-title-color: $text-muted;
    }
    #rerun-status { height: auto; color: $text-muted; display: none; }
    #rerun-status.-shown { display: block; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "adopt", "adopt as a fork", id="rerun-adopt"),
        Binding("escape", "close", "close", id="rerun-close"),
    ]

    def __init__(
        self,
        step: int,
        model: str,
        workspace: Path,
        load_recorded: LoadRecorded,
        ask: Ask,
        adopt: Adopt,
    ) -> None:
        super().__init__(id="rerun")
        self.step = step
        self.default_model = model  # asked for when the step's own model is not known
        self.workspace = workspace
        self.load_recorded = load_recorded
        self.ask = ask
        self.adopt = adopt
        self.recorded: RecordedAnswer | None = None
        self.rerun: Rerun | None = None
        self.adopting = False

    def compose(self) -> ComposeResult:
        with Vertical(id="rerun-dialog", classes="dialog"):
            yield Label(
                Content(f"Re-run of step {self.step}: its saved context, nothing executed"),
                classes="dialog-title",
                id="rerun-title",
            )
            yield Static(Content("reading the recorded answer…"), id="rerun-verdict")
            with Horizontal(id="rerun-columns"):
                for side in ("recorded", "new"):
                    with Vertical(id=f"rerun-{side}", classes="rerun-column"):
                        yield Static("", classes="rerun-facts")
                        with VerticalScroll(classes="rerun-raw"):
                            yield Static("", markup=False, classes="rerun-answer")
            yield Static("", id="rerun-status")
            yield Label(
                "tab: other column · a: adopt as a fork · escape: close",
                classes="dialog-hint",
            )

    def on_mount(self) -> None:
        self.query_one("#rerun-recorded").border_title = "recorded"
        self.query_one("#rerun-new").border_title = "new"
        for raw in self.query(".rerun-raw"):
            raw.border_title = "answer"
        self.read_recorded()

    # -- the recorded answer, then which model ----------------------------------------------------

    @work(thread=True, exit_on_error=False, group="rerun")
    def read_recorded(self) -> None:
        try:
            self.post_message(RecordedLoaded(self.load_recorded()))
        except ForgeError as exc:
            self.post_message(RerunFailed(exc.message, closing=True))

    @on(RecordedLoaded)
    async def show_recorded(self, message: RecordedLoaded) -> None:
        recorded = self.recorded = message.recorded
        self._fill(
            "#rerun-recorded", f"recorded ({recorded.model or 'model'})",
            answer_facts(recorded.action, recorded.args, recorded.outcome(), recorded.usage()),
            recorded.raw_response or "(no answer text recorded)",
        )  # fmt: skip
        self.query_one("#rerun-verdict", Static).update(Content("which model?"))
        await self._prompt(
            f"Re-run step {self.step} with which model?",
            "Its saved context goes to this model exactly as it was sent; nothing is executed. "
            "replay (the task's script: its answer for this step), replay:PATH, or a litellm "
            "model name (with the workbench's --api-base and bounds).",
            recorded.model or self.default_model,
            "rerun-model-prompt",
            self._model_typed,
        )

    def _fill(self, column_id: str, title: str, facts: Content, raw: str) -> None:
        """One side of the comparison: its title, the parsed action's facts, the raw answer."""
        column = self.query_one(column_id, Vertical)
        column.border_title = title
        column.query_one(".rerun-facts", Static).update(facts)
        column.query_one(".rerun-answer", Static).update(Content(raw))

    def _model_typed(self, model: str | None) -> None:
        if model is None or not model.strip():
            self.dismiss(None)
            return
        model = model.strip()
        self.query_one("#rerun-new", Vertical).border_title = f"new ({model})"
        self.query_one("#rerun-verdict", Static).update(
            fmt("[$warning]asking $model…[/]", model=model)
        )
        self.call_model(model)

    # -- the new answer ---------------------------------------------------------------------------

    @work(thread=True, exit_on_error=False, group="rerun")
    def call_model(self, model: str) -> None:
        try:
            self.post_message(RerunAnswered(self.ask(model)))
        except ForgeError as exc:
            self.post_message(RerunFailed(exc.message, closing=False))

    @on(RerunAnswered)
    def show_new(self, message: RerunAnswered) -> None:
        rerun = self.rerun = message.rerun
        new, recorded, differ = rerun.new, rerun.recorded, differences(rerun)
        self._fill(
            "#rerun-new", f"new ({new.model})",
            answer_facts(new.action, new.args, new.outcome(), new.usage(), differ),
            new.raw_response or "(no answer)",
        )  # fmt: skip
        facts = answer_facts(
            recorded.action, recorded.args, recorded.outcome(), recorded.usage(), differ
        )
        self.query_one("#rerun-recorded").query_one(".rerun-facts", Static).update(facts)
        colour = "$success" if rerun.same_action else "$error" if new.call_failed else "$warning"
        self.query_one("#rerun-verdict", Static).update(
            fmt(
                f"[b {colour}]$verdict[/] "
                "[$foreground-muted]· phase $phase · $tokens tokens sent[/]",
                verdict=rerun.verdict,
                phase=rerun.phase,
                tokens=f"{rerun.messages_tokens:,}",
            )
        )
        why_not = rerun.not_adoptable
        self._status(f"nothing to adopt: {why_not}" if why_not else "")
        self.query_one("#rerun-new", Vertical).query_one(".rerun-raw").focus()

    @on(RerunFailed)
    def show_failure(self, message: RerunFailed) -> None:
        self.adopting = False
        if message.closing:
            self.notify(message.error, title="re-run: not possible", severity="error",
                        markup=False)  # fmt: skip
            self.dismiss(None)
            return
        self.notify(message.error, title="re-run", severity="error", markup=False)
        self._status(message.error)

    # -- adopting ---------------------------------------------------------------------------------

    async def action_adopt(self) -> None:
        rerun = self.rerun
        if rerun is None or self.adopting:
            wait = "the fork is being made" if self.adopting else "no new answer yet"
            self.notify(wait, timeout=3, markup=False)
            return
        why_not = rerun.not_adoptable
        if why_not is not None:
            self.notify(f"nothing to adopt: {why_not}", timeout=3, markup=False)
            return
        await self._prompt(
            f"Adopt the new action as step {self.step} of a fork",
            f"The task is copied as it was after step {self.step - 1} into a new workspace, "
            f"and the new answer runs there as step {self.step}. This task is not changed.",
            f"{self.workspace}-rerun-{self.step}",
            "rerun-adopt-prompt",
            self._dest_typed,
        )

    def _dest_typed(self, dest: str | None) -> None:
        if dest is None or not dest.strip() or self.rerun is None:
            return
        self.adopting = True
        self._status(f"forking into {dest.strip()}…")
        self.adopt_into(self.rerun, dest.strip())

    @work(thread=True, exit_on_error=False, group="rerun")
    def adopt_into(self, rerun: Rerun, dest: str) -> None:
        try:
            self.post_message(RerunAdopted(self.adopt(rerun, dest)))
        except ForgeError as exc:
            self.post_message(RerunFailed(exc.message, closing=False))

    @on(RerunAdopted)
    def show_adopted(self, message: RerunAdopted) -> None:
        self.adopting = False
        done = message.adoption
        text = (
            f"adopted: step {done.step} of the fork ({done.action} {done.result}: {done.summary});"
            f" forgetui open {done.folder}"
        )
        self._status(text)
        self.notify(text, title="re-run adopted", timeout=8, markup=False)

    # -- helpers ----------------------------------------------------------------------------------

    async def _prompt(
        self,
        title: str,
        explanation: str,
        value: str,
        prompt_id: str,
        then: Callable[[str | None], None],
    ) -> None:
        """A text prompt over this modal with `value` typed in already."""
        from forgetui.tui.modals.text_prompt import TextPromptScreen

        prompt = TextPromptScreen(title, explanation, prompt_id=prompt_id)
        await self.app.push_screen(prompt, then)
        field = prompt.query_one(Input)
        field.value = value
        field.cursor_position = len(value)

    def _status(self, text: str) -> None:
        status = self.query_one("#rerun-status", Static)
        status.update(Content(text))
        status.set_class(bool(text), "-shown")

    def action_close(self) -> None:
        self.dismiss(None)
