"""The front ends' own files (the workbench's settings, an exported replay script), written and
shown by the engine's rules: whole or not at all, YAML as the task's files spell it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from forgetui.engine.base.yamlio import atomic_write_text, dump_yaml


def yaml_text(data: Any) -> str:
    """`data` as the task's YAML files spell it (an action's arguments, shown to the operator)."""
    return dump_yaml(data)


def save_yaml(path: Path, data: Any) -> None:
    """`data` as YAML at `path`, replacing the file whole: a reader never sees half of it."""
    atomic_write_text(path, dump_yaml(data))


def save_text(path: Path, text: str) -> None:
    """`text` at `path`, replacing the file whole (OSError as the filesystem says it)."""
    atomic_write_text(path, text)
