"""`forgetui new`: a task in a workspace; prints the task folder alone, so
`cd "$(forgetui new ...)"` works."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from forgetui.engine import api
from forgetui.engine.api import EXIT_OK, ForgeError

if TYPE_CHECKING:
    from forgetui.cli.args import Subcommands

NAME = "new"


def add_parser(sub: Subcommands) -> None:
    p = sub.add_parser("new", help="create a task in a workspace; prints the task folder")
    p.add_argument(
        "--workspace", default=".", help="the directory the agent works in (default: this one)"
    )
    p.add_argument("--goal", required=True)
    p.add_argument(
        "--type",
        dest="task_type",
        default="generic",
        choices=["generic", "fix_violation", "implement_feature", "write_tests"],
    )
    p.add_argument("--criterion", action="append", default=[])
    p.add_argument(
        "--check-cmd",
        action="append",
        default=[],
        help="a command check; without one, the project's own test command is proposed",
    )
    p.add_argument(
        "--no-check", action="store_true", help="no proposed test command (and no checks run)"
    )
    p.add_argument("--id", dest="task_id")


def handle(args: argparse.Namespace) -> int:
    if args.no_check and args.check_cmd:
        raise ForgeError("--no-check and --check-cmd: give one or the other")
    folder = api.create_task(
        args.workspace,
        args.goal,
        args.task_type,
        args.criterion,
        args.check_cmd,
        args.task_id,
        propose_check=not args.no_check,
        on_notice=lambda notice: sys.stderr.write(f"forgetui: {notice}\n"),
    )
    for line in api.environment_warnings(folder.workspace):  # what would fail its checks
        sys.stderr.write(f"forgetui: {line}\n")
    print(folder.path)  # stdout is the task folder alone: `cd "$(forgetui new ...)"` works
    return EXIT_OK
