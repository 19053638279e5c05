"""A task's statuses, apart from state.yaml's model: the workbench asks whether a task is
finished before (and without) loading the file models."""

from __future__ import annotations

from typing import Literal

Status = Literal["ready", "running", "paused", "escalated", "complete", "failed", "aborted"]
FINISHED: tuple[str, ...] = ("complete", "failed", "aborted")  # nothing more to step
