"""`forgetui log TASK`: the action log, one line per step (--json: one object per line); with
`--step N`, that step's lines and, for a write_file or edit_file, the file's unified diff."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from forgetui.cli.args import (
    positive,
    task_path,
)
from forgetui.cli.render import console, print_json, table
from forgetui.engine import api
from forgetui.engine.api import EXIT_OK, ForgeError

if TYPE_CHECKING:
    from forgetui.cli.args import Subcommands
    from forgetui.engine.api import FileDiff, TaskFolder

NAME = "log"


def add_parser(sub: Subcommands) -> None:
    p = sub.add_parser("log", help="the action log, one line per step")
    p.add_argument("task", type=task_path)
    p.add_argument("--tail", type=positive(int), metavar="N")
    p.add_argument(
        "--step", type=positive(int), metavar="N",
        help="that step's lines, and the diff of the file a write_file or edit_file changed",
    )  # fmt: skip
    p.add_argument("--json", action="store_true")


def handle(args: argparse.Namespace) -> int:
    folder = api.open_task(args.task)
    if args.step is not None:
        return print_step(folder, int(args.step), args.json)
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


def print_step(folder: TaskFolder, step: int, as_json: bool) -> int:
    """Step `step`'s lines (its intent and result merged, the operator's after it), then what
    a file write did: a plain unified diff (--json: `file_diffs` on the step's line)."""
    entries = [entry for entry in api.log_entries(folder) if entry["step"] == step]
    if not entries:
        raise ForgeError(f"log --step {step}: task {folder.task_id} has no step {step} in its log")
    row = api.log_row_of_step(folder, step)
    diffs: tuple[FileDiff, ...] = ()
    if row is not None:
        [found] = api.log_rows(folder, row, row + 1)
        diffs = api.record_detail(folder, found.record).file_diffs
    if as_json:
        for entry in entries:
            if diffs and "action" in entry:
                entry = {**entry, "file_diffs": [_diff_json(diff) for diff in diffs]}
            print_json(entry)
        return EXIT_OK
    print_log(entries)
    for diff in diffs:
        sys.stdout.write(f"\n{diff.heading()}\n{diff.diff.text()}")
    return EXIT_OK


def _diff_json(diff: FileDiff) -> dict[str, Any]:
    shown = diff.diff
    return {
        "path": diff.path,
        "created": diff.created,
        "added": shown.added,
        "removed": shown.removed,
        "diff": shown.text() if shown.note is None else None,
        "note": shown.note,
    }
