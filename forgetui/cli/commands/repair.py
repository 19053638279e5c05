"""`forgetui repair TASK`: what would make the task's files agree again; --apply does it."""

from __future__ import annotations

import argparse
import shlex
from typing import TYPE_CHECKING

from forgetui.cli.args import task_path
from forgetui.engine import api
from forgetui.engine.api import EXIT_OK

if TYPE_CHECKING:
    from forgetui.cli.args import Subcommands

NAME = "repair"


def add_parser(sub: Subcommands) -> None:
    p = sub.add_parser(
        "repair", help="make a task's damaged or disagreeing files agree again (dry run)"
    )
    p.add_argument("task", type=task_path)
    p.add_argument("--apply", action="store_true", help="do it (backups kept, logged)")


def handle(args: argparse.Namespace) -> int:
    done = api.repair_task(args.task, apply=args.apply)
    task = shlex.quote(args.task)
    if not done.fixes:
        if done.unfixable_error() is None:
            print("nothing to repair: state.yaml, working_memory.yaml and actions.yaml agree")
    elif args.apply:
        print(f"repaired (backups: {', '.join(done.backups) or 'none needed'}):")
    else:
        print(f"`forgetui repair {task} --apply` would (keeping a backup of each file it changes):")
    for fix in done.fixes:
        print(f"  {fix.text}")
    error = done.unfixable_error()
    if error is not None:
        raise error
    return EXIT_OK
