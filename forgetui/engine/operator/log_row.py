"""One row of the action log as the CLI and the workbench show it (log_rows.py reads them).
Apart from the reader: the workbench unpickles rows its first-view child read, and a row must
bring no task file models with it."""

from __future__ import annotations

from dataclasses import dataclass

IN_FLIGHT = "in flight"  # a step's intent is recorded, its result not yet: the newest step only
INTERRUPTED = "interrupted"  # an intent whose result never came (a later intent followed)
AWAITING = "waiting for your approval"  # an in-flight step whose action the operator must pass


@dataclass(frozen=True)
class LogRow:
    """One row of the action log: a step (its intent and result merged) or an operator change.
    A record's detail describes that one record with the same fields."""

    index: int  # the row's place among the log's rows (a detail's: the record's in the log)
    kind: str  # step | operator; a detail's: intent | result | operator
    step: int
    action: str
    target: str
    result: str  # a result kind, "in flight", "interrupted"; a detail's intent: "intent"
    summary: str
    tokens: int | None
    cost: float | None
    ms: float | None  # the model's answer plus the action's run, when recorded
    record: int  # the record `enter` opens: the step's result, else its intent
    superseded: bool = False  # a step of a branch an in-place rewind left behind

    @property
    def done(self) -> bool:
        """A step whose outcome is known (recorded or given up on), not one still running."""
        return self.kind == "step" and self.result != IN_FLIGHT
