"""`forgetui runs`: the run copies samples were opened in, one line each; --prune removes old
ones (not those in use)."""

from __future__ import annotations

import argparse
import sys
import time
from typing import TYPE_CHECKING

from forgetui.cli.render import human_size, print_json
from forgetui.engine import api
from forgetui.engine.api import EXIT_OK, ForgeError

if TYPE_CHECKING:
    from forgetui.cli.args import Subcommands
    from forgetui.engine.api import Pruned, RunCopy

NAME = "runs"


def add_parser(sub: Subcommands) -> None:
    p = sub.add_parser("runs", help="list the run copies samples were opened in; --prune old ones")
    p.add_argument("--prune", action="store_true", help="remove old copies (not those in use)")
    p.add_argument("--keep", type=int, metavar="N", help="with --prune: the newest N stay (10)")
    p.add_argument(
        "--older-than", type=float, metavar="DAYS", help="with --prune: only copies older than this"
    )
    p.add_argument("--json", action="store_true")


def handle(args: argparse.Namespace) -> int:
    if not args.prune:
        if args.keep is not None or args.older_than is not None:
            raise ForgeError("runs: --keep and --older-than only go with --prune")
        copies = api.run_copies()
        if args.json:
            for copy in copies:
                print_json(copy.to_json())
        elif copies:
            print_runs(copies)
        else:
            sys.stderr.write(f"forgetui: no run copies in {api.runs_root()}\n")
        return EXIT_OK
    keep = api.DEFAULT_KEEP if args.keep is None else args.keep
    copies = api.run_copies()
    doomed = api.to_prune(copies, keep, args.older_than)  # bad --keep/--older-than: exit 2 here
    results = []
    for copy in doomed:
        result = api.remove_run(copy)
        results.append(result)
        if args.json:
            print_json(result.to_json())
        else:
            print_pruned(result)
    if args.json:
        removed = sum(1 for r in results if r.removed)
        print_json(
            {"final": True, "removed": removed, "kept": len(copies) - removed,
             "freed_bytes": sum(r.freed for r in results)}
        )  # fmt: skip
    else:
        print_prune_summary(results, len(copies))
    return EXIT_OK


def print_runs(copies: list[RunCopy]) -> None:
    """`runs`: one plain line per copy, aligned, path first (no table: paths must not wrap, and
    `cut`/`awk` should find the path in the first field)."""
    rows = [
        (
            str(copy.path),
            copy.sample,
            time.strftime("%Y-%m-%d %H:%M", time.localtime(copy.created)),
            copy.status,
            "" if copy.step is None else f"step {copy.step}",
            human_size(copy.size),
            "" if copy.holder is None else f"in use by pid {copy.holder.pid}",
        )
        for copy in copies
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row[:5], widths, strict=False)]
        cells += [row[5].rjust(widths[5]), row[6]]
        sys.stdout.write("  ".join(cells).rstrip() + "\n")
    sys.stdout.flush()


def print_pruned(result: Pruned) -> None:
    copy = result.copy
    if result.removed:
        step = "" if copy.step is None else f", step {copy.step}"
        line = f"removed {copy.path} ({copy.sample}, {copy.status}{step}, {human_size(copy.size)})"
    else:
        line = f"kept    {copy.path}: {result.reason}"
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def print_prune_summary(results: list[Pruned], total: int) -> None:
    removed = [r for r in results if r.removed]
    freed = human_size(sum(r.freed for r in removed))
    noun = "copy" if len(removed) == 1 else "copies"
    sys.stdout.write(
        f"removed {len(removed)} run {noun} of {total}, freed {freed}; "
        f"{total - len(removed)} kept\n"
    )
    sys.stdout.flush()
