"""`forgetui run TASK`: steps headless, until complete, an escalation or --max-steps."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from forgetui.cli.args import (
    add_model_bounds,
    model_bounds,
    model_name,
    task_path,
)
from forgetui.cli.run_output import print_server_line, run_output
from forgetui.engine import api

if TYPE_CHECKING:
    from forgetui.cli.args import Subcommands

NAME = "run"


def add_parser(sub: Subcommands) -> None:
    p = sub.add_parser("run", help="run steps headless")
    p.add_argument("task", type=task_path)
    p.add_argument("--model", type=model_name)
    p.add_argument("--api-base")
    add_model_bounds(p)
    p.add_argument("--max-steps", type=int)
    p.add_argument("--until", choices=["escalation", "complete"], default="complete")
    p.add_argument(
        "--on-interrupt",
        choices=["rerun", "skip", "ask"],
        default="ask",
        help="a step a crash or Ctrl+C interrupted: re-run it, skip it, or stop and ask",
    )
    p.add_argument("--json", action="store_true")
    p.add_argument(
        "--stream", action="store_true", help="print each answer to stderr as it arrives"
    )


def handle(args: argparse.Namespace) -> int:
    from forgetui.tui.config import load_settings  # no Textual in there
    from forgetui.tui.settings import model_overrides

    # the model as the workbench would choose it: the flag, FORGETUI_MODEL, the user config
    settings = load_settings(
        {"model": args.model, "api_base": args.api_base, "model_flags": model_bounds(args) or None}
    )
    for notice in settings.notices:
        sys.stderr.write(f"forgetui: {notice}\n")
    spec = api.open_task(args.task).spec
    own = spec.model_options.model_fields_set
    bounds = model_overrides(settings, own)
    out = run_output(as_json=args.json, stream=args.stream)
    # the server probed (or its findings read) before the run, so its line comes first
    options = spec.model_options.with_overrides(**bounds)
    found = api.server_findings(
        settings.model or spec.model or "replay", settings.api_base, timeout_s=options.timeout_s
    )
    if found is not None:
        print_server_line(found.line(options))
    try:
        outcome = api.run(
            Path(args.task),
            model=settings.model,
            api_base=settings.api_base,
            bounds=bounds or None,
            max_steps=args.max_steps,
            until=args.until,
            on_interrupt=args.on_interrupt,
            on_step=out.step,
            on_event=out.event,
            on_notice=lambda notice: sys.stderr.write(f"forgetui: {notice}\n"),
        )
    finally:
        out.close()  # a Ctrl+C's "interrupted" line comes after the status line is gone
    out.final(outcome.final)
    return outcome.exit_code
