"""Events the workbench's workers post to the UI thread. Each carries immutable records; the
worker that posts them never touches a widget.

The step chain: StepStarted -> StepProgress* -> StepRecorded (+ EscalationRaised) | StepFailed.
StepProgress events of stage "answer" carry the model's answer as it streams in.
Chatty ones (progress, file changes, snapshots) replace a queued predecessor of the same kind."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:  # the executor loads with the first step, not with the app
    from forgetui.engine.api import Escalation, LogRow, RecordDetail, StepEvent, StepReport
    from forgetui.tui.snapshot import ContextView, TaskSnapshot


@dataclass
class StepStarted(Message):
    """The executor worker began step `step`."""

    step: int


@dataclass
class StepProgress(Message):
    """A stage inside the step in flight (context, model, answer, execute, verify)."""

    event: StepEvent

    def can_replace(self, message: Message) -> bool:
        """A newer stage supersedes one not shown yet; an alert is never superseded (it is
        said once, and the operator must see it)."""
        return isinstance(message, StepProgress) and "alert" not in (
            self.event.stage,
            message.event.stage,
        )


@dataclass
class AnswerStopSent(Message):
    """The operator's stop reached the session: `stopped` is False if no answer was streaming
    by then (it had ended, and the step goes on)."""

    stopped: bool


@dataclass
class StepRecorded(Message):
    """The step finished and everything about it is on disk."""

    report: StepReport


@dataclass
class EscalationRaised(Message):
    """The step just recorded left the task waiting for the operator."""

    escalation: Escalation


@dataclass
class StepFailed(Message):
    """The step could not run (refused by the engine, or an unexpected error)."""

    title: str
    error: str


@dataclass
class ExecutorNotice(Message):
    """Something the executor repaired when it opened (a torn record, an interrupted step)."""

    text: str


@dataclass
class SnapshotLoaded(Message):
    snapshot: TaskSnapshot

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, SnapshotLoaded)


@dataclass
class SnapshotFailed(Message):
    """A state file did not read (an editor saved it half-done, say); the last good view stays."""

    error: str

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, SnapshotFailed)


@dataclass
class TaskFilesChanged(Message):
    """Another program (or our executor) changed the task folder."""

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, TaskFilesChanged)


@dataclass
class LogWindowNeeded(Message):
    """The action log pane scrolled to rows [first, end) it has not loaded yet."""

    first: int
    end: int

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, LogWindowNeeded)


@dataclass
class LogRowsLoaded(Message):
    start: int
    rows: tuple[LogRow, ...]


@dataclass
class LogTailLoaded(Message):
    """The log's newest rows, read on their own while the task's other files do not read."""

    count: int
    rows: tuple[LogRow, ...]


@dataclass
class TaskChangeAccepted(Message):
    """The operator accepted the edited task.yaml; `then` is the step or run that waited."""

    text: str
    then: Callable[[], None]


@dataclass
class ModelChosen(Message):
    """The session runs the steps from the next one on with `spec`; `then` continues what the
    choice was asked for (a step or a run waiting on a model)."""

    text: str
    spec: str
    then: Callable[[], None] | None = None


@dataclass
class OperatorDone(Message):
    """An operator change (pin, evict, note, edit, answer) is on disk."""

    text: str


@dataclass
class DetailLoaded(Message):
    detail: RecordDetail


@dataclass
class SavedContextLoaded(Message):
    """The context as sent at `step` (view), or why it cannot be shown (error)."""

    step: int
    view: ContextView | None
    error: str | None = None


@dataclass
class ThemeSaved(Message):
    theme: str
    error: str | None = None
