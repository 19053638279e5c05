"""`forgetui` and `forgetui open PATH`: the workbench on a task folder, a workspace or a sample;
the task list on a workspace holding several tasks or on the run copies (`--runs`)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from forgetui.cli.args import (
    add_model_bounds,
    model_bounds,
    model_name,
    task_path,
)

if TYPE_CHECKING:
    from forgetui.cli.args import Subcommands

NAME = "open"


def add_parser(sub: Subcommands) -> None:
    p = sub.add_parser(
        "open", help="open the TUI on a task folder, a workspace, the run copies or a sample"
    )
    p.add_argument(
        "path",
        nargs="?",
        type=task_path,
        help="default: the tasks here, else a fresh hello_world copy",
    )
    p.add_argument("--runs", action="store_true", help="the task list of the run copies")
    p.add_argument("--model", type=model_name, help="litellm model string, replay[:PATH] or human")
    p.add_argument("--api-base")
    add_model_bounds(p)
    p.add_argument("--theme", default=argparse.SUPPRESS)


def handle(args: argparse.Namespace) -> int:
    """Also what `forgetui` alone runs: then no PATH, and the flags are the top-level ones."""
    from forgetui.tui.launch import launch

    return launch(
        getattr(args, "path", None),
        model=getattr(args, "model", None),
        api_base=getattr(args, "api_base", None),
        theme=args.theme,
        model_options=model_bounds(args),
        runs=getattr(args, "runs", False),
    )
