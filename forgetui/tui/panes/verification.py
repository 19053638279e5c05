"""The verification pane: each check passing or failing, the step it last changed, ready flag."""

from __future__ import annotations

import re

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from forgetui.tui.markup import fmt, lines
from forgetui.tui.snapshot import TaskSnapshot

# A test runner's timing ("1 passed in 1.55s") changes on every run and says nothing about
# the task; the pane shows the counts only.
_TIMING = re.compile(r"\s+in \d+(?:\.\d+)?s\b")
STATE_TEXT = {True: "[b $success]pass[/]", False: "[b $error]fail[/]", None: "[$text-muted] —  [/]"}


def verification_content(snapshot: TaskSnapshot) -> Content:
    out: list[Content | str] = []
    if not snapshot.checks:
        out.append(fmt("[$text-muted](this task defines no checks)[/]"))
    width = max((len(check.name) for check in snapshot.checks), default=0)
    for check in snapshot.checks:
        since = f"since step {check.changed_at_step}" if check.changed_at_step else ""
        out.append(
            fmt(f"{STATE_TEXT[check.passing]} $name  [$text-muted]$since[/]",
                name=check.name.ljust(width), since=since)
        )  # fmt: skip
        details = _TIMING.sub("", check.details.splitlines()[0]) if check.details else ""
        if details:
            out.append(fmt("     [$text-muted]$details[/]", details=details))
    ready = "[b $success]yes[/]" if snapshot.ready else "[b $warning]not yet[/]"
    out += ["", fmt(f"ready for completion: {ready}")]
    return lines(out)


class VerificationPane(VerticalScroll):
    def compose(self) -> ComposeResult:
        yield Static(id="verification-body")

    def on_mount(self) -> None:
        self.border_title = "verification"

    _shown: Content | None = None

    def show_snapshot(self, snapshot: TaskSnapshot) -> None:
        content = verification_content(snapshot)
        if content != self._shown:
            self._shown = content
            self.query_one("#verification-body", Static).update(content)
        self.set_class(snapshot.ready, "-ready")
