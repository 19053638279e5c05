"""What the CLI prints: tables and lines for eyes (rich), and `run`'s live output, as JSON lines
or a line per step with a live status line on a terminal."""

from __future__ import annotations

import json
import re
import shlex
import sys
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from forgetui.engine.api import (
        CompiledContext,
        InboxEntry,
        MemoryRow,
        Pruned,
        RunCopy,
        StepEvent,
        StepReport,
    )

_CONSOLE: list[Console] = []


def console() -> Console:
    """One console for the process, made on first use: JSON output never imports rich."""
    if not _CONSOLE:
        from rich.console import Console

        class _Console(Console):
            def on_broken_pipe(self) -> None:
                """rich would exit 1 here: a closed pipe is cli.main's to end, as for print."""
                self.quiet = True
                raise BrokenPipeError

        _CONSOLE.append(_Console(highlight=False))
    return _CONSOLE[0]


def table(**options: Any) -> Table:
    from rich.table import Table

    return Table(**options)


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


def print_status(info: dict[str, Any]) -> None:
    console().print(
        f"[bold]{info['task_id']}[/]  status {info['status']}  phase {info['phase']}  "
        f"step {info['step']}"
    )
    verification = info["verification"]
    for name, check in verification["checks"].items():
        mark = "[green]pass[/]" if check["passing"] else "[red]fail[/]"
        console().print(f"  {mark} {name}: {check['details']}", markup=True)
    console().print(f"  ready for completion: {verification['ready_for_completion']}")
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


def print_memory(rows: list[MemoryRow]) -> None:
    grid = table()
    for column in ("ref", "type", "step", "tokens", "expires in", "pinned"):
        grid.add_column(column)
    for row in rows:
        expires = "" if row.expires_in is None else f"{row.expires_in} steps"
        grid.add_row(
            row.ref,
            row.type,
            str(row.step if row.step is not None else ""),
            str(row.tokens),
            expires,
            "yes" if row.pinned else "",
        )
    console().print(grid)


def print_inbox(entries: list[InboxEntry], task: str) -> None:
    """The questions asked, oldest first, the open one last with how to answer it."""
    from rich.markup import escape

    if not entries:
        console().print("no question was asked in this task yet")
        return
    grid = table()
    for column in ("step", "reason", "question", "answer", "pinned"):
        grid.add_column(column)
    for entry in entries:
        answer = "[yellow]waiting[/]" if entry.pending else escape(entry.answer or "")
        if entry.undone_by_rewind is not None:
            answer += f" [dim](undone: rewound to step {entry.undone_by_rewind})[/]"
        grid.add_row(
            entry.id,
            escape(entry.reason),
            escape(entry.question),
            answer,
            "yes" if entry.promoted else "",
        )
    console().print(grid)
    where = escape(shlex.quote(task))
    if entries[-1].pending:
        console().print(f"step {entries[-1].id} waits: forgetui answer {where} TEXT")
    console().print(f"forgetui inbox {where} --promote STEP pins an answer in working memory")


def human_size(size: int) -> str:
    """Bytes as people read them: 512 B, 48.2 KiB, 1.3 MiB."""
    value = float(size)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024:
            return f"{size} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} TiB"


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


_SURROGATE = re.compile("[\ud800-\udfff]")


def print_json(obj: Any) -> None:
    text = json.dumps(obj, ensure_ascii=False)
    if _SURROGATE.search(text):  # a lone surrogate from a model's JSON: no encoding writes it
        text = json.dumps(obj)
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


class RunOutput(Protocol):
    def event(self, event: StepEvent) -> None: ...
    def step(self, report: StepReport) -> None: ...
    def final(self, final: dict[str, Any]) -> None: ...


def run_output(as_json: bool, stream: bool = False) -> RunOutput:
    """JSON lines or console lines on stdout; with `stream`, the answers on stderr too."""
    out: RunOutput = JsonRunOutput() if as_json else ConsoleRunOutput()
    return AnswerEcho(out) if stream else out


class AnswerEcho:
    """`run --stream`: each answer's text on stderr as it arrives (what each 'answer' event
    adds to the last), a newline after each step's answer. stdout stays the wrapped output's,
    which gets no live events: a status line redrawn there would tear the text on a terminal."""

    def __init__(self, out: RunOutput) -> None:
        self.out = out
        self._step: int | None = None
        self._shown = ""

    def event(self, event: StepEvent) -> None:
        if event.stage != "answer":
            return
        if event.step != self._step:
            self._end_answer()
            self._step = event.step
        if event.detail.startswith(self._shown):
            added = event.detail[len(self._shown) :]
        else:  # a retried call: its answer starts over
            added = "\n" + event.detail
        self._shown = event.detail
        sys.stderr.write(added)
        sys.stderr.flush()

    def _end_answer(self) -> None:
        if self._shown:
            sys.stderr.write("\n")
            sys.stderr.flush()
        self._step, self._shown = None, ""

    def step(self, report: StepReport) -> None:
        self._end_answer()
        self.out.step(report)

    def final(self, final: dict[str, Any]) -> None:
        self._end_answer()
        self.out.final(final)


class JsonRunOutput:
    """`run --json`: a line per finished step, then the final line."""

    def event(self, event: StepEvent) -> None:
        """JSON lines carry finished steps only."""

    def step(self, report: StepReport) -> None:
        print_json(report.to_json())

    def final(self, final: dict[str, Any]) -> None:
        print_json(final)


class ConsoleRunOutput:
    """A line per step; on a terminal a live status line shows the stage in flight."""

    def __init__(self) -> None:
        self.console = console()
        self._status: Any = None

    def event(self, event: StepEvent) -> None:
        if not self.console.is_terminal:
            return
        if event.stage == "answer":  # the text streams in --stream; here, how fast it comes
            rate = event.tokens / event.elapsed_s if event.elapsed_s > 0 else 0.0
            text = (
                f"step {event.step}: answer {event.tokens:,} tok, {rate:.0f} tok/s,"
                f" {event.elapsed_s:.1f} s"
            )
        else:
            text = f"step {event.step}: {event.stage} {event.detail}".rstrip()
        if self._status is None:
            self._status = self.console.status(text)
            self._status.start()
        else:
            self._status.update(text)

    def _stop_status(self) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None

    def step(self, report: StepReport) -> None:
        self._stop_status()
        colour = {"success": "green", "escalated": "yellow", "blocked": "magenta"}.get(
            report.result, "red"
        )
        checks = report.verification["checks"]
        passing = sum(1 for c in checks.values() if c["passing"])
        verdict = f"checks {passing}/{len(checks)}" if checks else "checks not run"
        self.console.print(
            f"[bold]{report.step:>4}[/] {report.action or '-':<22} "
            f"[{colour}]{report.result:<9}[/] {report.summary}  "
            f"[dim]{report.context_tokens} tok, {verdict}[/]",
            markup=True,
            soft_wrap=True,
        )

    def final(self, final: dict[str, Any]) -> None:
        self._stop_status()
        self.console.print(
            f"[bold]{final['status']}[/] after {final['steps']} steps "
            f"(step {final['step']}, phase {final['phase']}, ${final['cost']:.4f})"
        )
        escalation = final.get("pending_escalation")
        if escalation:
            self.console.print(
                f"[yellow]escalated ({escalation['reason']}):[/] {escalation['question']}",
                markup=True,
            )
            for option in escalation.get("options", []):
                self.console.print(f"  - {option}", markup=False)
            task = shlex.quote(str(final["task"]))
            self.console.print(  # one line, whatever the width: it is there to be copied
                f"answer with: forgetui answer {task} TEXT", markup=False, soft_wrap=True
            )


if TYPE_CHECKING:
    from forgetui.engine.api import DoctorReport, ProbeResult

_DOCTOR_LABEL_WIDTH = 16


def print_doctor_probe(probe: ProbeResult) -> None:
    """`doctor`: one aligned line per probe, printed as it finishes (a probe can take a while)."""
    _doctor_line(probe.label, probe.detail)


def print_doctor_report(report: DoctorReport) -> None:
    """`doctor`'s verdict, then the options as `run` flags and as task.yaml (to be copied)."""
    _doctor_line("verdict", report.verdict_line)
    for index, (option, value) in enumerate(report.options.items()):
        shown = f"{value:g}" if isinstance(value, float) else str(value)
        label = "options" if index == 0 else ""
        _doctor_line(label, f"{option}: {shown} ({report.reasons[option]})")
    if report.options:
        _doctor_line("run with", report.run_command())
        if "context_window" in report.options:
            _doctor_line("", "(context_window has no flag: put it in task.yaml)")
        for index, line in enumerate(report.task_yaml().splitlines()):
            _doctor_line("or task.yaml" if index == 0 else "", line)


def _doctor_line(label: str, text: str) -> None:
    sys.stdout.write(f"{label:<{_DOCTOR_LABEL_WIDTH}}{text}".rstrip() + "\n")
    sys.stdout.flush()


if TYPE_CHECKING:
    from forgetui.engine.api import Adoption, Rerun


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


def print_export_notes(export: ReplayExport, to: str | None) -> None:
    """`export-replay`'s report, on stderr: the script alone goes to stdout."""
    where = f" to {to}" if to else ""
    lines = [
        f"exported {export.responses} answers of task {export.task_id}{where}"
        f" (steps {export.step_ranges})"
    ]
    lines += [f"left out, {why}: {len(steps)} steps" for why, steps in export.left_out.items()]
    again = [answer for answer in export.answers if answer.replayed]
    if again:
        after = ", ".join(str(answer.after_step) for answer in again)
        lines.append(
            f"{len(again)} operator answers (after steps {after}) are comments in the script:"
            " when the replay stops there, give them again with `forgetui answer`"
        )
    for line in lines:
        sys.stderr.write(f"forgetui: {line}\n")


if TYPE_CHECKING:
    from forgetui.engine.api import ReplayExport


if TYPE_CHECKING:
    from forgetui.engine.api import RewindReport


def print_rewind(report: RewindReport) -> None:
    """`rewind`: what went back, each file written back or removed, what no snapshot covers,
    and how to go on."""
    lines = [report.describe()]
    lines += [f"  restored  {rel}" for rel in report.restored]
    lines += [f"  removed   {rel}" for rel in report.removed]
    lines += [f"  forced    {rel} (changed by hand: overwritten)" for rel in report.conflicts]
    if report.untracked_note:
        lines.append(f"note: {report.untracked_note}")
    lines.append(f"next: forgetui run {shlex.quote(str(report.folder))}")
    for line in lines:
        sys.stdout.write(line + "\n")
