"""The status line at the top: task, who writes it, status and step, context tokens (from 70%
of the cap or of a section's budget with their share and the section under pressure), the last
prompt's tokens by forgetui's count and the server's (when it reported one), phase, model and
cost, and where the line has room a sparkline of the tokens sent beside a run keeping the whole
conversation. One line, most important first; at a width too narrow for all of it whole parts
give way (the least important first) rather than a number being cut in half."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import PurePath

from textual import events
from textual.content import Content
from textual.widgets import Static

from forgetui.tui.markup import fmt
from forgetui.tui.snapshot import TaskSnapshot

STAGE_TEXT = {
    "context": "compiling context",
    "model": "waiting for the model",
    "answer": "the model is answering",
    "execute": "executing",
    "verify": "verifying",
}
SEPARATOR = Content(" │ ")
BRAND = Content.assemble((" forgetui", "bold"), "  ")
KEEP = 0  # rank of a part that never gives way; higher ranks give way first
LEVEL_STYLE = {"warn": "bold $warning", "critical": "bold $error"}
SPARKS = "▁▂▃▄▅▆▇█"
# the sent-vs-naive sparkline: from this many steps (fewer show no trend), at most this many
SPARK_MIN = 4
SPARK_MAX = 12
IDLE = ("ready", "paused", "running")  # statuses a run in another process is going on from


@dataclass(frozen=True)
class Activity:
    """What the workbench is doing now, beyond what state.yaml says."""

    running: bool = False  # run mode: steps follow one another until paused
    step_in_flight: int | None = None
    stage: str = ""
    elapsed_s: float | None = None  # None when the clock is off
    awaiting_human: bool = False  # the human model's prompt is open: the step waits on us
    unreadable: bool = False  # the task's files do not read now (the banner says why)


def short_command(command: str) -> str:
    """The holder's program and subcommand ("forgetui run"), without paths and flags: the
    READ-ONLY banner has to fit a narrow terminal."""
    try:
        words = shlex.split(command)
    except ValueError:  # unbalanced quotes (a truncated command line)
        words = command.split()
    kept: list[str] = []
    for word in words[:2]:
        if kept and (word.startswith("-") or "/" in word):
            break
        kept.append(word if kept else PurePath(word).name)
    return " ".join(kept)


def model_label(model: str) -> str:
    """`replay:PATH` names its script by file name: the folder adds nothing but width."""
    kind, colon, script = model.partition(":")
    return f"replay:{PurePath(script).name}" if kind == "replay" and colon else model


def _status(snapshot: TaskSnapshot, activity: Activity) -> tuple[str, bool]:
    """The status text, and whether it already names the step (then `step N` is left out: the
    snapshot lags the engine, and two step numbers on one line disagree)."""
    if activity.step_in_flight is not None:
        stage = STAGE_TEXT.get(activity.stage, activity.stage or "starting")
        status = f"running step {activity.step_in_flight}: {stage}"
        if activity.elapsed_s is not None:
            status += f" {activity.elapsed_s:.1f}s"
        return status, True
    if activity.awaiting_human:
        return f"step {snapshot.next_step}: waiting for your action", True
    pending = snapshot.escalation
    if pending is not None and pending.reason == "approval" and not activity.running:
        # `step N` counts the steps recorded; the one waiting is the next, not yet recorded
        return f"step {pending.step} waits for your approval", True
    if activity.running or (snapshot.holder is not None and snapshot.status in IDLE):
        # a task another process holds is being written by it, whatever state.yaml last said
        return "running", False
    return snapshot.status, False


def _context_part(snapshot: TaskSnapshot) -> Part:
    """`context 1,298/8,000 tok`; from 70% of the cap or of a section's budget the share and
    the section under pressure instead of "tok", in the level's colour (`context 2,204/2,600
    84% warn · current_state 73%`; when room runs out the pressure goes, the share stays)."""
    context, health = snapshot.context, snapshot.health
    tokens = f"{context.total_tokens:,}/{context.max_tokens:,}" if context else "-"
    if context is None or health is None or (health.level == "ok" and health.pressure is None):
        return Part(Content(f"context {tokens} tok" if context else "context -"), 2)
    style = LEVEL_STYLE.get(health.level, "")
    share = Content.styled(f"{int(health.percent)}% {health.level}", style)
    short = Content.assemble(f"context {tokens} ", share)
    pressure = health.pressure
    if pressure is None:
        return Part(short, 2)
    pressed = f"{pressure.name} {int(pressure.percent)}%"
    under = Content.styled(pressed, LEVEL_STYLE[pressure.level])
    return Part(Content.assemble(short, " · ", under), 2, short=short)


def _k(tokens: int) -> str:
    return f"{tokens / 1000:.1f}K" if tokens >= 1000 else str(tokens)


def spark(values: list[int], top: int) -> str:
    """One block character per value, on a scale shared by both lines (0 to `top`), so the
    context's line lies flat under the growing conversation."""
    last = len(SPARKS) - 1
    return "".join(SPARKS[min(last, round(value / top * last))] if top else SPARKS[0]
                   for value in values)  # fmt: skip


def sparkline(snapshot: TaskSnapshot, room: int) -> Content | None:
    """`naive ▁▂▃▅▇ 27.6K sent ▁▁▁▁▁ 2.4K`: the last steps' tokens sent beside a run keeping
    the whole conversation, as many steps as `room` cells hold (None: fewer than SPARK_MIN)."""
    series = snapshot.token_series
    for count in range(min(SPARK_MAX, len(series)), SPARK_MIN - 1, -1):
        shown = series[-count:]
        naive, sent = [p.naive for p in shown], [p.sent for p in shown]
        top = max(naive + sent)
        line = Content.assemble(
            "naive ", (spark(naive, top), "$warning"), f" {_k(naive[-1])} sent ",
            (spark(sent, top), "$success"), f" {_k(sent[-1])}",
        )  # fmt: skip
        if line.cell_length <= room:
            return line
    return None


@dataclass(frozen=True)
class Part:
    """One part of the line; `rank` says how early it gives way (KEEP: never), and a part with
    a `short` form takes it once it is the next to go, before it gives way whole."""

    content: Content
    rank: int
    short: Content | None = None


def _fit(parts: list[Part], width: int) -> Content:
    """The line with the brand if everything fits, else without it and with as many of the
    highest-ranked parts shortened or left out as it takes (width 0: not laid out yet, so
    everything)."""
    full = Content.assemble(BRAND, SEPARATOR.join(part.content for part in parts))
    if width <= 0 or full.cell_length <= width:
        return full
    kept = list(parts)
    while True:
        line = Content.assemble(" ", SEPARATOR.join(part.content for part in kept))
        ranks = [part.rank for part in kept]
        if line.cell_length <= width or max(ranks) == KEEP:
            return line  # what still does not fit, Textual crops
        index = ranks.index(max(ranks))
        part = kept[index]
        if part.short is not None:
            kept[index] = Part(part.short, part.rank)
        else:
            del kept[index]


class StatusHeader(Static):
    _shown: Content | None = None
    _state: tuple[TaskSnapshot, Activity] | None = None

    def show_state(self, snapshot: TaskSnapshot | None, activity: Activity) -> None:
        if snapshot is None:
            self._state = None
            waiting = (
                "the task does not read: see below"
                if activity.unreadable
                else ("opening the task ...")
            )
            self.update(fmt(" [b]forgetui[/]  $waiting", waiting=waiting))
            return
        self._state = (snapshot, activity)
        status, names_step = _status(snapshot, activity)
        # Content.assemble, not markup: this runs at every stage of every step.
        task_id = Content.styled(snapshot.task_id, "bold $accent")
        parts = [Part(task_id, KEEP)]
        if snapshot.holder is not None:
            pid, command = snapshot.holder.pid, short_command(snapshot.holder.command)
            who = f" pid {pid} ({command}) holds it" if command else f" pid {pid} holds it"
            parts.append(Part(Content.assemble((" READ-ONLY ", "bold reverse"), who), KEEP))
        parts.append(Part(Content.styled(status, "bold"), KEEP))
        if snapshot.sandbox is not None and snapshot.sandbox.name != "bwrap":
            # said where it cannot be missed: agent commands are not isolated from this machine
            parts.append(Part(Content.styled("no OS sandbox", "bold $warning"), KEEP))
        if not names_step:
            parts.append(Part(Content(f"step {snapshot.step}"), 1))
        parts.append(_context_part(snapshot))
        if snapshot.provider_prompt_tokens:
            # the last prompt by both counts: budgets use forgetui's, the window the server's
            server = f"server {snapshot.provider_prompt_tokens:,}"
            sent = f"sent {snapshot.prompt_tokens:,} · {server}"
            parts.append(Part(Content(sent), 3, short=Content(server)))
        parts.append(Part(Content.assemble("phase ", (snapshot.phase, "bold")), 4))
        environment = snapshot.environment
        if environment is not None and environment.source != "forgetui":
            # the project's own Python; forgetui's is said in help, not on every screen
            parts.append(Part(Content(f"python {environment.short}"), 5))
        if snapshot.model:
            model = f"model {model_label(snapshot.model)}"
            # what the server's probe changed (merged system, tools off, its window)
            tagged = f"{model} ({snapshot.server_tag})" if snapshot.server_tag else model
            short = Content(model) if snapshot.server_tag else None
            parts.append(Part(Content(tagged), 5, short=short))
        parts.append(Part(Content(f"${snapshot.cost:.4f}"), 6))
        # the sparkline only where every other part still fits beside it (the brand gives way)
        whole = Content.assemble(" ", SEPARATOR.join(part.content for part in parts))
        room = self.size.width - whole.cell_length - SEPARATOR.cell_length
        trend = sparkline(snapshot, room) if self.size.width > 0 else None
        if trend is not None:
            parts.append(Part(trend, 7))
        content = _fit(parts, self.size.width)
        if content != self._shown:
            self._shown = content
            self.update(content, layout=False)  # one line, always: no layout pass needed
        running = activity.running or activity.step_in_flight is not None
        self.set_class(running, "-running")
        idle = not running and not snapshot.finished and snapshot.escalation is None
        self.set_class(idle, "-paused")
        self.set_class(snapshot.escalation is not None and not running, "-escalated")
        self.set_class(snapshot.read_only, "-read-only")
        self.set_class(snapshot.finished, "-finished")

    def on_resize(self, _event: events.Resize) -> None:
        """Which parts fit depends on the width."""
        if self._state is not None:
            self.show_state(*self._state)
