"""One working-memory item as the operator sees it (views.py reads them). Apart from the
reader: the workbench unpickles rows its first-view child read, and a row must bring no task
file models with it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class MemoryRow:
    """One working-memory item as the operator sees it."""

    ref: str
    type: str
    summary: str
    step: int | None
    tokens: int
    expires_in: int | None
    pinned: bool
    visible: bool  # shown in the next context (not expired)
    content: str

    def to_json(self) -> dict[str, Any]:
        """The `memory list --json` line."""
        return {
            "ref": self.ref,
            "type": self.type,
            "step": self.step,
            "tokens": self.tokens,
            "expires_in": self.expires_in,
            "pinned": self.pinned,
            "visible": self.visible,
        }
