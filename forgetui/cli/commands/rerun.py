"""`forgetui rerun TASK --step N --model M`: step N's saved context sent to a model; nothing
executes unless --adopt forks with the new answer."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from forgetui.cli.args import (
    add_model_bounds,
    model_bounds,
    model_name,
    named_dir,
    task_path,
)
from forgetui.cli.render import console, print_json, table
from forgetui.engine import api

if TYPE_CHECKING:
    from forgetui.cli.args import Subcommands
    from forgetui.engine.api import Adoption, Rerun

NAME = "rerun"


def add_parser(sub: Subcommands) -> None:
    p = sub.add_parser("rerun", help="send step N's saved context to a model; nothing executes")
    p.add_argument("task", type=task_path)
    p.add_argument("--step", type=int, required=True, metavar="N")
    p.add_argument(
        "--model",
        required=True,
        type=model_name,
        help="a litellm model string, replay:PATH or human",
    )
    p.add_argument("--api-base")
    add_model_bounds(p)
    p.add_argument(
        "--adopt", metavar="DIR", type=named_dir, help="fork at N into DIR and run the new action"
    )
    p.add_argument("--json", action="store_true")


def handle(args: argparse.Namespace) -> int:
    service = api.TaskService(args.task, api_base=args.api_base, model_options=model_bounds(args))
    rerun = service.rerun(args.step, args.model)
    why_not = rerun.not_adoptable if args.adopt is not None else None
    adopted = None
    if args.adopt is not None and why_not is None:
        adopted = service.adopt_rerun(rerun, args.adopt)
    if args.json:
        print_json({**rerun.to_json(), "adopted": adopted.to_json() if adopted else None})
    else:
        print_rerun(rerun, adopted)
    if why_not is not None:
        sys.stderr.write(f"forgetui: nothing adopted: {why_not}\n")
        return 1
    return rerun.exit_code


def print_rerun(rerun: Rerun, adopted: Adoption | None = None) -> None:
    """`rerun`: the recorded and the new answer in two columns, then the verdict (and the fork
    the new answer was adopted into)."""
    recorded, new = rerun.recorded, rerun.new
    grid = table(
        title=f"step {rerun.step} re-run (phase {rerun.phase}, {rerun.messages_tokens:,} tokens"
        " sent): nothing executed",
        title_justify="left",
    )
    grid.add_column("")
    grid.add_column(f"recorded ({recorded.model or 'model'})", overflow="fold", ratio=1)
    grid.add_column(f"new ({new.model})", overflow="fold", ratio=1)
    grid.add_row("action", recorded.action, new.action or "-")
    args = (json.dumps(answer.args, ensure_ascii=False) for answer in (recorded, new))
    grid.add_row("args", *args)
    grid.add_row("outcome", recorded.outcome(), new.outcome())
    grid.add_row("usage", recorded.usage(), new.usage())
    grid.add_row("finish", recorded.finish_reason or "", new.finish_reason or "")
    grid.add_row("answer", recorded.raw_response or "", new.raw_response or "")
    console().print(grid, markup=False)
    colour = "green" if rerun.same_action else "yellow"
    console().print(f"[{colour}]{rerun.verdict}[/]")
    if adopted is not None:
        console().print(
            f"adopted as step {adopted.step} of the fork {adopted.folder}: {adopted.action}"
            f" {adopted.result}: {adopted.summary} (status {adopted.status})",
            markup=False,
            soft_wrap=True,
        )
