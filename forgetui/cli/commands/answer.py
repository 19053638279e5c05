"""`forgetui answer TASK TEXT`: the pending escalation answered."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from forgetui.cli.args import task_path
from forgetui.engine import api
from forgetui.engine.api import EXIT_OK

if TYPE_CHECKING:
    from forgetui.cli.args import Subcommands

NAME = "answer"


def add_parser(sub: Subcommands) -> None:
    p = sub.add_parser("answer", help="answer the pending escalation")
    p.add_argument("task", type=task_path)
    p.add_argument("text")


def handle(args: argparse.Namespace) -> int:
    print(api.TaskService(args.task).answer(args.text))  # "answered step N: ..."
    return EXIT_OK
