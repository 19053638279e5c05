"""The command line: a stable contract whose JSON shapes are public.

Each command is a module of forgetui/cli/commands/. Headless commands never import textual;
litellm is imported only when a real model is called."""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import sys
from collections.abc import Iterator, Sequence

from forgetui.cli.args import ArgParser
from forgetui.cli.commands import COMMANDS, open_workbench
from forgetui.engine.api import EXIT_OK, ForgeError

HANDLERS = {command.NAME: command.handle for command in COMMANDS}


def build_parser() -> argparse.ArgumentParser:
    with _translations_once():
        parser = ArgParser(
            prog="forgetui", description="Supervise an LLM agent one step at a time."
        )
        parser.add_argument("--theme", help="theme name for the TUI (remembered)")
        sub = parser.add_subparsers(dest="command", parser_class=ArgParser)
        for command in COMMANDS:
            command.add_parser(sub)
    return parser


@contextlib.contextmanager
def _translations_once() -> Iterator[None]:
    """argparse translates each subcommand's few fixed strings, and gettext looks for a
    catalogue on disk at every one of them: half the time building the parser takes, at every
    command. Each string is translated once while the parser is built."""
    names = vars(argparse)  # its module-level `_` (gettext), which its methods call
    real = names["_"]
    names["_"] = functools.cache(real)
    try:
        yield
    finally:
        names["_"] = real


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        code = _dispatch(args)
        sys.stdout.flush()  # here, not at exit: a closed pipe (`| head`) ends quietly below
        return code
    except ForgeError as exc:
        sys.stderr.write(f"forgetui: {exc.message}\n")
        return exc.exit_code
    except KeyboardInterrupt:
        sys.stderr.write("forgetui: interrupted\n")
        return 130
    except BrokenPipeError:
        # The reader (`| head`) has all it wanted: stop quietly, as a Unix filter does.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK


def _dispatch(args: argparse.Namespace) -> int:
    """No command is `open` without a PATH: the workbench on a fresh copy of the sample."""
    if args.command is None:
        return open_workbench.handle(args)
    return HANDLERS[args.command](args)
