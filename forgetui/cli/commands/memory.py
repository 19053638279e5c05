"""`forgetui memory TASK ...`: working memory listed, or changed (pin, unpin, evict, note, edit)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from forgetui.cli.args import (
    ArgParser,
    task_path,
)
from forgetui.cli.render import console, print_json, table
from forgetui.engine import api
from forgetui.engine.api import EXIT_OK

if TYPE_CHECKING:
    from forgetui.cli.args import Subcommands
    from forgetui.engine.api import MemoryRow

NAME = "memory"


def add_parser(sub: Subcommands) -> None:
    p = sub.add_parser("memory", help="list or change working memory")
    p.add_argument("task", type=task_path)
    msub = p.add_subparsers(dest="memory_command", required=True, parser_class=ArgParser)
    msub.add_parser("list").add_argument("--json", action="store_true")
    for name in ("pin", "unpin", "evict"):
        msub.add_parser(name).add_argument("key")
    msub.add_parser("note").add_argument("text")
    e = msub.add_parser("edit")
    e.add_argument("key")
    e.add_argument("text")


def handle(args: argparse.Namespace) -> int:
    folder = api.open_task(args.task)
    sub = args.memory_command
    if sub == "list":
        rows = api.memory_rows(folder)
        if args.json:
            for row in rows:
                print_json(row.to_json())
        else:
            print_memory(rows)
        return EXIT_OK
    if sub in ("pin", "unpin"):
        ref = api.pin(folder, args.key, pinned=sub == "pin")
    elif sub == "evict":
        ref = api.evict(folder, args.key)
    elif sub == "edit":
        ref = api.edit_memory(folder, args.key, args.text)
    else:
        ref = api.add_note(folder, args.text)
    print(f"{sub}: {ref}")
    return EXIT_OK


def print_memory(rows: list[MemoryRow]) -> None:
    grid = table()
    for column in ("ref", "type", "step", "tokens", "expires in", "pinned"):
        grid.add_column(column)
    for row in rows:
        expires = "" if row.expires_in is None else f"{row.expires_in} steps"
        grid.add_row(
            row.ref,
            row.type,
            str(row.step if row.step is not None else ""),
            str(row.tokens),
            expires,
            "yes" if row.pinned else "",
        )
    console().print(grid)
