"""How an operator's answer to an escalation reads (DESIGN.md section 6): one grammar for the
CLI, the engine and the TUI's modal, which checks an answer before sending it."""

from __future__ import annotations

import json
from typing import Any

from forgetui.engine.errors import ForgeError
from forgetui.engine.state import Escalation, Resolution

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
    Raises ForgeError naming the accepted forms when the answer does not fit."""
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
    return None


def modify_answer(args_text: str) -> str:
    """`modify {json}` from edited arguments, checked."""
    return "modify " + json.dumps(parse_modify_args(args_text), ensure_ascii=False)
