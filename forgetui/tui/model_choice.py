"""The model the next steps run with, as the operator chooses it on the workbench: the dialog,
the change through the session, and what waits for it.

The change reaches the engine in a worker (its child may still be starting, a litellm model is
built to be checked), so a step asked for before it lands would still see the old model. A step
or run asked for while a choice is on its way waits for it and goes on with the new model; a
refused name drops what waited (the error says why)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, Protocol

from textual.screen import Screen

from forgetui.tui.messages import ModelChosen
from forgetui.tui.session import Session
from forgetui.tui.snapshot import TaskReader, TaskSnapshot
from forgetui.tui.workers import in_thread


class _Host(Protocol):
    @property
    def snapshot(self) -> TaskSnapshot | None: ...


def explanation(current: str, problem: str | None) -> str:
    """What the dialog says: why it is asked (no model can run), what it may be, in the
    workbench's terms."""
    why = (
        f"No model can run this task yet: {problem}. `human`, filled in below, lets you type "
        "each action yourself (enter takes it); or type another model. `model:` in task.yaml "
        "or in your config.yaml chooses one for good.\n\n"
        if problem
        else ""
    )
    return why + (
        f"Now: {current}. From the next step on: replay (the task's replay.yaml), "
        "replay:PATH (a script of actions), human (you type each action), or a litellm model "
        "name such as openai/gpt-4o-mini or ollama/llama3 (with the --api-base you started "
        "with). API keys come from your environment."
    )


class ModelChoice:
    """`choose` asks; `apply` sends a choice to the session; `first` holds a step back until a
    model can run it. `screen` is where the workers run and the dialog opens."""

    HUMAN = "human"  # the model that always runs: the operator types each action

    def __init__(
        self, screen: Screen[Any], host: _Host, reader: TaskReader, session: Session
    ) -> None:
        self._screen = screen
        self._host = host
        self._reader = reader
        self._session = session
        self.pending: str | None = None  # a choice on its way to the session
        self._waiting: list[Callable[[], None]] = []

    def first(self, then: Callable[[], None]) -> bool:
        """A step or run asked for: True if it waits (for a choice on its way, or for the
        operator to choose, the task having no model that can run); `then` goes on after."""
        if self.pending is not None:
            self._waiting.append(then)
            return True
        snap = self._host.snapshot
        if snap is None or snap.model_problem is None:
            return False
        self.choose(snap.model_problem, then)
        return True

    def choose(self, problem: str | None = None, then: Callable[[], None] | None = None) -> None:
        """Ask which model runs the next steps; `problem` says why none can now."""
        from forgetui.tui.modals.model_prompt import ModelPromptScreen

        snap = self._host.snapshot
        current = snap.model if snap is not None else ""
        text = explanation(current, problem)
        value = self.HUMAN if problem else ""  # the one that always runs, ready to take

        def typed(spec: str | None) -> None:
            if spec is not None and spec.strip():
                self.apply(spec.strip(), then)

        self._screen.app.push_screen(ModelPromptScreen(text, current, value), typed)

    def apply(
        self, spec: str, then: Callable[[], None] | None = None,
        before: Callable[[], str] | None = None,
    ) -> None:  # fmt: skip
        """On the UI thread: `spec` from the next step on (after `before`, another change made
        in the same worker, e.g. an answer); steps asked for meanwhile wait for it."""
        self.pending = spec
        if then is not None:
            self._waiting.append(then)
        in_thread(self._screen, partial(self._send, spec, before), "operator")

    def _send(self, spec: str, before: Callable[[], str] | None) -> None:
        """In a thread worker. A name that cannot run fails in the session: what waited is
        dropped and the worker's failure is reported as any operator change's."""
        try:
            said_first = before() if before is not None else ""
            said = self._session.set_model(spec)
        except BaseException:
            self._screen.app.call_from_thread(self._refused)
            raise
        self._reader.model = spec
        text = f"{said_first}\n{said}" if said_first else said
        self._screen.post_message(ModelChosen(text, spec, self._landed))

    def _refused(self) -> None:
        self.pending = None
        self._waiting.clear()

    def _landed(self) -> None:
        """The choice is the session's (and the snapshot's): what waited goes on, in order."""
        self.pending = None
        waiting, self._waiting = self._waiting, []
        for then in waiting:
            then()
