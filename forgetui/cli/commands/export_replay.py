"""`forgetui export-replay TASK`: the run as a replay script (a regression test)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from forgetui.cli.args import task_path
from forgetui.engine import api
from forgetui.engine.api import EXIT_OK, ForgeError

if TYPE_CHECKING:
    from forgetui.cli.args import Subcommands
    from forgetui.engine.api import ReplayExport

NAME = "export-replay"


def add_parser(sub: Subcommands) -> None:
    p = sub.add_parser("export-replay", help="the run as a replay script (a regression test)")
    p.add_argument("task", type=task_path)
    p.add_argument("--to", metavar="FILE", help="write here (default: stdout)")


def handle(args: argparse.Namespace) -> int:
    export = api.TaskService(args.task).export_replay()
    if args.to is None:
        sys.stdout.write(export.text)
        sys.stdout.flush()  # here, so a closed pipe (`| head`) ends quietly in main
    else:
        target = Path(args.to)
        if target.is_dir():
            raise ForgeError(f"--to {args.to}: a directory, not a file")
        try:  # an existing file is replaced whole: re-exporting updates the regression test
            api.save_text(target, export.text)
        except OSError as exc:
            raise ForgeError(f"--to {args.to}: {exc.strerror or exc}") from None
    print_export_notes(export, args.to)
    return EXIT_OK


def print_export_notes(export: ReplayExport, to: str | None) -> None:
    """`export-replay`'s report, on stderr: the script alone goes to stdout."""
    where = f" to {to}" if to else ""
    lines = [
        f"exported {export.responses} answers of task {export.task_id}{where}"
        f" (steps {export.step_ranges})"
    ]
    lines += [f"left out, {why}: {len(steps)} steps" for why, steps in export.left_out.items()]
    again = [answer for answer in export.answers if answer.replayed]
    if again:
        after = ", ".join(str(answer.after_step) for answer in again)
        lines.append(
            f"{len(again)} operator answers (after steps {after}) are comments in the script:"
            " when the replay stops there, give them again with `forgetui answer`"
        )
    for line in lines:
        sys.stderr.write(f"forgetui: {line}\n")
