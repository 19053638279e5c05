"""`forgetui unlock TASK`: the lock of a process that is gone removed."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from forgetui.cli.args import task_path
from forgetui.engine import api
from forgetui.engine.api import EXIT_OK

if TYPE_CHECKING:
    from forgetui.cli.args import Subcommands

NAME = "unlock"


def add_parser(sub: Subcommands) -> None:
    p = sub.add_parser("unlock", help="remove a task's lock left by a process that is gone")
    p.add_argument("task", type=task_path)


def handle(args: argparse.Namespace) -> int:
    print(api.unlock_task(args.task))
    return EXIT_OK
