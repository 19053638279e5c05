"""The terminal going away: the app lets go of its tasks and ends.

Without a hangup signal (an SSH connection that died without one, a program that ran the app on
a pseudo-terminal and closed it) Textual is not told. Its input thread reads the closed
terminal's end-of-file in a loop (a core busy), its output thread dies at the first failed
write, and the UI thread then blocks for good once a few frames are queued behind it: an app
nobody can reach, holding the task locked. So a thread of our own waits for the hang-up (poll,
no CPU while it waits). With the signal, its default would end the process mid-step (the
engine in this process: the step cut short, the lock file left for the next writer to take
over). Either way the app now leaves the same way: the answer streaming in is stopped, the
task's writers let go of its lock (a step in flight is recorded first), and the process ends
with the hangup's exit status. Nothing is lost that a crash would not keep: every step is on
disk as it happens."""

from __future__ import annotations

import os
import select
import signal
import sys
import threading
import time
from collections.abc import Callable

EXIT_HANGUP = 128 + signal.SIGHUP  # what a shell reports for a program a hangup ended
PROBE_S = 1.0  # where poll cannot watch a terminal: how often it is asked whether it is there


def watch(terminal: int, leave: Callable[[], None]) -> None:
    """Once `terminal` (a file descriptor) hangs up or SIGHUP arrives: `leave()` in a thread
    (the UI thread may be blocked for good), then end the process. From the main thread: it
    sets the signal's handler."""
    once = threading.Lock()

    def end() -> None:
        if not once.acquire(blocking=False):
            return  # the other way in is leaving already
        try:
            leave()
        finally:
            os._exit(EXIT_HANGUP)

    def wait() -> None:
        (hung_up_poll if sys.platform.startswith("linux") else hung_up_probe)(terminal)
        end()

    signal.signal(signal.SIGHUP, lambda _signum, _frame: _start(end, "hangup"))
    _start(wait, "terminal-watch")


def hung_up_poll(terminal: int) -> None:
    """Return once `terminal` hangs up, waking for nothing else (Linux's poll reports a
    terminal's hang-up; macOS's poll does not take terminals at all)."""
    poller = select.poll()
    poller.register(terminal, 0)  # no input: only a hang-up or an error wakes it
    gone = select.POLLHUP | select.POLLERR | select.POLLNVAL
    while not any(event & gone for _fd, event in poller.poll()):
        pass


def hung_up_probe(terminal: int) -> None:
    """Return once `terminal` hangs up, asking it every PROBE_S (elsewhere: a hung-up
    terminal refuses its settings)."""
    import termios

    while True:
        time.sleep(PROBE_S)
        try:
            termios.tcgetattr(terminal)
        except (termios.error, OSError):
            return


def _start(target: Callable[[], None], name: str) -> None:
    threading.Thread(target=target, name=name, daemon=True).start()
