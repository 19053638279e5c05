"""`forgetui status TASK`: phase, status, step, verification. It stays fast: no model layer, no
tokenizer, no rich for --json."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from forgetui.cli.args import task_path
from forgetui.cli.render import console, print_json
from forgetui.engine import api
from forgetui.engine.api import EXIT_OK

if TYPE_CHECKING:
    from forgetui.cli.args import Subcommands

NAME = "status"


def add_parser(sub: Subcommands) -> None:
    p = sub.add_parser("status", help="phase, status, step, verification")
    p.add_argument("task", type=task_path)
    p.add_argument("--json", action="store_true")


def handle(args: argparse.Namespace) -> int:
    info = api.TaskService(args.task).status()
    if args.json:
        print_json(info)
        return EXIT_OK
    print_status(info)
    return EXIT_OK


def print_status(info: dict[str, Any]) -> None:
    from rich.markup import escape  # the text output only: --json stays without rich

    holder = info.get("in_use_by")
    held = f" (pid {holder['pid']}, {escape(holder['command'] or 'forgetui')})" if holder else ""
    console().print(
        f"[bold]{info['task_id']}[/]  status {info['status']}{held}  phase {info['phase']}  "
        f"step {info['step']}"
    )
    verification = info["verification"]
    for name, check in verification["checks"].items():
        # one line per check, cut to the terminal: its details are the workspace's text (a
        # pattern, a path), never markup, and a long one must not wrap under the next check
        mark = "[green]pass[/]" if check["passing"] else "[red]fail[/]"
        line = f"  {mark} {escape(name)}: {escape(' '.join(str(check['details']).split()))}"
        console().print(line, no_wrap=True, overflow="ellipsis", crop=True)
    console().print(f"  ready for completion: {verification['ready_for_completion']}")
    health = info.get("health")
    if health:  # the last context sent, against the cap it was held under
        console().print(
            f"  context: {health['total']:,} of {health['cap']:,} tokens "
            f"({int(health['percent'])}% {health['level']}, step {health['step']} as sent)"
        )
    environment = info.get("environment")
    if environment:
        console().print(f"  python: {environment['python']} ({environment['label']})", markup=False)
    prompt = info.get("prompt_tokens") or {}
    if prompt.get("forgetui"):
        provider = prompt.get("provider")
        server = f", the provider {provider:,}" if provider else " (the provider reported none)"
        console().print(f"  last prompt: {prompt['forgetui']:,} tokens by forgetui's count{server}")
    escalation = info.get("pending_escalation")
    if escalation:
        console().print(f"[yellow]escalated ({escalation['reason']}):[/] {escalation['question']}")
        for option in escalation.get("options", []):
            console().print(f"  - {option}")
