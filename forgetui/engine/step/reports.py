"""What the engine reports to its front ends: a step's report, progress events inside a step,
and the public JSON shapes they print."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from forgetui.engine.folder.stored_args import shortened
from forgetui.engine.folder.task_state import Escalation, Verification
from forgetui.engine.sandbox.redact import redact_data, secrets_of


def verification_json(verification: Verification) -> dict[str, Any]:
    """The public JSON shape of verification (`status --json`, `run --json`)."""
    return {
        "checks": {
            name: {"passing": check.passing, "details": check.details}
            for name, check in verification.checks.items()
        },
        "ready_for_completion": verification.ready_for_completion,
    }


def escalation_json(escalation: Escalation | None) -> dict[str, Any] | None:
    """The public JSON shape of a pending escalation (`status --json`, run's final line)."""
    if escalation is None:
        return None
    return escalation.model_dump(mode="json", exclude_none=True)


def printed_args(args: dict[str, Any]) -> Any:
    """Arguments as the log keeps them (folder/stored_args.py): a long one by reference, no
    secret value."""
    return redact_data(shortened(args), secrets_of(os.environ))


@dataclass(frozen=True)
class StepReport:
    """What one call of `Executor.step()` did: one `run --json` line (docs/cli.md)."""

    step: int
    action: str | None
    args: dict[str, Any]
    result: str
    summary: str
    context_tokens: int
    status: str
    verification: dict[str, Any]
    escalation: Escalation | None = None
    model_called: bool = False
    cost: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "action": self.action,
            "args": printed_args(self.args),
            "result": self.result,
            "summary": self.summary,
            "context_tokens": self.context_tokens,
            "status": self.status,
            "verification": self.verification,
        }


@dataclass(frozen=True)
class StepEvent:
    """Progress inside a step, for a live display: 'context', 'model', 'answer', 'execute',
    'verify'. An 'answer' event carries the streamed answer so far (`detail`, the whole text,
    not a delta), its tokens and the seconds since the call started."""

    step: int
    stage: str
    detail: str = ""
    tokens: int = 0
    elapsed_s: float = 0.0
