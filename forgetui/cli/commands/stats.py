"""`forgetui stats TASK`: tokens sent per step against a run keeping the whole conversation."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from forgetui.cli.args import task_path
from forgetui.cli.render import console, print_json, table
from forgetui.engine import api
from forgetui.engine.api import EXIT_OK

if TYPE_CHECKING:
    from forgetui.cli.args import Subcommands

NAME = "stats"


def add_parser(sub: Subcommands) -> None:
    p = sub.add_parser("stats", help="tokens sent per step vs a naive growing conversation")
    p.add_argument("task", type=task_path)
    p.add_argument("--json", action="store_true")


def handle(args: argparse.Namespace) -> int:
    stats = api.TaskService(args.task).stats()
    if args.json:
        print_json(stats)
        return EXIT_OK
    print_stats(stats)
    return EXIT_OK


def health_text(health: dict[str, Any]) -> str:
    """A context's health in one line: `2,371/8,000 30% ok`, and its pressure when a section
    runs at 70% of its budget or more."""
    line = f"{health['total']:,}/{health['cap']:,} {int(health['percent'])}% {health['level']}"
    pressure = health.get("pressure")
    if pressure:
        line += f" · pressure: {pressure['name']} {int(pressure['percent'])}% of its budget"
    return line


def print_stats(stats: dict[str, Any]) -> None:
    """`stats`: sent vs naive at steps 1, 5, 10, 50, 100, 200, 300 and the last, then the
    totals and the context's health."""
    from forgetui.engine.api import stats_rows

    summary = stats["summary"]
    if not summary["steps"]:
        console().print(f"{stats['task_id']}: no step has sent a context yet", markup=False)
    else:
        console().print(
            f"{stats['task_id']}: tokens sent per step vs naive, a run that keeps the whole"
            f" conversation ({summary['encoding']})",
            markup=False,
        )
        grid = table()
        for column in ("step", "sent", "naive", "naive/sent"):
            grid.add_column(column, justify="right")
        for row in stats_rows(stats["steps"]):
            times = f"{row['naive'] / row['sent']:.1f}x" if row["sent"] else "-"
            grid.add_row(str(row["step"]), f"{row['sent']:,}", f"{row['naive']:,}", times)
        console().print(grid)
        line = (
            f"all {summary['steps']} steps: {summary['sent_total']:,} tokens sent, "
            f"{summary['naive_total']:,} naive ({summary['ratio_total']}x)"
        )
        over = summary["naive_over_cap_from"]
        cap = f"{summary['cap']:,}"
        line += (
            f"; a whole-conversation run passes the {cap}-token cap at step {over}"
            if over
            else f"; a whole-conversation run stays under the {cap}-token cap"
        )
        console().print(line, markup=False)
    health = stats.get("health")
    if health:
        which = "next step" if health["source"] == "preview" else "as sent"
        console().print(f"context health (step {health['step']}, {which}): {health_text(health)}")
