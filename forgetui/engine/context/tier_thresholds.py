"""The usage tiers' thresholds and what each does (tiers.py applies them). Kept apart from
the compiler and the task files: the context health the workbench unpickles reads its warn and
critical levels from here, and must load nothing else of the engine."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Tier:
    at: int  # the percent of the cap from which the tier acts
    effect: str  # what it does, as its compression note says it


COMPRESS, OPTIONAL, MORE, ALERT = (
    Tier(50, "older tool results collapsed to one line, errors and long texts cut to 500 "
             "characters"),
    Tier(70, "workspace tree and all but the newest 2 unpinned memory items dropped, "
             "lists capped at 5"),
    Tier(80, "lists (dropped-output traces too) capped at 2, only the newest unpinned item kept, "
             "recent actions cut to 2 with short summaries"),
    Tier(90, "the operator is alerted once as the context crosses it"),
)  # fmt: skip
TIERS = (COMPRESS, OPTIONAL, MORE, ALERT)
