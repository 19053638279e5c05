"""How an operator's answer to an escalation reads: one grammar for the
CLI, the engine and the TUI's modal, which checks an answer before sending it."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from forgetui.engine.base.compress import one_line
from forgetui.engine.base.errors import ForgeError
from forgetui.engine.folder.task_state import Escalation, Resolution

APPROVE_WORDS = ("approve", "approved", "yes", "y", "ok")
REJECT_WORDS = ("reject", "rejected", "no", "n")
RERUN_WORDS = ("re-run", "rerun", "retry")


def parse_modify_args(text: str) -> dict[str, Any]:
    """The new arguments of `modify {json}`."""
    try:
        args = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ForgeError(
            f"modify needs the new arguments as JSON: {exc.msg} (line {exc.lineno})"
        ) from None
    if not isinstance(args, dict):
        raise ForgeError("modify needs a JSON object of arguments")
    return args


def first_word(text: str) -> str:
    words = text.split(maxsplit=1)
    return words[0].lower().rstrip(":,") if words else ""


def resolution_for(pending: Escalation, text: str) -> Resolution | None:
    """What the answer makes the next step do, for the escalations that wait on a step
    (approvals, interrupted steps); None for the others, whose answer is only a decision.
    Raises ForgeError naming the accepted forms when the answer does not fit, a closed
    choice's included: an answer that picks none of its options is refused, not taken as
    free text that would silently pick one."""
    text = text.strip()
    if not text:
        raise ForgeError("an answer needs some text")
    word = first_word(text)
    rest = text[len(word) :].strip(" :,")
    if pending.reason == "approval":
        if word in APPROVE_WORDS:
            return Resolution(kind="approve", step=pending.step)
        if word in REJECT_WORDS:
            return Resolution(kind="reject", step=pending.step, reason=rest or None)
        if word == "modify":
            return Resolution(kind="modify", step=pending.step, args=parse_modify_args(rest))
        raise ForgeError("answer an approval with approve, reject [reason] or modify {json args}")
    if pending.reason == "interrupted":
        if word in RERUN_WORDS:
            return Resolution(kind="rerun", step=pending.step)
        if word == "skip":
            return Resolution(kind="skip", step=pending.step)
        raise ForgeError("answer an interrupted step with re-run or skip")
    if pending.reason in CLOSED_CHOICES and word != "abort" and not chosen_option(pending, text):
        options = ", ".join(CLOSED_CHOICES[pending.reason])
        raise ForgeError(
            f"{one_line(text, 40)!r} is not one of the options: {options} (a reason may "
            f"follow, as in 'keep working: why'); or abort, {TAKEOVER_FORMS}"
        )
    return None


# The questions forgetui itself asks with a fixed set of answers, each option with the words
# that pick it (its own name first). The agent's own questions keep free text beside their
# options; approvals and interrupted steps have their grammar above.
CLOSED_CHOICES: dict[str, dict[str, tuple[str, ...]]] = {
    "confirm_complete": {
        "accept": ("accept", "accepted", "approve", "approved", "yes", "y", "ok"),
        "keep working": ("keep working", "no", "n", "continue"),
    },
}


def chosen_option(pending: Escalation, text: str) -> str | None:
    """The option of a closed choice the answer picks: its words first, whole (`no`, not
    `nope`), then nothing or a reason (`keep working: the README is missing`). None if it picks
    none, or if its reason opens with another option (`ok, keep working` is not a yes)."""
    choices = CLOSED_CHOICES.get(pending.reason, {})
    said = " ".join(text.casefold().split())
    picked = [
        (option, said[len(word) :].lstrip(" :,;.!-"))
        for option, words in choices.items()
        for word in words
        if said.startswith(word) and not said[len(word) : len(word) + 1].isalnum()
    ]
    if len({option for option, _ in picked}) != 1:
        return None
    option, rest = picked[0]
    others = (w for other, words in choices.items() if other != option for w in words)
    if any(rest.startswith(w) and not rest[len(w) : len(w) + 1].isalnum() for w in others):
        return None
    return option


def modify_answer(args_text: str) -> str:
    """`modify {json}` from edited arguments, checked."""
    return "modify " + json.dumps(parse_modify_args(args_text), ensure_ascii=False)


@dataclass(frozen=True)
class Takeover:
    """What an answer makes of the task itself: the operator taking over from the agent."""

    status: Literal["complete", "failed"] | None = None
    phase: str | None = None
    more_steps: int | None = None
    more_cost: float | None = None


_MORE = re.compile(r"continue\s+(?:for|with)\s+\$?(\d+(?:\.\d+)?)\s*(?:more)?", re.IGNORECASE)
TAKEOVER_FORMS = "mark complete [why], mark failed [why], phase NAME"


def takeover_for(pending: Escalation, text: str, phases: tuple[str, ...]) -> Takeover | None:
    """The take-over an answer asks for, any escalation: 'mark complete', 'mark failed',
    'phase NAME'; past a limit, 'continue for N more'; confirming a finish, 'accept'. None for
    an answer that is only a decision. Raises ForgeError for a phase the task does not have."""
    text = text.strip()
    word = first_word(text)
    rest = text[len(word) :].strip(" :,")
    if word == "mark":
        what = first_word(rest)
        if what in ("complete", "completed", "done"):
            return Takeover(status="complete")
        if what in ("failed", "fail"):
            return Takeover(status="failed")
        raise ForgeError("mark the task 'complete' or 'failed'")
    if word == "phase":
        phase = first_word(rest)
        if phase not in phases:
            raise ForgeError(f"phase {phase or '?'} is not one of this task's: {', '.join(phases)}")
        return Takeover(phase=phase)
    if chosen_option(pending, text) == "accept":
        return Takeover(status="complete")
    if pending.reason in ("max_steps", "max_cost") and (more := _MORE.match(text)):
        amount = float(more.group(1))
        if pending.reason == "max_steps":
            return Takeover(more_steps=int(amount))
        return Takeover(more_cost=amount)
    return None


_LIMIT = re.compile(r"(steps?|cost)\s*[=:]?\s*\$?(\d+(?:\.\d+)?)", re.IGNORECASE)
LIMITS_FORMS = "steps N, cost X, or both ('steps 50 cost 2.5')"


def parse_limits(text: str) -> tuple[int | None, float | None]:
    """The workbench's limits prompt: 'steps 50', 'cost 2.5', both, or a bare number of
    steps. Raises ForgeError naming the forms."""
    text = text.strip()
    if text.isdigit():
        return int(text), None
    found = {match.group(1).lower().rstrip("s"): match.group(2) for match in _LIMIT.finditer(text)}
    if not found:
        raise ForgeError(f"set limits as {LIMITS_FORMS}")
    steps = found.get("step")
    if steps is not None and not steps.isdigit():
        raise ForgeError(f"steps must be a whole number, got {steps}")
    cost = found.get("cost")
    return (int(steps) if steps else None), (float(cost) if cost else None)


def check_answer(pending: Escalation, text: str, phases: tuple[str, ...]) -> None:
    """Raise ForgeError, naming the accepted forms, if `text` cannot answer `pending`."""
    if takeover_for(pending, text, phases) is None:
        resolution_for(pending, text)
