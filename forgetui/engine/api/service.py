"""One open task as the operator works on it: the writer's verbs and the reports the front ends
print, on one object. The workbench calls it in process, or through its engine child, which
forwards any of its public methods by name (forgetui/tui/session.py): the service's methods are
the workbench's whole protocol, written once.

The executor (the task lock) is opened for a step, not at construction, and `release` closes it
whenever the workbench goes idle, so a workbench that watches or sits paused never keeps a
headless run, `forgetui answer` or another workbench from writing."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forgetui.engine.api.reads import status, task_stats
from forgetui.engine.api.tasks import open_task
from forgetui.engine.operator import verbs
from forgetui.engine.operator.inbox import InboxEntry, escalation_inbox, promote_answer
from forgetui.engine.operator.views import MemoryRow, memory_rows

if TYPE_CHECKING:
    from forgetui.engine.history.replay_export import ReplayExport
    from forgetui.engine.history.rerun import Adoption, Rerun
    from forgetui.engine.history.rewind import RewindReport
    from forgetui.engine.llm import Model
    from forgetui.engine.operator.project_memory import ProjectRow
    from forgetui.engine.step.executor import Executor
    from forgetui.engine.step.reports import StepEvent, StepReport


def _closed_input(prompt: str) -> str:
    raise EOFError("the workbench supplies each human action with the step")


def _typed(text: str) -> Callable[[str], str]:
    """The human model's input for one step: the action the operator typed before it."""

    def reply(prompt: str) -> str:
        return text

    return reply


class TaskService:
    """One writer per task: this process's executor and the operator's changes, one call at a
    time, each verb returning the line the operator is told. `model_options` (max_output_tokens,
    temperature, timeout_s, system_role, tools, stream) override the task's own for every model
    this service builds."""

    HUMAN = "human"  # the model name of an operator typing each action

    def __init__(
        self, path: Path | str, model: str | None = None, api_base: str | None = None,
        model_options: Mapping[str, Any] | None = None,
    ) -> None:  # fmt: skip
        self.folder = open_task(path)
        self.model_spec = model
        self.api_base = api_base
        self.model_options = dict(model_options or {})
        self._executor: Executor | None = None
        self._base_model: Model | None = None  # built at the first step, kept over releases
        self._lock = threading.Lock()

    @property
    def human(self) -> bool:
        return (self.model_spec or self.folder.spec.model) == self.HUMAN

    def owns_lock(self, pid: int) -> bool:
        """Whether the lock `pid` holds is this service's, held in another process: never, in
        process (a reader knows its own pid)."""
        return False

    def _model(self, human_text: str | None = None) -> Model:
        from forgetui.engine.step.runner import model_for

        if self.human:
            reply = _typed(human_text) if human_text is not None else _closed_input
            return model_for(
                self.folder, self.HUMAN, self.api_base, human_input=reply, **self.model_options
            )
        return model_for(self.folder, self.model_spec, self.api_base, **self.model_options)

    # --- stepping --------------------------------------------------------------------------------

    def step(
        self, observer: Callable[[StepEvent], None], human_text: str | None = None
    ) -> tuple[StepReport, list[str]]:
        """Exactly one engine step. Returns its report and what opening the executor repaired.
        After a release the executor opens again: lock, stale-lock takeover and recovery, as
        any writer's start; a live holder elsewhere fails the step with its pid and command."""
        from forgetui.engine.step.executor import Executor

        with self._lock:
            notices: list[str] = []
            if self._executor is None:
                # One model for the service, as before releases existed: its client and state
                # carry over, and opening re-syncs a replay script with the log.
                if self._base_model is None:
                    self._base_model = self._model()
                executor = Executor(self.folder, self._base_model, observer=observer)
                try:
                    notices = executor.open()
                except BaseException:
                    executor.close()  # a failed recovery must not leave the lock taken
                    raise
                self._executor = executor
            override = self._model(human_text) if self.human else None
            return self._executor.step(model=override), notices

    def stop_answer(self) -> bool:
        """Stop the answer streaming in the step in flight; True if there was one. Not under
        the service's lock: the step holds it until the answer it waits on has ended."""
        executor = self._executor
        return executor is not None and executor.stop_answer()

    def set_model(self, spec: str) -> str:
        """The model for the steps from the next one on: built now, so a name that cannot run
        is refused here rather than at the step."""
        from forgetui.engine.step.runner import model_for

        with self._lock:
            model = (
                None
                if spec == self.HUMAN
                else model_for(self.folder, spec, self.api_base, **self.model_options)
            )
            self.model_spec = spec
            if model is not None:
                self._base_model = model
                if self._executor is not None:
                    self._executor.model = model
            return f"model {spec} from the next step"

    def release(self) -> None:
        """Close the executor, releasing the task lock, while the workbench is idle (a pause);
        the next step reopens it. Waits for a step in flight (one call at a time)."""
        with self._lock:
            if self._executor is not None:
                self._executor.close()
                self._executor = None

    def close(self) -> None:
        """Release the task lock for good (the front end is leaving)."""
        self.release()

    # --- the operator's changes, each logged -----------------------------------------------------

    def answer(self, text: str) -> str:
        with self._lock:
            decision = verbs.answer(self.folder, text)
            return f"answered step {decision.step}: {decision.answer}"

    def pin(self, ref: str, pinned: bool) -> str:
        with self._lock:
            return f"{'pinned' if pinned else 'unpinned'} {verbs.pin(self.folder, ref, pinned)}"

    def evict(self, ref: str) -> str:
        with self._lock:
            return f"evicted {verbs.evict(self.folder, ref)}"

    def edit(self, ref: str, content: str) -> str:
        with self._lock:
            return f"edited {verbs.edit_memory(self.folder, ref, content)}"

    def note(self, text: str) -> str:
        with self._lock:
            return f"added note {verbs.add_note(self.folder, text)}"

    def promote(self, entry_id: str) -> str:
        """The inbox's answer `entry_id` pinned in working memory."""
        with self._lock:
            return promote_answer(self.folder, entry_id)

    # --- project memory: the workspace's, outliving this task ------------------------------------

    def promote_to_project(self, ref: str, kind: str | None = None) -> str:
        """Working-memory note or decision `ref` as a project memory entry, logged here."""
        from forgetui.engine.operator.project_memory import promote_to_project

        with self._lock:
            return promote_to_project(self.folder, ref, kind)

    def promote_answer_to_project(self, entry_id: str, kind: str | None = None) -> str:
        """The inbox's answer `entry_id` as a project memory entry, logged here."""
        from forgetui.engine.operator.project_memory import promote_answer_to_project

        with self._lock:
            return promote_answer_to_project(self.folder, entry_id, kind)

    def edit_project(self, entry_id: str, text: str) -> str:
        from forgetui.engine.operator.project_memory import edit_project_entry

        return edit_project_entry(self.folder.workspace, entry_id, text)

    def remove_project(self, entry_id: str) -> str:
        from forgetui.engine.operator.project_memory import remove_project_entry

        return remove_project_entry(self.folder.workspace, entry_id)

    def set_limits(self, max_steps: int | None, max_cost: float | None) -> str:
        with self._lock:
            return f"limits set: {verbs.set_limits(self.folder, max_steps, max_cost).answer}"

    def accept_task_change(self) -> str:
        with self._lock:
            return verbs.accept_task_change(self.folder)

    # --- history: re-run, rewind, fork -----------------------------------------------------------

    def rerun(self, step: int, model: str) -> Rerun:
        """Step `step`'s saved context to `model`, with this service's api_base and bounds.
        Reads only, through a folder of its own: not under the service's lock."""
        from forgetui.engine.history.rerun import rerun_step

        return rerun_step(
            open_task(self.folder.path), step, model, api_base=self.api_base,
            bounds=self.model_options,
        )  # fmt: skip

    def adopt_rerun(self, rerun: Rerun, dest: str, workbench: bool = False) -> Adoption:
        """The re-run's answer as step N of a fork in the new workspace `dest`; a refusal
        says what to do in the workbench's terms when it comes from there."""
        from forgetui.engine.history.fork_words import WORKBENCH
        from forgetui.engine.history.rerun import adopt_rerun

        folder = open_task(self.folder.path)
        if workbench:
            return adopt_rerun(folder, rerun, dest, WORKBENCH)
        return adopt_rerun(folder, rerun, dest)

    def plan_rewind(self, to: int) -> RewindReport:
        """What rewinding to the end of step `to` would do. Reads only, through a folder of
        its own: not under the service's lock."""
        from forgetui.engine.history.rewind import plan_rewind

        return plan_rewind(open_task(self.folder.path), to)

    def rewind(self, to: int, force: bool) -> str:
        """Back to the end of step `to` in place (the lock taken for the write only). The
        executor is closed first: the next step opens it again, re-syncing a replay script
        with the rewound log."""
        from forgetui.engine.history.rewind import rewind_task

        with self._lock:
            if self._executor is not None:
                self._executor.close()
                self._executor = None
            return rewind_task(self.folder, to, force=force).describe()

    def fork(self, to: int, dest: str) -> str:
        """A fork at step `to` into the new workspace `dest`; this task is not changed. The
        workbench's (the command line forks with fork_task): a refusal names its field."""
        from forgetui.engine.history.fork_words import WORKBENCH
        from forgetui.engine.history.rewind import fork_task

        report = fork_task(open_task(self.folder.path), to, dest, WORKBENCH)
        return f"{report.describe()}; open it with: forgetui open {dest}"

    # --- reports: read only, not under the service's lock ----------------------------------------

    def status(self) -> dict[str, Any]:
        """The `status --json` object."""
        return status(self.folder)

    def memory_rows(self) -> list[MemoryRow]:
        return memory_rows(self.folder)

    def project_rows(self) -> list[ProjectRow]:
        """The workspace's project memory; a file that does not read is left out."""
        from forgetui.engine.operator.project_memory import project_rows

        return project_rows(self.folder.workspace)

    def inbox(self) -> list[InboxEntry]:
        """Every question asked in this task and its answer."""
        return escalation_inbox(self.folder)

    def stats(self) -> dict[str, Any]:
        """The `stats --json` object: per step, the tokens sent beside those a run keeping the
        whole conversation would have sent (stats.py says how each is counted), and the health."""
        return task_stats(self.folder)

    def export_replay(self) -> ReplayExport:
        """The run as a replay script: a regression test of what the model answered."""
        from forgetui.engine.history.replay_export import export_replay

        return export_replay(self.folder)
