"""One module per command: its subparser (`add_parser`) and its handler (`handle`). COMMANDS is
their order in `forgetui --help`; a new command is a module and a line here."""

from __future__ import annotations

from forgetui.cli.commands import (
    accept_task_change,
    answer,
    context,
    doctor,
    export_replay,
    inbox,
    init,
    limits,
    log,
    memory,
    new,
    project_memory,
    repair,
    rerun,
    rewind,
    run,
    runs,
    stats,
    status,
    tasks,
    unlock,
)
from forgetui.cli.commands import open as open_workbench

COMMANDS = (
    open_workbench,
    init,
    runs,
    tasks,
    new,
    run,
    context,
    status,
    log,
    answer,
    inbox,
    accept_task_change,
    repair,
    unlock,
    doctor,
    rewind,
    rerun,
    export_replay,
    stats,
    limits,
    memory,
    project_memory,
)
