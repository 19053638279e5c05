"""Every message the app shows, kept: a toast lasts seconds, but what it said (a fork's new
workspace, a command to copy, an error read too late) must outlive it.

All of the app's messages pass through `NoticedApp.notify` (a widget's or a screen's `notify`
calls the app's), so one place records them, keeps on screen the ones naming a command the
operator has to copy, and keeps toasts on the top screen: a toast left on a screen a modal
covers would be painted under the modal, where its expiry may not repaint. Over a dialog the
toasts take rows above it (app.tcss), so none covers the dialog's controls."""

from __future__ import annotations

import time
from typing import Any

from textual import events, on
from textual.app import App
from textual.notifications import SeverityLevel
from textual.screen import Screen

# Textual's own toast widgets: the rack a screen shows them in is not public API.
from textual.widgets._toast import ToastRack

from forgetui.tui.notice_log import Notice, NoticeLog, must_stay

KEPT_S = 10.0**9  # a kept toast's timeout: until the operator closes it
KEPT_HINT = "click closes it"


def _where(app: App[Any]) -> tuple[int | None, str]:
    """The step and task of the workbench nearest the top of the stack, if one is open."""
    for screen in reversed(app.screen_stack):
        snapshot = getattr(screen, "snapshot", None)
        if snapshot is None:
            continue
        in_flight = getattr(screen, "step_in_flight", None)
        step = in_flight if isinstance(in_flight, int) else getattr(snapshot, "step", None)
        return step, str(getattr(snapshot, "task_id", ""))
    return None, ""


class NoticedApp(App[int]):
    """The app's messages, recorded and kept where they can be read."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.notices = NoticeLog()

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Record the message, then show it; one with a command to copy stays until closed."""
        kept = timeout == KEPT_S or must_stay(message)
        step, task = _where(self)
        self.notices.add(Notice(message, title, severity, time.time(), step, task, kept))
        if kept:
            timeout = KEPT_S
            title = title or KEPT_HINT  # a title is kept as it is: callers find toasts by it
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def close_kept_notices(self) -> None:
        """Take the kept toasts off the screen (the history still lists them)."""
        for shown in list(self._notifications):
            if shown.timeout == KEPT_S:
                self._unnotify(shown, refresh=False)
        self._refresh_notifications()

    @on(events.Mount)
    def _follow_screens(self) -> None:
        self.screen_change_signal.subscribe(self, self._toasts_on_top)

    def _toasts_on_top(self, top: Screen[Any]) -> None:
        """The toasts move to the top screen: a covered screen drops its own (Textual shows
        them again when it is back on top), and the top one shows them once it has composed."""
        for screen in self.screen_stack[:-1]:
            for rack in screen.query(ToastRack):
                rack.remove_children()
                rack.display = False
        top.call_after_refresh(self._refresh_notifications)

    def action_messages(self) -> None:
        """The message history; the same key closes it. Opening it closes the kept toasts:
        what they said is listed there, to copy."""
        from forgetui.tui.modals.message_history import MessageHistoryScreen

        if isinstance(self.screen, MessageHistoryScreen):
            self.screen.dismiss(None)
            return
        self.close_kept_notices()
        self.push_screen(MessageHistoryScreen(self.notices.newest_first()))
