"""One section of the context as sent at step N, and its text diff against the same section as
sent at the step before on its branch. A saved context keeps the two messages, not the
sections: the system message is system_prompt, and the user message is the other sections
one after another, each opening at the start of a line with its name (`current_state:` in
YAML, `<current_state>` in XML, where available_actions is `<tools>`), in the order the file's
`sections` lists them."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from forgetui.engine.base.errors import ForgeError
from forgetui.engine.base.text_diff import TextDiff, text_diff
from forgetui.engine.context.render import XML_SECTION_TAGS, XML_WRAPPER
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.history.diff import previous_on_branch

SYSTEM_SECTION = "system_prompt"


@dataclass(frozen=True)
class SectionDiff:
    """Section `name` as sent at `step`, and its diff against `since` (0: no step before)."""

    step: int
    name: str
    since: int
    text: str
    diff: TextDiff


def section_texts(saved: Mapping[str, Any]) -> dict[str, str]:
    """Section name -> its text as sent, split out of a saved context's messages. A section
    the messages do not hold (a context saved by an older version) is left out."""
    names = [str(name) for name in saved.get("sections") or {}]
    texts: dict[str, str] = {}
    user = ""
    for message in saved.get("messages") or ():
        if message.get("role") == "system" and SYSTEM_SECTION in names:
            texts[SYSTEM_SECTION] = str(message.get("content") or "")
        elif message.get("role") == "user":
            user = str(message.get("content") or "")
    if user.startswith(XML_WRAPPER[0]) and user.endswith(XML_WRAPPER[1]):
        user = user[len(XML_WRAPPER[0]) : -len(XML_WRAPPER[1])]
    starts: list[tuple[int, str]] = []
    at = 0
    for name in (n for n in names if n != SYSTEM_SECTION):
        tag = XML_SECTION_TAGS.get(name, name)  # available_actions is <tools> in XML
        found = re.compile(rf"^(?:{re.escape(name)}:|<{re.escape(tag)}[\s>/])", re.M)
        match = found.search(user, at)
        if match is not None:
            starts.append((match.start(), name))
            at = match.end()
    for (start, name), (end, _next) in zip(starts, [*starts[1:], (len(user), "")], strict=True):
        texts[name] = user[start:end]
    return texts


def section_diff(folder: TaskFolder, step: int, name: str) -> SectionDiff:
    """Section `name` as sent at `step` against the step before it on its branch. A section
    absent before (a phase's first context) is all additions; no step before, or no context
    saved for it, is a note. ForgeError if step `step` sent no such section."""
    texts = section_texts(folder.load_saved_context(step))
    if name not in texts:
        raise ForgeError(f"task {folder.task_id}: step {step}'s saved context has no {name}")
    text = texts[name]
    since = previous_on_branch(folder, step)
    if since < 1:
        return SectionDiff(step, name, 0, text, TextDiff(note="the first step: nothing before"))
    try:
        before = section_texts(folder.load_saved_context(since)).get(name, "")
    except ForgeError:
        note = f"step {since} has no saved context to compare with"
        return SectionDiff(step, name, since, text, TextDiff(note=note))
    diff = text_diff(before, text, f"{name} at step {since}", f"{name} at step {step}")
    return SectionDiff(step, name, since, text, diff)
