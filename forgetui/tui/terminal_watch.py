"""The terminal going away without a hangup signal: an SSH connection that died without one,
a program that ran the app on a pseudo-terminal and closed it.

Textual is not told. Its input thread reads the closed terminal's end-of-file in a loop (a core
busy), its output thread dies at the first failed write, and the UI thread then blocks for good
once a few frames are queued behind it: an app nobody can reach, holding the task locked. So a
thread of our own waits for the hang-up (poll, no CPU while it waits) and leaves at once:
the task's writers let go of its lock (a step in flight is recorded first), then the process
ends as a hangup signal would end it. Nothing is lost that a crash would not keep: every step
is on disk as it happens."""

from __future__ import annotations

import os
import select
import threading
from collections.abc import Callable

EXIT_HANGUP = 129  # what a shell reports for a program a hangup signal ended (128 + SIGHUP)
_GONE = select.POLLHUP | select.POLLERR | select.POLLNVAL


def watch(terminal: int, leave: Callable[[], None]) -> None:
    """Once `terminal` (a file descriptor) hangs up: `leave()`, then end the process."""

    def wait() -> None:
        poller = select.poll()
        poller.register(terminal, 0)  # no input: only a hang-up or an error wakes it
        while not any(event & _GONE for _fd, event in poller.poll()):
            pass
        try:
            leave()
        finally:
            os._exit(EXIT_HANGUP)

    threading.Thread(target=wait, name="terminal-watch", daemon=True).start()
