"""Context health: how full a step's context is against its cap and each section against its
budget, and which section is the pressure.

The compiler keeps every context within its budgets; health says how close it runs, early
enough for the operator to unpin or evict before a step escalates "over budget". The same
view is built from a preview (`context_health`) or from a step's saved context
(`saved_health`), so `status`, `stats` and the workbench's header agree."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from forgetui.engine.context.tier_thresholds import ALERT, OPTIONAL

if TYPE_CHECKING:
    from forgetui.engine.context import CompiledContext

# the levels are the usage tiers that drop parts of the context and that alert
WARN_AT = OPTIONAL.at / 100  # a context or section from 70% of its cap or budget is "warn"
CRITICAL_AT = ALERT.at / 100  # from 90%, "critical"

Level = Literal["ok", "warn", "critical"]


def level_of(tokens: int, limit: int) -> Level:
    share = _share(tokens, limit)
    if share >= CRITICAL_AT:
        return "critical"
    return "warn" if share >= WARN_AT else "ok"


def _share(tokens: int, limit: int) -> float:
    if limit <= 0:
        return 1.0 if tokens > 0 else 0.0
    return tokens / limit


def _percent(tokens: int, limit: int) -> float:
    """Rounded down to a tenth: a share shown as 70% is never under the warn threshold."""
    return math.floor(_share(tokens, limit) * 1000) / 10


@dataclass(frozen=True)
class SectionHealth:
    name: str
    tokens: int
    budget: int

    @property
    def share(self) -> float:
        return _share(self.tokens, self.budget)

    @property
    def percent(self) -> float:
        return _percent(self.tokens, self.budget)

    @property
    def level(self) -> Level:
        return level_of(self.tokens, self.budget)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "tokens": self.tokens,
            "budget": self.budget,
            "percent": self.percent,
            "level": self.level,
        }


@dataclass(frozen=True)
class ContextHealth:
    """One context's fill. `total` is what the cap bounds: the two messages and the tool
    schemas sent beside them (`tool_tokens`, in no section)."""

    step: int
    source: Literal["preview", "saved"]  # the next step's preview, or as sent at `step`
    total: int
    cap: int
    sections: tuple[SectionHealth, ...]
    tool_tokens: int = 0

    @property
    def percent(self) -> float:
        return _percent(self.total, self.cap)

    @property
    def level(self) -> Level:
        return level_of(self.total, self.cap)

    @property
    def pressure(self) -> SectionHealth | None:
        """The section fullest against its budget, once one reaches WARN_AT; None before."""
        fullest = max(self.sections, key=lambda section: section.share, default=None)
        if fullest is None or fullest.share < WARN_AT:
            return None
        return fullest

    def to_json(self) -> dict[str, Any]:
        pressure = self.pressure
        return {
            "step": self.step,
            "source": self.source,
            "total": self.total,
            "cap": self.cap,
            "percent": self.percent,
            "level": self.level,
            "tool_tokens": self.tool_tokens,
            "sections": [section.to_json() for section in self.sections],
            "pressure": (
                {"name": pressure.name, "percent": pressure.percent, "level": pressure.level}
                if pressure is not None
                else None
            ),
            "thresholds": {"warn": round(WARN_AT * 100), "critical": round(CRITICAL_AT * 100)},
        }


def context_health(ctx: CompiledContext) -> ContextHealth:
    """The health of a compiled context (the next step's preview): each section against the
    budget it was compiled with (a budget cut to fit max_tokens or the model's window counts)."""
    return ContextHealth(
        step=ctx.step,
        source="preview",
        total=ctx.request_tokens,
        cap=ctx.max_tokens,
        sections=tuple(SectionHealth(s.name, s.tokens, s.budget) for s in ctx.sections),
        tool_tokens=ctx.tool_tokens,
    )


def saved_health(
    saved: Mapping[str, Any], budgets: Mapping[str, int], max_tokens: int
) -> ContextHealth:
    """The health of a context as sent (`TaskFolder.load_saved_context`): its recorded section
    tokens against the task's budgets, and its cap as applied then (`max_tokens` for a context
    saved before the cap was noted)."""
    tool_tokens = int(saved.get("tool_tokens") or 0)
    tokens: Mapping[str, Any] = saved.get("sections") or {}
    return ContextHealth(
        step=int(saved["step"]),
        source="saved",
        total=int(saved.get("total_tokens") or 0) + tool_tokens,
        cap=int(saved.get("max_tokens") or max_tokens),
        sections=tuple(
            SectionHealth(name, int(count), int(budgets.get(name, 0)))
            for name, count in tokens.items()
        ),
        tool_tokens=tool_tokens,
    )
