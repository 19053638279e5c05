"""The escalation inbox: every question this task asked the operator and the answer given, and
an answer promoted to a pinned working-memory note.

The log is the source: each answer is one operator record carrying its question (verbs.py),
routine ones (approve, re-run, retry) included, which leave no decision in state.yaml. Only
operator lines are parsed (the scan skips the others by their kind): ~0.1 s for a 10,000-step
log of 27 MB, paid when the inbox is asked for, never by a step or the workbench's reload. The
open question is state.yaml's pending escalation."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from forgetui.engine.base.compress import one_line
from forgetui.engine.base.errors import ForgeError
from forgetui.engine.base.yamlio import parse_yaml, read_text
from forgetui.engine.folder.records import OperatorRecord
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.folder.task_state import Decision, TaskState
from forgetui.engine.operator.verbs import ROUTINE, add_note, pin

ANSWER_OPS = ("answer", "retry", *ROUTINE)  # the ops operator.answer records
KEY_PREFIX = "answer@"
NOT_RECORDED = "(not recorded: answered before the log kept questions)"


@dataclass(frozen=True)
class InboxEntry:
    """One question and its answer (None while it waits). `id` is its step, with `.2`, `.3`
    for a second and third question at the same step; the promoted note's key is built on it."""

    id: str
    step: int  # the step that asked
    reason: str
    question: str
    options: tuple[str, ...]
    answer: str | None
    answered_step: int | None  # steps recorded when it was answered
    answered_at: str | None
    pending: bool
    promoted: bool  # its answer is a pinned working-memory item
    # a later rewind went back to before this answer (the question may be open again)
    undone_by_rewind: int | None = None  # the step that rewind went back to

    @property
    def key(self) -> str:
        return KEY_PREFIX + self.id

    def note(self) -> str:
        """The promoted item's content: short, the question cut, the answer in the operator's
        words."""
        return f"Q: {one_line(self.question, 200)} / A: {one_line(self.answer or '', 400)}"

    def why_not_promoted(self) -> str:
        """Why this answer cannot be promoted ("" if it can)."""
        if self.pending:
            return f"the question of step {self.step} is not answered yet: answer it first"
        return ""

    def to_json(self) -> dict[str, Any]:
        """The `inbox --json` line."""
        return {
            "id": self.id,
            "step": self.step,
            "reason": self.reason,
            "question": self.question,
            "options": list(self.options),
            "answer": self.answer,
            "answered_step": self.answered_step,
            "answered_at": self.answered_at,
            "pending": self.pending,
            "promoted": self.promoted,
            "undone_by_rewind": self.undone_by_rewind,
            "key": self.key,
        }


def escalation_inbox(folder: TaskFolder) -> list[InboxEntry]:
    """Every question asked and its answer, oldest first; the open one, if any, last."""
    answers: list[OperatorRecord] = []
    undone: dict[int, int] = {}  # id(answer record) -> the step a later rewind went back to
    rewound_to: int | None = None  # the earliest step rewound to after the records seen so far
    for record in folder.log.iter_backwards(("operator",)):
        if not isinstance(record, OperatorRecord):
            continue
        if record.op == "rewind" and isinstance(to := record.detail.get("to"), int):
            rewound_to = to if rewound_to is None else min(rewound_to, to)
        elif record.op in ANSWER_OPS:
            answers.append(record)
            # answered once step `record.step` was recorded: a rewind to it or before undid it
            if rewound_to is not None and record.step >= rewound_to:
                undone[id(record)] = rewound_to
    answers.reverse()
    # after the log: an answer writes state.yaml first, so none is seen twice meanwhile
    state = folder.load_state()
    pinned = {item.key for item in folder.load_memory().items if item.pinned and item.key}
    legacy = _LegacyQuestions(folder, state)
    asked: list[tuple[int, str, str, tuple[str, ...], OperatorRecord | None]] = []
    for record in answers:
        detail = record.detail
        question = detail.get("question")
        step = detail.get("asked_step")
        if not isinstance(question, str) or not isinstance(step, int):
            step, question = legacy.find(record)
        asked.append((step, str(detail.get("reason", "")), question, (), record))
    pending = state.pending_escalation
    if pending is not None:
        asked.append((pending.step, pending.reason, pending.question, tuple(pending.options), None))
    entries: list[InboxEntry] = []
    seen: dict[int, int] = {}
    for step, reason, question, options, answered in asked:
        seen[step] = seen.get(step, 0) + 1
        entry_id = str(step) if seen[step] == 1 else f"{step}.{seen[step]}"
        entries.append(
            InboxEntry(
                id=entry_id,
                step=step,
                reason=reason,
                question=question,
                options=options,
                answer=answered.text if answered else None,
                answered_step=answered.step if answered else None,
                answered_at=answered.at if answered else None,
                pending=answered is None,
                promoted=KEY_PREFIX + entry_id in pinned,
                undone_by_rewind=undone.get(id(answered)) if answered else None,
            )
        )
    return entries


def find_entry(entries: list[InboxEntry], entry_id: str) -> InboxEntry:
    """The entry named by its id ('7', '7.2'; 'answer@7' and 'step 7' read too)."""
    wanted = entry_id.strip().removeprefix(KEY_PREFIX).removeprefix("step").strip()
    for entry in entries:
        if entry.id == wanted:
            return entry
    known = ", ".join(entry.id for entry in entries) or "none: no question was asked yet"
    raise ForgeError(f"no question at step {wanted or '?'} in the inbox (steps: {known})")


def promote_answer(folder: TaskFolder, entry_id: str) -> str:
    """Pin the answer to question `entry_id` as a working-memory note (key answer@ID) the agent
    sees in every later context, logged as the operator's note; an item of that key already
    there, unpinned, is pinned again. Says what it did, or that it was already pinned."""
    with folder.lock:  # the inbox and memory read agree with the write
        entry = find_entry(escalation_inbox(folder), entry_id)
        if why := entry.why_not_promoted():
            raise ForgeError(why)
        if entry.promoted:
            return f"{entry.key} is already pinned"
        if entry.key in {item.key for item in folder.load_memory().items}:
            return f"pinned {pin(folder, entry.key)}"
        return f"pinned {add_note(folder, entry.note(), key=entry.key, pinned=True)}"


class _LegacyQuestions:
    """Questions of answers logged before the log kept them: a non-routine answer's is in its
    decision (state.yaml, or the folded decisions' file, read only if needed), matched by its
    words and step (the step that asked, or the one after it)."""

    def __init__(self, folder: TaskFolder, state: TaskState) -> None:
        self.folder = folder
        self.folded = state.folded_decisions
        self.pools = [list(state.decisions)]

    def find(self, record: OperatorRecord) -> tuple[int, str]:
        if record.op == "answer":
            for pool in (*self.pools, self._read_folded()):
                for decision in pool:
                    if decision.answer == record.text and record.step - decision.step in (0, -1):
                        pool.remove(decision)
                        return decision.step, decision.question
        return record.step, NOT_RECORDED

    def _read_folded(self) -> list[Decision]:
        """The folded decisions, once (then kept with the others)."""
        folded, self.folded = self.folded, None
        path = self.folder.path / folded.file if folded else None
        if path is None or not path.is_file():
            return []
        pool = [Decision.model_validate(item) for item in parse_yaml(read_text(path), path) or []]
        self.pools.append(pool)
        return pool
