"""`forgetui limits TASK`: the step or cost limit set mid-run (logged)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from forgetui.cli.args import task_path
from forgetui.engine import api
from forgetui.engine.api import EXIT_OK

if TYPE_CHECKING:
    from forgetui.cli.args import Subcommands

NAME = "limits"


def add_parser(sub: Subcommands) -> None:
    p = sub.add_parser("limits", help="set the step or cost limit mid-run")
    p.add_argument("task", type=task_path)
    p.add_argument("--max-steps", type=int)
    p.add_argument("--max-cost", type=float)


def handle(args: argparse.Namespace) -> int:
    folder = api.open_task(args.task)
    decision = api.set_limits(folder, args.max_steps, args.max_cost)
    print(f"limits set at step {decision.step}: {decision.answer}")
    return EXIT_OK
