"""The workbench's settings as the launcher hands them to the app (config.py reads them).

Apart from the reader, with no YAML or pydantic: the workbench unpickles these from the child
that reads them while it starts (first_view.py)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

DEFAULT_THEME = "dark"  # here, not in themes.py: `run` reads these settings without Textual
CONFIG_FILE = "config.yaml"


@dataclass(frozen=True)
class Settings:
    theme: str = DEFAULT_THEME
    model: str | None = None
    api_base: str | None = None
    watch: bool = True  # follow changes other programs make to the task folder
    clock: bool = True  # show how long the step in flight has been running
    cursor_blink: bool = True  # text cursors in dialogs blink
    bell: bool = True  # the terminal bell rings once when a question arrives
    open_questions: bool = False  # a question arriving opens the answer modal at once
    keymap: Mapping[str, str] = field(default_factory=dict)  # binding id -> key(s)
    # "process": the executor lives in a child process (the default: a step's CPU work never
    # competes with the UI for the GIL); "thread": in a worker thread of this process.
    engine: Literal["process", "thread"] = "process"
    config_file: Path = Path(CONFIG_FILE)
    notices: tuple[str, ...] = ()  # problems met while reading settings, for the operator
    config_ok: bool = True  # config_file was absent or read cleanly: safe to rewrite
    # bounds of real model calls (ModelOptions fields): the config's apply under the task's own
    # task.yaml `model_options`, the flags typed at launch over them (`model_overrides`)
    model_options: Mapping[str, Any] = field(default_factory=dict)
    model_flags: Mapping[str, Any] = field(default_factory=dict)


def model_overrides(settings: Settings, set_by_task: Iterable[str]) -> dict[str, Any]:
    """The model bounds to run the task with, as overrides of its task.yaml: the config's
    options the task does not set itself, then the flags typed at launch."""
    own = set(set_by_task)
    from_config = {k: v for k, v in settings.model_options.items() if k not in own}
    return {**from_config, **settings.model_flags}
