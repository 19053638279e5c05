"""`forgetui accept-task-change TASK`: an edited task.yaml accepted (its diff shown, the
acceptance logged), so steps run again."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from forgetui.cli.args import task_path
from forgetui.engine import api
from forgetui.engine.api import EXIT_OK

if TYPE_CHECKING:
    from forgetui.cli.args import Subcommands

NAME = "accept-task-change"


def add_parser(sub: Subcommands) -> None:
    p = sub.add_parser(
        "accept-task-change", help="accept an edited task.yaml, so steps run again (logged)"
    )
    p.add_argument("task", type=task_path)


def handle(args: argparse.Namespace) -> int:
    service = api.TaskService(args.task)
    change = api.task_change(service.folder)
    if change is not None and change.diff:
        sys.stdout.write(change.diff if change.diff.endswith("\n") else change.diff + "\n")
    print(service.accept_task_change())
    return EXIT_OK
