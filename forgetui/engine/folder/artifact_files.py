"""The files a step keeps under artifacts/ for the operator, beside the state that decides the
task: the context exactly as sent (contexts/step-000007.yaml) and each check's last full output
(outputs/checks.yaml)."""

from __future__ import annotations

from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from forgetui.engine.base.yamlio import dump_yaml


class ContextMessage(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: Literal["system", "user", "assistant"]
    content: str


class SavedContext(BaseModel):
    """artifacts/contexts/step-000007.yaml: the messages as sent, and what the caller noted
    about them (tokens per section, ...) at the top level."""

    model_config = ConfigDict(extra="allow")

    step: int
    messages: list[ContextMessage]

    def as_dict(self) -> dict[str, Any]:
        """step first, then the caller's notes, then the messages (how the file reads)."""
        return {
            "step": self.step,
            **(self.model_extra or {}),
            "messages": [message.model_dump() for message in self.messages],
        }


class CheckOutput(BaseModel):
    """A check's full output at its last run: state.yaml keeps only a summary of it."""

    model_config = ConfigDict(extra="forbid")

    step: int
    output: str


class CheckOutputs(BaseModel):
    """artifacts/outputs/checks.yaml: check name -> its last full output."""

    model_config = ConfigDict(extra="forbid")

    checks: dict[str, CheckOutput] = Field(default_factory=dict)


def dump_exact(data: Any) -> str:
    """YAML with `|` blocks for readability, unless a block would lose trailing spaces (the
    saved messages must be exactly what was sent): then plain quoted YAML."""
    if _has_trailing_spaces(data):
        return str(yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100))
    return dump_yaml(data)


def _has_trailing_spaces(data: Any) -> bool:
    if isinstance(data, str):
        return "\n" in data and any(line != line.rstrip() for line in data.split("\n"))
    if isinstance(data, dict):
        return any(_has_trailing_spaces(value) for value in data.values())
    if isinstance(data, list):
        return any(_has_trailing_spaces(value) for value in data)
    return False
