"""The `forgetui` command's entry: the workbench's early child first (early_start.py), then
the command line."""

from __future__ import annotations

import sys


def main() -> int:
    from forgetui.tui.early_start import start_early

    start_early(sys.argv[1:])
    from forgetui.cli import main as cli_main

    return cli_main()
