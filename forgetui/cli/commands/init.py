"""`forgetui init SAMPLE`: a sample task instantiated; prints the task folder."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from forgetui.cli.args import named_dir
from forgetui.engine import api
from forgetui.engine.api import EXIT_OK

if TYPE_CHECKING:
    from forgetui.cli.args import Subcommands

NAME = "init"


def add_parser(sub: Subcommands) -> None:
    p = sub.add_parser("init", help="instantiate a sample task; prints the task folder")
    p.add_argument("sample")
    p.add_argument("--into", type=lambda text: Path(named_dir(text)))


def handle(args: argparse.Namespace) -> int:
    folder = api.init_sample(args.sample, into=args.into)
    print(folder.path)
    return EXIT_OK
