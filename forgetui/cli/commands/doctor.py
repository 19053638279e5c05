"""`forgetui doctor [--model M]`: a model and its server probed; whether it is usable, with which
options. First, what is wrong with the current directory's Python environment, if anything:
doctor is where a developer looks when the checks fail for no reason they can see. Without a
model, the environment alone: which Python commands here run with, and whether it is sound."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from forgetui.cli.args import (
    model_name,
    positive,
)
from forgetui.cli.render import print_json
from forgetui.engine import api
from forgetui.engine.api import ForgeError

if TYPE_CHECKING:
    from forgetui.cli.args import Subcommands
    from forgetui.engine.api import DoctorReport, ProbeResult

NAME = "doctor"
_DOCTOR_LABEL_WIDTH = 16


def add_parser(sub: Subcommands) -> None:
    p = sub.add_parser(
        "doctor",
        help="the Python commands here run with; with --model, probe a model and its server and "
        "say whether it is usable, with which options",
    )
    p.add_argument(
        "--model",
        type=model_name,
        help="litellm model string, e.g. openai/NAME (without one: the environment alone)",
    )
    p.add_argument("--api-base", help="an OpenAI-compatible server, e.g. http://127.0.0.1:8080/v1")
    p.add_argument(
        "--timeout",
        type=positive(float),
        metavar="SECONDS",
        help="per-request timeout (default 60); a probe is never retried",
    )
    p.add_argument("--json", action="store_true")


def handle(args: argparse.Namespace) -> int:
    if args.model is None:
        for flag, value in (("--api-base", args.api_base), ("--timeout", args.timeout)):
            if value is not None:
                raise ForgeError(f"{flag} probes a model: give --model")
        return _environment_alone(api.environment_warnings(Path.cwd()), args.json)
    environment = api.environment_warnings(Path.cwd())
    if not args.json:
        for index, line in enumerate(environment):
            _doctor_line("environment" if index == 0 else "", line)
    report = api.doctor(
        args.model,
        api_base=args.api_base,
        timeout_s=args.timeout,
        on_probe=None if args.json else print_doctor_probe,
    )
    kept = api.remember(report)  # what later runs against this server apply
    if args.json:
        print_json({**report.to_json(), "kept": kept or None, "environment": environment})
    else:
        print_doctor_report(report)
        if kept:
            _doctor_line("runs", kept)
    return report.exit_code


def _environment_alone(warnings: list[str], as_json: bool) -> int:
    """No model named: which Python commands here run with and what is wrong with it, if
    anything (exit 1 then: checks that import the project would fail)."""
    python = api.workspace_environment(Path.cwd())
    if as_json:
        print_json({"environment": warnings, "python": python.to_json(), "model": None})
    else:
        _doctor_line("python", f"{python.python} ({python.label})")
        for index, line in enumerate(warnings or ["no problem found"]):
            _doctor_line("environment" if index == 0 else "", line)
        _doctor_line("model", "none probed: --model M probes one (e.g. openai/NAME)")
    return 1 if warnings else 0


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
