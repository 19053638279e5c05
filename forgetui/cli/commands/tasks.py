"""`forgetui tasks [PATH]`: every task under a workspace (or the run copies) on one line each:
status, step, cost, how full the context runs, the question waiting. Fast on long runs: no log
is read, and --json stays without rich."""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from forgetui.cli.args import task_path
from forgetui.cli.render import print_json
from forgetui.engine import api
from forgetui.engine.api import EXIT_OK, ForgeError

if TYPE_CHECKING:
    from forgetui.cli.args import Subcommands
    from forgetui.engine.api import TaskOverview

NAME = "tasks"
QUESTION_WIDTH = 60  # the question's first words: `status TASK` or `inbox TASK` has it whole


def add_parser(sub: Subcommands) -> None:
    p = sub.add_parser(
        "tasks", help="every task in a workspace or the run copies: status, step, cost, question"
    )
    p.add_argument(
        "path",
        nargs="?",
        type=task_path,
        help="a workspace, a directory of workspaces or a task (default: .)",
    )
    p.add_argument("--runs", action="store_true", help="the run copies (`forgetui runs`)")
    p.add_argument("--json", action="store_true")


def place_of(path: str | None, runs: bool) -> Path:
    """Where to list: PATH, the run copies, or the current directory."""
    if runs and path is not None:
        raise ForgeError("tasks: give PATH or --runs, not both")
    return api.runs_root() if runs else Path(path) if path is not None else Path(".")


def handle(args: argparse.Namespace) -> int:
    place = place_of(args.path, args.runs)
    tasks = api.TaskList(place).read()
    if args.json:
        print_json({"place": str(place.resolve()), "tasks": [task.to_json() for task in tasks]})
    else:
        print_tasks(tasks, place)
    return EXIT_OK


def print_tasks(tasks: list[TaskOverview], place: Path) -> None:
    """One plain line per task, aligned, as `runs` prints: the workspace first (what tells two
    copies of one sample apart), the question last, cut to the terminal's width."""
    header = ("WORKSPACE", "TASK", "STATUS", "STEP", "COST", "CONTEXT", "QUESTION")
    rows = [
        (
            task.workspace_from(place),
            task.name,
            task.status_text,
            str(task.step),
            f"${task.cost_usd:.4f}",
            task.context_text,
            task.question_line(QUESTION_WIDTH),
        )
        for task in tasks
    ]
    widths = [max(len(row[i]) for row in (header, *rows)) for i in range(len(header) - 1)]
    room = shutil.get_terminal_size((160, 24)).columns
    for row in (header, *rows):
        cells = [
            cell.rjust(width) if index in (3, 4) else cell.ljust(width)
            for index, (cell, width) in enumerate(zip(row[:-1], widths, strict=True))
        ]
        line = "  ".join([*cells, row[-1]]).rstrip()
        sys.stdout.write((line if len(line) <= room else line[: room - 1] + "…") + "\n")
    sys.stdout.flush()
