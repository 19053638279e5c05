"""`forgetui rewind TASK --to N`: back to step N (state, memory and files), or --fork into a new
workspace."""

from __future__ import annotations

import argparse
import shlex
import sys
from typing import TYPE_CHECKING

from forgetui.cli.args import task_path
from forgetui.cli.render import print_json
from forgetui.engine import api
from forgetui.engine.api import EXIT_OK, ForgeError

if TYPE_CHECKING:
    from forgetui.cli.args import Subcommands
    from forgetui.engine.api import RewindReport

NAME = "rewind"


def add_parser(sub: Subcommands) -> None:
    p = sub.add_parser("rewind", help="back to step N: state, memory and files; --fork copies")
    p.add_argument("task", type=task_path)
    p.add_argument("--to", type=int, required=True, metavar="N", help="the step to go back to")
    p.add_argument("--fork", metavar="DIR", help="a new workspace for the fork; the task stays")
    p.add_argument("--force", action="store_true", help="overwrite files changed by hand")
    p.add_argument("--json", action="store_true")


def handle(args: argparse.Namespace) -> int:
    fork = args.fork is not None  # an empty --fork is refused as such, not an in-place rewind
    if fork and args.force:
        raise ForgeError("rewind: --force is for an in-place rewind; a fork changes no file here")
    folder = api.open_task(args.task)
    try:
        if fork:
            report = api.fork_task(folder, args.to, args.fork)
        else:
            report = api.rewind_task(folder, args.to, force=args.force)
    except api.RewindConflict as conflict:  # one file a line, then what to do
        plan = conflict.report
        if args.json:
            print_json({**plan.to_json(), "error": conflict.message})
        sys.stderr.write(
            f"forgetui: rewind to step {plan.to} stopped: changed by hand since the run wrote "
            "them:\n" + "".join(f"  {rel}\n" for rel in plan.conflicts)
        )
        sys.stderr.write("forgetui: nothing changed; --force overwrites them\n")
        return conflict.exit_code
    if args.json:
        print_json(report.to_json())
    else:
        print_rewind(report)
    return EXIT_OK


def print_rewind(report: RewindReport) -> None:
    """`rewind`: what went back, each file written back or removed, what no snapshot covers,
    and how to go on."""
    lines = [report.describe()]
    lines += [f"  restored  {rel}" for rel in report.restored]
    lines += [f"  removed   {rel}" for rel in report.removed]
    lines += [f"  forced    {rel} (changed by hand: overwritten)" for rel in report.conflicts]
    if report.untracked_note:
        lines.append(f"note: {report.untracked_note}")
    lines.append(f"next: forgetui run {shlex.quote(str(report.folder))}")
    for line in lines:
        sys.stdout.write(line + "\n")
