"""`forgetui context TASK`: the compiled context of the next step, or as sent at step N."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from forgetui.cli.args import (
    model_name,
    positive,
    task_path,
)
from forgetui.cli.render import console, print_json, table
from forgetui.engine import api
from forgetui.engine.api import EXIT_OK

if TYPE_CHECKING:
    from forgetui.cli.args import Subcommands
    from forgetui.engine.api import CompiledContext

NAME = "context"


def add_parser(sub: Subcommands) -> None:
    p = sub.add_parser("context", help="the compiled context of the next step (or of step N)")
    p.add_argument("task", type=task_path)
    p.add_argument("--step", type=positive(int), metavar="N")
    p.add_argument("--model", type=model_name)
    p.add_argument("--json", action="store_true")


def handle(args: argparse.Namespace) -> int:
    folder = api.open_task(args.task)
    if args.step is not None:
        saved = api.saved_context(folder, args.step)
        if args.json:
            print_json(saved)
        else:
            for message in saved["messages"]:
                print(f"===== {message['role']} =====\n{message['content']}")
            # why memory differs from the step before, and what each section gave up to fit
            for entry in api.context_diff(folder, args.step):
                print(entry.describe())
            for name, notes in (saved.get("compressions") or {}).items():
                print(f"compressed {name} ({'; '.join(notes)})")
        return EXIT_OK
    ctx = api.preview_context(folder, args.model)
    if args.json:
        print_json(ctx.to_json())
        return EXIT_OK
    print_context(ctx)
    return EXIT_OK


def print_context(ctx: CompiledContext) -> None:
    grid = table(title=f"context for step {ctx.step} ({ctx.format})", title_justify="left")
    grid.add_column("section")
    grid.add_column("tokens", justify="right")
    grid.add_column("budget", justify="right")
    for section in ctx.sections:
        style = "red" if section.tokens > section.budget else ""
        grid.add_row(section.name, str(section.tokens), str(section.budget), style=style)
        if section.name == "available_actions" and ctx.tool_tokens:
            # sent with the request, not in a message: counted in the total, not this budget
            grid.add_row("  + tool schemas", str(ctx.tool_tokens), "", style="dim")
    grid.add_row("total", str(ctx.request_tokens), str(ctx.max_tokens), style="bold")
    for message in ctx.messages:
        console().rule(message["role"])
        console().print(message["content"], markup=False)
    console().print(grid)
    share = ctx.request_tokens * 100 // max(ctx.max_tokens, 1)
    console().print(f"total {ctx.request_tokens:,} of {ctx.max_tokens:,} tokens ({share}%)")
    for section in ctx.sections:  # what each section gave up to fit its budget
        if section.compressions:
            notes = "; ".join(section.compressions)
            console().print(f"compressed {section.name} ({notes})", markup=False)
    if ctx.window is not None and ctx.max_tokens == ctx.window.cap:
        console().print(f"max {ctx.max_tokens:,}: the model's window, {ctx.window.describe()}")
    if ctx.window_problem:
        from rich.markup import escape

        console().print(f"[red]context window:[/] {escape(ctx.window_problem)}")
    for reason in ctx.over_budget:
        console().print(f"[red]over budget:[/] {reason}")
