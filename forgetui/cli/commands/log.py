"""`forgetui log TASK`: the action log, one line per step (--json: one object per line)."""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from forgetui.cli.args import (
    positive,
)
from forgetui.cli.render import console, print_json, table
from forgetui.engine import api
from forgetui.engine.api import EXIT_OK

if TYPE_CHECKING:
    from forgetui.cli.args import Subcommands

NAME = "log"


def add_parser(sub: Subcommands) -> None:
    p = sub.add_parser("log", help="the action log, one line per step")
    p.add_argument("task")
    p.add_argument("--tail", type=positive(int), metavar="N")
    p.add_argument("--json", action="store_true")


def handle(args: argparse.Namespace) -> int:
    folder = api.open_task(args.task)
    entries = api.log_entries(folder, args.tail)
    if args.json:
        for entry in entries:
            print_json(entry)
        return EXIT_OK
    print_log(entries)
    return EXIT_OK


def print_log(entries: Iterable[dict[str, Any]]) -> None:
    grid = table()
    for column in ("step", "action", "result", "summary", "tokens", "cost"):
        grid.add_column(column)
    for entry in entries:
        if "operator" in entry:
            detail = entry.get("key") or entry.get("text") or ""
            grid.add_row(
                str(entry["step"]), f"operator:{entry['operator']}", "", str(detail), "", ""
            )
            continue
        superseded = bool(entry.get("superseded"))  # a branch a rewind left behind
        summary = entry.get("summary") or ""
        grid.add_row(
            str(entry["step"]),
            entry.get("action") or "",
            entry.get("result") or "",
            f"superseded: {summary}" if superseded else summary,
            str(entry.get("context_tokens") or ""),
            f"{entry.get('cost') or 0:.4f}",
            style="dim" if superseded else None,
        )
    console().print(grid)
