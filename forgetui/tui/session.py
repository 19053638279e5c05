"""The workbench's writer side: the task's Executor and the operator's changes, used only from
worker threads. It opens the executor (taking the task lock) on the first step, not at launch,
so a workbench that only watches never keeps a headless run from starting."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from forgetui.engine.store import TaskFolder

if TYPE_CHECKING:
    from forgetui.engine.executor import Executor, StepEvent, StepReport
    from forgetui.engine.llm import Model

HUMAN = "human"


def _closed_input(prompt: str) -> str:
    raise EOFError("the workbench supplies each human action with the step")


def _typed(text: str) -> Callable[[str], str]:
    """The human model's input for one step: the action the operator typed before it."""

    def reply(prompt: str) -> str:
        return text

    return reply


class StepSession:
    """One writer per task: this process's executor and operator changes, one call at a time."""

    def __init__(self, path: Path, model: str | None, api_base: str | None) -> None:
        self.folder = TaskFolder.open(path)
        self.model_spec = model
        self.api_base = api_base
        self._executor: Executor | None = None
        self._lock = threading.Lock()

    @property
    def human(self) -> bool:
        return (self.model_spec or self.folder.spec.model) == HUMAN

    def _model(self, human_text: str | None = None) -> Model:
        from forgetui.engine.runner import model_for  # with the first step: it loads the executor

        if self.human:
            reply = _typed(human_text) if human_text is not None else _closed_input
            return model_for(self.folder, HUMAN, self.api_base, human_input=reply)
        return model_for(self.folder, self.model_spec, self.api_base)

    def step(
        self, observer: Callable[[StepEvent], None], human_text: str | None = None
    ) -> tuple[StepReport, list[str]]:
        """Exactly one engine step. Returns its report and what opening the executor repaired."""
        with self._lock:
            notices: list[str] = []
            if self._executor is None:
                from forgetui.engine.executor import Executor

                executor = Executor(self.folder, self._model(), observer=observer)
                notices = executor.open()
                self._executor = executor
            override = self._model(human_text) if self.human else None
            return self._executor.step(model=override), notices

    def answer(self, text: str) -> str:
        from forgetui.engine.executor import answer

        with self._lock:
            decision = answer(self.folder, text)
            return f"answered step {decision.step}: {decision.answer}"

    def pin(self, ref: str, pinned: bool) -> str:
        from forgetui.engine import api

        with self._lock:
            return f"{'pinned' if pinned else 'unpinned'} {api.pin(self.folder, ref, pinned)}"

    def evict(self, ref: str) -> str:
        from forgetui.engine import api

        with self._lock:
            return f"evicted {api.evict(self.folder, ref)}"

    def edit(self, ref: str, content: str) -> str:
        from forgetui.engine import api

        with self._lock:
            return f"edited {api.edit_memory(self.folder, ref, content)}"

    def note(self, text: str) -> str:
        from forgetui.engine import api

        with self._lock:
            return f"added note {api.add_note(self.folder, text)}"

    def close(self) -> None:
        """Release the task lock (called once no step is in flight)."""
        with self._lock:
            if self._executor is not None:
                self._executor.close()
                self._executor = None
