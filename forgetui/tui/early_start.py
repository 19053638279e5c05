"""The workbench's early child, forked as the `forgetui` command starts (entry.py), before the
command line is parsed (importing the commands takes a tenth of a second): for a plain
`forgetui` or `forgetui open [PATH]` on a terminal, the child forked from this interpreter as
it starts reads and counts the task (first_view.py) on the other core while this process loads
the command line and Textual; it starts that much sooner, with no interpreter of its own to
start. Any other command line forks nothing; the launcher checks the parsed arguments are what
the child was started for (`take`), and stops it otherwise (a sample to copy first, a flag it
was not given)."""

from __future__ import annotations

import os
from collections.abc import Sequence


class EarlyChild:
    """The forked child: its pid, the read end of its answer's pipe, the PATH it opens."""

    def __init__(self, pid: int, fd: int, path: str | None) -> None:
        self.pid, self.fd, self.path = pid, fd, path


early: EarlyChild | None = None  # the launcher takes it (launch._forked_early)


def take() -> EarlyChild | None:
    """The forked child, once: whoever takes it waits for it or stops it."""
    global early
    child, early = early, None
    return child


def plain_open(argv: Sequence[str]) -> tuple[bool, str | None]:
    """(True, PATH or None) for `forgetui`, `forgetui open` and `forgetui open PATH`; else
    (False, None): anything with a flag is the parser's to read."""
    if not argv or list(argv) == ["open"]:
        return True, None
    if len(argv) == 2 and argv[0] == "open" and argv[1].strip() and argv[1][0] != "-":
        return True, argv[1]
    return False, None


def start_early(argv: Sequence[str]) -> None:
    """Fork the early child for a plain open on a terminal (where fork is)."""
    global early
    plain, path = plain_open(argv)
    if not plain or early is not None or not hasattr(os, "fork"):
        return
    if not all(os.isatty(fd) for fd in (0, 1, 2)):
        return  # the launcher refuses without a terminal: nothing to count
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 1
        try:
            os.close(read)
            os.setsid()  # the terminal's signals (Ctrl+C) are the workbench's
            quiet = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(quiet, fd)
            from forgetui.tui.first_view import count_early

            code = count_early(path, write)  # no flag typed
        finally:
            import atexit

            atexit._run_exitfuncs()  # what it counted is kept for the next start (token_store)
            os._exit(code)  # never back into the command the parent is running
    os.close(write)
    early = EarlyChild(pid, read, path)
