"""The one table of operator commands. It feeds the key bindings (and so the footer), the help
screen and the command palette, so the three never disagree. Each binding has an id: a user
remaps a key with `keymap: {step: "ctrl+s"}` in config.yaml."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from textual.binding import Binding

from forgetui.engine import api
from forgetui.tui.layout import PANES, TITLES, Pane

# Where the key is bound: the workbench screen, the app, or the workbench's navigation base
# (navigation.py: moving between panes and backing out apply before the task is read).
Scope = Literal["screen", "app", "navigation"]


@dataclass(frozen=True)
class Command:
    id: str  # the binding id users remap
    key: str
    action: str  # the action method (action_<name>) on its scope
    scope: Scope
    description: str  # the footer's short label
    title: str  # the palette's and help's name
    help: str  # one line: what it does and when it applies
    key_display: str | None = None
    priority: bool = False  # before the focused widget's own binding for the key
    footer: bool = True  # shown in the footer (all commands are in help and the palette)
    argument: str | None = None  # passed to the action: one method serves several keys
    # The panes whose footer offers it (none: every pane's); its key works wherever it applies.
    panes: tuple[Pane, ...] = ()

    @property
    def binding_action(self) -> str:
        return self.action if self.argument is None else f"{self.action}({self.argument!r})"


MEMORY: tuple[Pane, ...] = ("memory",)
CONTEXT: tuple[Pane, ...] = ("context",)
LOG: tuple[Pane, ...] = ("log",)

COMMANDS: tuple[Command, ...] = (
    Command("run-pause", "space", "run_pause", "screen", "run/pause", "Run / pause",
            "Run steps back to back; pausing lands between steps (the step in flight finishes)",
            "space"),
    Command("step", "s", "single_step", "screen", "step", "Single step",
            "Exactly one model call, recorded, then paused; while an answer streams in, asks"
            " to stop it (the partial answer is recorded as stopped and the task pauses)"),
    Command("answer", "a", "answer", "screen", "answer", "Answer the escalation",
            "Answer the question, or approve / edit / reject the pending action"),
    Command("pin", "p", "toggle_pin", "screen", "pin", "Pin / unpin memory item",
            "A pinned item is never pushed out, expired or dropped for budget", panes=MEMORY),
    Command("evict", "x", "evict", "screen", "evict", "Evict memory item",
            "Drop the selected working-memory item before the next step", panes=MEMORY),
    Command("promote", "P", "promote_memory", "screen", "promote", "Promote to project memory",
            "The selected note or decision becomes project memory: every task of this "
            "workspace sees it (e edits and x removes an entry there)", footer=False,
            panes=MEMORY),
    Command("note", "n", "add_note", "screen", "note", "Add a note",
            "Add an operator note the agent sees from the next step on"),
    Command("edit", "e", "edit_memory", "screen", "edit", "Edit memory item",
            "Change the selected working-memory item's content", panes=MEMORY),
    Command("limits", "l", "set_limits", "screen", "limits", "Set limits",
            "Set the step or cost limit mid-run: a decision the agent sees", footer=False),
    Command("inbox", "i", "open_inbox", "screen", "inbox", "Escalation inbox",
            "Every question asked in this task and its answer; p pins an answer as a "
            "working-memory item", footer=False),
    Command("model", "m", "choose_model", "screen", "model", "Choose the model",
            "The model for the steps from the next one on: replay, human or a litellm name",
            footer=False),
    Command("detail", "enter", "open_detail", "screen", "open", "Open detail",
            "The selected context section, memory item, check, or log row's step (its result, "
            "the model's answer, the context sent) in full", "enter",
            panes=("context", "memory", "checks", "log")),
    Command("earlier", "left_square_bracket", "earlier_context", "screen", "earlier",
            "Earlier context",
            "The context as sent at an earlier step, with what changed since the one before", "[",
            panes=CONTEXT),
    Command("later", "right_square_bracket", "later_context", "screen", "later", "Later context",
            "A later step's context; past the last one, the next step's preview", "]",
            panes=CONTEXT),
    Command("filter", "slash", "filter_log", "screen", "filter", "Filter the log",
            "A bar above the log: only the rows whose action, target, result or summary holds "
            "the text, as it is typed; enter keeps it, escape clears it", "/", panes=LOG),
    Command("goto", "g", "goto_step", "screen", "go to", "Go to step",
            "The log cursor to a step's row. Wherever the cursor rests on a step, the context "
            "pane shows the context as sent at that step; on the newest row, the next step's "
            "preview again (as does ] past the last step)", panes=LOG),
    Command("rerun", "R", "rerun", "screen", "re-run", "Re-run with a model",
            "Send the selected step's saved context to a model again (nothing runs) and "
            "compare the answers", footer=False, panes=LOG),
    Command("rewind", "r", "rewind", "screen", "rewind", "Rewind to the step",
            "Back to the end of the selected step: state, memory and the files it wrote; the "
            "later steps stay in the log, dimmed. Or fork there into a new workspace",
            footer=False, panes=LOG),
    Command("zoom", "z", "zoom", "screen", "zoom", "Zoom pane",
            "The focused pane fills the screen; z again brings the other panes back"),
    Command("next-pane", "tab", "next_pane", "navigation", "next pane", "Next pane",
            "Focus the next pane in screen order (in a narrow terminal or zoomed: its tab, or "
            "the zoom moves to it); shift+tab the one before", "tab", priority=True,
            footer=False),
    Command("previous-pane", "shift+tab", "previous_pane", "navigation", "previous pane",
            "Previous pane", "Focus the pane before, in screen order", "shift+tab",
            priority=True, footer=False),
    Command("back-out", "escape", "back_out", "navigation", "back", "Back out",
            "Collapse the expanded context section, clear the log filter, close the dialog or "
            "leave the zoom: whichever is open, innermost first", "esc", footer=False),
    *(
        Command(f"pane-{pane}", str(number), "show_pane", "screen", TITLES[pane],
                f"Show the {TITLES[pane]} pane",
                f"Focus the {TITLES[pane]} pane (in a narrow terminal: its tab)",
                footer=False, argument=pane)
        for number, pane in enumerate(PANES, start=1)
    ),
    Command("back", "escape", "leave_task", "app", "back", "Back",
            "Leave this task's workbench for the list (or the task it was forked from)",
            "esc"),
    Command("messages", "h", "messages", "app", "messages", "Message history",
            "Every message shown, newest first, with its time and step; c copies one (one "
            "with a command to copy, as a fork's, stays on screen until clicked or this "
            "opens)", footer=False),
    Command("theme", "t", "next_theme", "app", "theme", "Next theme",
            "Cycle the themes in themes/; the choice is remembered"),
    Command("help", "question_mark", "help", "app", "help", "Help",
            "Every command, its key and whether it applies now", "?"),
    Command("quit", "q", "quit", "app", "quit", "Quit",
            "Leave the workbench; a step in flight is finished and recorded first"),
)  # fmt: skip


def bindings(scope: Scope) -> list[Binding]:
    return [
        Binding(
            command.key,
            command.binding_action,
            command.description,
            key_display=command.key_display,
            tooltip=command.help,
            id=command.id,
            priority=command.priority,
            show=command.footer,
        )
        for command in COMMANDS
        if command.scope == scope
    ]


def _stop_binding() -> Binding:
    """The step key, while an answer streams in: stop it. It shares the step command's binding
    id, so a keymap that moves the step key moves this too, and it comes first, so the footer
    shows it in the step's place while it applies (check_action hides it otherwise)."""
    step = next(command for command in COMMANDS if command.id == "step")
    return Binding(
        step.key, "stop_answer", "stop answer", key_display=step.key_display, id=step.id,
        tooltip="Stop the answer streaming in: the partial answer is recorded as stopped "
        "and the task pauses",
    )  # fmt: skip


STOP_BINDING = _stop_binding()


def key_for(command: Command, keymap: Mapping[str, str]) -> str:
    """The key as the user sees it, after their keymap."""
    if command.id in keymap:
        return keymap[command.id]
    return command.key_display or command.key


def commands_in(scope: Scope) -> Iterable[Command]:
    return (command for command in COMMANDS if command.scope == scope)


# Commands that change the task: never while another process writes it.
WRITING = frozenset(
    {
        "run_pause",
        "single_step",
        "answer",
        "toggle_pin",
        "evict",
        "add_note",
        "edit_memory",
        "set_limits",
        "choose_model",
        "promote_memory",
    }
)
# Commands that change working memory: one rule says when they may (api.memory_frozen).
MEMORY_CHANGES = frozenset({"toggle_pin", "evict", "edit_memory", "add_note"})


@dataclass(frozen=True)
class Situation:
    """What the workbench knows that decides which commands apply."""

    read_only: bool = False  # another process writes the task
    finished: bool = False
    status: str = ""  # the task's status, for the words of why a command does not apply
    escalated: bool = False
    busy: bool = False  # a step is in flight
    running: bool = False  # steps run back to back
    memory_selected: bool = False
    detail_target: bool = False  # a context section, memory item or log record has focus
    step: int = 0  # steps recorded
    context_step: int | None = None  # the saved context shown; None: the next step's preview

    @property
    def can_step(self) -> bool:
        return not (self.read_only or self.finished or self.escalated or self.busy)


def applies(action: str, now: Situation) -> bool:
    """Whether the command bound to `action` does something now (else the footer dims it and
    the palette leaves it out)."""
    if action in WRITING and now.read_only:
        return False
    idle = not now.busy and not now.running
    if action == "run_pause":
        return now.running or now.can_step
    if action == "single_step":
        return now.can_step and not now.running
    if action == "answer":
        return now.escalated and not now.busy
    if action in MEMORY_CHANGES and now.finished:
        return False
    if action in ("toggle_pin", "evict", "edit_memory", "promote_memory"):
        return idle and now.memory_selected  # promoting from a finished task is allowed
    if action in ("add_note", "set_limits"):
        return idle and not now.finished
    if action == "choose_model":
        return not now.finished
    if action == "rerun":
        return idle
    if action == "rewind":
        return idle
    if action == "open_detail":
        return now.detail_target
    if action == "earlier_context":
        return now.step >= 1 and (now.context_step is None or now.context_step > 1)
    if action == "later_context":
        return now.context_step is not None
    return True


def offered(action: str, now: Situation | None) -> bool:
    """Whether the footer shows the command bound to `action`. One that does not apply now is
    shown dimmed, as it may apply after the next step; but a workbench that only watches
    another process's run can never step, answer or change memory, so it does not offer them
    (help and the palette still say why)."""
    return not (now is not None and now.read_only and action in WRITING)


def why_not(action: str, now: Situation) -> str:
    """Why the command bound to `action` does nothing now, in the operator's words ("" if it
    applies): a key that does nothing says so instead of staying silent."""
    if applies(action, now):
        return ""
    if action in WRITING and now.read_only:
        return "another program is running this task: this workbench only watches"
    if action in MEMORY_CHANGES and now.finished:
        return api.memory_frozen(now.status or "complete")
    finishing = ("run_pause", "single_step", "set_limits", "choose_model")
    if action in finishing and now.finished:
        return "the task is finished"
    if action in ("run_pause", "single_step") and now.escalated:
        return "the agent is waiting for your answer: press a"
    if action == "single_step" and now.running:
        return "steps are running: space pauses first"
    if action == "answer" and not now.escalated:
        return "no question is waiting for an answer"
    if now.busy or now.running:
        return "a step is in flight: wait until it is recorded (space pauses a run)"
    if action in ("toggle_pin", "evict", "edit_memory", "promote_memory"):
        return "select a working-memory item first (2 shows the memory pane)"
    if action == "open_detail":
        return "select a context section, memory item, check or log row first"
    if action == "earlier_context":
        return "no earlier step: this is the first context" if now.step else "no step ran yet"
    if action == "later_context":
        return "this is already the next step's preview"
    return "not now"
