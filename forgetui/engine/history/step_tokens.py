"""One step's point on the counterfactual meter (stats.py counts them). Apart from the
counting: the workbench unpickles the series its first-view child read, which must bring no
token counter or task file models with it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StepTokens:
    step: int
    sent: int  # the request as sent: the two messages and the tool schemas
    naive: int  # the same request had the run kept the whole conversation

    def to_json(self) -> dict[str, int]:
        return {"step": self.step, "sent": self.sent, "naive": self.naive}
