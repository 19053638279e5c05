"""`forgetui inbox TASK`: every question asked in the task and its answer; --promote pins one."""

from __future__ import annotations

import argparse
import shlex
from typing import TYPE_CHECKING

from forgetui.cli.args import task_path
from forgetui.cli.render import console, print_json, table
from forgetui.engine import api
from forgetui.engine.api import EXIT_OK

if TYPE_CHECKING:
    from forgetui.cli.args import Subcommands
    from forgetui.engine.api import InboxEntry

NAME = "inbox"


def add_parser(sub: Subcommands) -> None:
    p = sub.add_parser("inbox", help="every question asked in this task and its answer")
    p.add_argument("task", type=task_path)
    p.add_argument(
        "--promote",
        metavar="STEP",
        help="pin the answer to step STEP's question as a working-memory note (answer@STEP)",
    )
    p.add_argument("--json", action="store_true")


def handle(args: argparse.Namespace) -> int:
    service = api.TaskService(args.task)
    if args.promote is not None:
        said = service.promote(args.promote)
        if not args.json:
            print(said)
            return EXIT_OK
    entries = service.inbox()
    if args.promote is not None:  # --json: the promoted entry
        entries = [api.find_entry(entries, args.promote)]
    if args.json:
        for entry in entries:
            print_json(entry.to_json())
    else:
        print_inbox(entries, args.task)
    return EXIT_OK


def print_inbox(entries: list[InboxEntry], task: str) -> None:
    """The questions asked, oldest first, the open one last with how to answer it."""
    from rich.markup import escape

    if not entries:
        console().print("no question was asked in this task yet")
        return
    grid = table()
    for column in ("step", "reason", "question", "answer", "pinned"):
        grid.add_column(column)
    for entry in entries:
        answer = "[yellow]waiting[/]" if entry.pending else escape(entry.answer or "")
        if entry.undone_by_rewind is not None:
            answer += f" [dim](undone: rewound to step {entry.undone_by_rewind})[/]"
        grid.add_row(
            entry.id,
            escape(entry.reason),
            escape(entry.question),
            answer,
            "yes" if entry.promoted else "",
        )
    console().print(grid)
    where = escape(shlex.quote(task))
    if entries[-1].pending:
        console().print(f"step {entries[-1].id} waits: forgetui answer {where} TEXT")
    console().print(f"forgetui inbox {where} --promote STEP pins an answer in working memory")
