"""Human-readable CLI output (rich). JSON output lives in cli.py; this is only for eyes."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table

if TYPE_CHECKING:
    from forgetui.engine.context import CompiledContext

console = Console(highlight=False)


def print_context(ctx: CompiledContext) -> None:
    table = Table(title=f"context for step {ctx.step} ({ctx.format})", title_justify="left")
    table.add_column("section")
    table.add_column("tokens", justify="right")
    table.add_column("budget", justify="right")
    for section in ctx.sections:
        style = "red" if section.tokens > section.budget else ""
        table.add_row(section.name, str(section.tokens), str(section.budget), style=style)
    table.add_row("total", str(ctx.total_tokens), str(ctx.max_tokens), style="bold")
    for message in ctx.messages:
        console.rule(message["role"])
        console.print(message["content"], markup=False)
    console.print(table)
    for reason in ctx.over_budget:
        console.print(f"[red]over budget:[/] {reason}")


def print_status(info: dict[str, Any]) -> None:
    console.print(
        f"[bold]{info['task_id']}[/]  status {info['status']}  phase {info['phase']}  "
        f"step {info['step']}"
    )
    verification = info["verification"]
    for name, check in verification["checks"].items():
        mark = "[green]pass[/]" if check["passing"] else "[red]fail[/]"
        console.print(f"  {mark} {name}: {check['details']}", markup=True)
    console.print(f"  ready for completion: {verification['ready_for_completion']}")
    escalation = info.get("pending_escalation")
    if escalation:
        console.print(f"[yellow]escalated ({escalation['reason']}):[/] {escalation['question']}")
        for option in escalation.get("options", []):
            console.print(f"  - {option}")


def print_log(entries: Iterable[dict[str, Any]]) -> None:
    table = Table()
    for column in ("step", "action", "result", "summary", "tokens", "cost"):
        table.add_column(column)
    for entry in entries:
        if "operator" in entry:
            detail = entry.get("key") or entry.get("text") or ""
            table.add_row(
                str(entry["step"]), f"operator:{entry['operator']}", "", str(detail), "", ""
            )
            continue
        table.add_row(
            str(entry["step"]),
            entry.get("action") or "",
            entry.get("result") or "",
            entry.get("summary") or "",
            str(entry.get("context_tokens") or ""),
            f"{entry.get('cost') or 0:.4f}",
        )
    console.print(table)


def print_memory(rows: list[dict[str, Any]]) -> None:
    table = Table()
    for column in ("ref", "type", "step", "tokens", "expires in", "pinned"):
        table.add_column(column)
    for row in rows:
        expires = "" if row["expires_in"] is None else f"{row['expires_in']} steps"
        table.add_row(
            row["ref"],
            row["type"],
            str(row["step"] if row["step"] is not None else ""),
            str(row["tokens"]),
            expires,
            "yes" if row["pinned"] else "",
        )
    console.print(table)
