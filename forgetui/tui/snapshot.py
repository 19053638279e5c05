"""What the panes show (the views: task_views.py), built off the UI thread from the engine API.

`TaskReader` owns a read-only task folder of its own (the executor has another), so reading
never needs the task lock and never races the writer's log index. Widgets receive these views
in messages; they never read a file themselves. Nothing here parses the whole action log: the
log is read by index windows and by its tail."""

from __future__ import annotations

import shlex
import threading
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from forgetui.engine import api
from forgetui.engine.api import ForgeError
from forgetui.tui.model_in_use import model_in_use
from forgetui.tui.task_views import (
    CheckView,
    ContextView,
    CriterionView,
    Level,
    LockHolder,
    SectionView,
    TaskSnapshot,
    meter_level,
)

if TYPE_CHECKING:  # names only: a name asked of the door imports its engine module
    from forgetui.engine.api import (
        Check,
        CheckOutput,
        DiffEntry,
        LogRow,
        RecordDetail,
        SandboxMode,
        TaskState,
        WorkingMemory,
    )
    from forgetui.tui.first_view import FirstView

TAIL_ROWS = 64  # log rows sent with every snapshot: the pane's usual window
# the sent-vs-naive series: the log records one view reads on (a long log is caught up over
# several views), and the steps it carries
SERIES_RECORDS = 400
SERIES_STEPS = 16
# how long the workbench's mount waits for the launcher's child before putting up the frame
FIRST_VIEW_WAIT_S = 1.0


def _what_check_runs(check: Check) -> str:
    if check.kind == "command":
        return shlex.join(check.cmd or [])
    if check.kind == "regex":
        rules = [
            f"must match /{check.must_match}/" if check.must_match else "",
            f"must not match /{check.must_not_match}/" if check.must_not_match else "",
        ]
        return f"{check.path}: " + ", ".join(rule for rule in rules if rule)
    return f"{check.path} exists"


def _all_passing(results: list[bool | None]) -> bool | None:
    """A criterion passes when every check proving it passes; unknown until all have run."""
    if not results or any(result is None for result in results):
        return None
    return all(results)


def _sandbox() -> SandboxMode:
    """The sandbox steps will run in; a mode the operator forced that cannot run is shown as
    the allow-list with the reason (the step itself then fails with it)."""
    try:
        return api.sandbox_mode()
    except ForgeError as exc:
        return api.SandboxMode("allow-list", exc.message)


def _environment(folder: api.TaskFolder) -> api.ProjectEnvironment | None:
    """The Python steps' commands will run with; None when task.yaml names one that is not
    (the step then fails saying so)."""
    try:
        return api.project_environment(folder)
    except ForgeError:
        return None


def _check_views(
    folder: api.TaskFolder, state: TaskState
) -> tuple[tuple[CheckView, ...], tuple[CriterionView, ...]]:
    """The checks as last run, and each success criterion as the checks proving it stand."""
    spec = folder.spec
    checks_state = state.verification.checks
    by_criterion: dict[str, list[bool | None]] = {}
    checks: list[CheckView] = []
    for check in spec.checks:
        result = checks_state.get(check.name)
        passing = result.passing if result is not None else None
        checks.append(
            CheckView(
                check.name,
                passing,
                result.details if result else "not run yet",
                result.changed_at_step if result else None,
                check.criterion,
                check.kind,
                _what_check_runs(check),
            )
        )
        if check.criterion:
            by_criterion.setdefault(check.criterion, []).append(passing)
    criteria = tuple(
        CriterionView(text, _all_passing(by_criterion.get(text, [])))
        for text in spec.success_criteria
    )
    return tuple(checks), criteria


class TaskReader:
    """Builds views of one task folder. Thread-safe: one read at a time."""

    def __init__(
        self, path: Path, model: str | None = None,
        owns_lock: Callable[[int], bool] = lambda pid: False,
        api_base: str | None = None, model_overrides: Mapping[str, Any] | None = None,
    ) -> None:  # fmt: skip
        self._path = path  # the task folder (as api.open_task resolves it)
        self._folder: api.TaskFolder | None = None  # read at first use: not before the first paint
        self.model = model
        self.owns_lock = owns_lock  # our own engine process holds the lock: not read-only
        # what steps run with beyond task.yaml, so the preview counts what they send (the
        # model's window, tool schemas): the server, and the config's and flags' model options
        self.api_base = api_base
        self.model_overrides = dict(model_overrides or {})
        self._lock = threading.Lock()
        # a child counting the first snapshot while this process starts (the launcher's)
        self.first_view: FirstView | None = None

    @property
    def path(self) -> Path:
        return self._path

    @property
    def folder(self) -> api.TaskFolder:
        """The task folder, read when first needed: a workbench started with its child's view
        shows it before the engine's file layer is loaded."""
        if self._folder is None:
            self._folder = api.open_task(self._path)
        return self._folder

    @folder.setter
    def folder(self, folder: api.TaskFolder) -> None:
        self._folder = folder

    def first_snapshot(self, show_frame: Callable[[TaskSnapshot], None]) -> TaskSnapshot:
        """The first load, when the launcher's child had not answered at the mount (which
        waited `FIRST_VIEW_WAIT_S` for it): the frame (the task's files read in milliseconds),
        then the child's snapshot or one counted here."""
        early = self.first_view
        if early is None or not early.ready():
            show_frame(self.frame())
        counted = early.take(self.path) if early is not None else None
        return counted if counted is not None else self.snapshot()

    def close(self) -> None:
        """Stop a child still counting the first view (the app quit before it answered) and
        reap it."""
        early, self.first_view = self.first_view, None
        if early is not None:
            early.close()

    def reopen(self) -> None:
        """Read task.yaml again (the operator accepted a change to it)."""
        with self._lock:
            self.folder = api.open_task(self.folder.path)

    def snapshot(self) -> TaskSnapshot:
        with self._lock:
            return self._snapshot()

    def _snapshot(self) -> TaskSnapshot:
        folder = self.folder
        state = folder.load_state()  # read once: the frame, memory rows and preview share it
        memory = folder.load_memory()  # read once: the rows, the preview and what leaves
        context: ContextView | None = None
        context_error: str | None = None
        if not state.finished:
            try:
                context = self._preview(state, memory)
            except ForgeError as exc:
                context_error = exc.message
        series, complete = api.token_series(folder, state, max_records=SERIES_RECORDS)
        frame = self._frame(state)
        return replace(
            frame,
            memory=tuple(api.memory_rows(folder, state, memory)),
            context=context,
            context_error=context_error,
            model_problem=api.model_problem(frame.model, folder.path),
            server_tag=api.server_tag(
                frame.model,
                self.api_base,
                folder.spec.model_options.with_overrides(**self.model_overrides),
            ),
            sandbox=_sandbox(),
            environment=_environment(folder),
            token_series=tuple(series[-SERIES_STEPS:]) if complete else (),
            loading=False,
        )

    def frame(self) -> TaskSnapshot:
        """What task.yaml, state.yaml and the log's tail say, without counting a token: the
        first view, up while the rest of the first load (tiktoken's tables) is read."""
        with self._lock:
            return self._frame(self.folder.load_state())

    def _frame(self, state: TaskState) -> TaskSnapshot:
        folder = self.folder
        spec = folder.spec
        checks, criteria = _check_views(folder, state)
        count, tail = self._log_tail()
        holder = self._other_holder()
        return TaskSnapshot(
            task_id=spec.id,
            task_type=spec.task_type,
            goal=spec.goal,
            phase=state.phase,
            phases=api.phases_of(spec.task_type),
            status=state.status,
            step=state.step,
            criteria=criteria,
            constraints=tuple(spec.constraints),
            plan=state.plan,
            checks=checks,
            ready=state.verification.ready_for_completion,
            memory=(),
            context=None,
            context_error=None,
            log_count=count,
            tail_rows=tail,
            cost=state.totals.cost_usd,
            escalation=state.pending_escalation,
            holder=holder,
            approval=spec.approval,
            recent=tuple(row for row in tail if row.done)[-3:],
            model=model_in_use(folder, holder, self.model),
            task_change=api.task_change(folder, state),
            prompt_tokens=state.last_context_tokens,
            provider_prompt_tokens=state.last_prompt_tokens,
            decided=state.next_step_decided,
            loading=True,
        )

    def _other_holder(self) -> LockHolder | None:
        """Another process writing this task (we are read-only), not ours nor our engine's."""
        holder_info = api.lock_holder(self.folder)
        if (
            holder_info is not None
            and not holder_info.is_mine
            and not self.owns_lock(holder_info.pid)
        ):
            return LockHolder(holder_info.pid, holder_info.command, holder_info.started_at)
        return None

    def _preview(self, state: TaskState, memory: WorkingMemory) -> ContextView:
        options = self.folder.spec.model_options.with_overrides(**self.model_overrides)
        model = self.model or self.folder.spec.model  # the probed server's findings, as a step
        options = api.server_options(model, self.api_base, options)
        ctx = api.preview_context(
            self.folder, self.model, state, memory, api_base=self.api_base, options=options
        )
        return ContextView(
            step=state.next_step,
            saved=False,
            sections=tuple(
                SectionView(s.name, s.budget, s.tokens, s.text, tuple(s.compressions))
                for s in ctx.sections
            ),
            total_tokens=ctx.request_tokens,  # what max_tokens bounds: tool schemas included
            max_tokens=ctx.max_tokens,
            messages=tuple((m["role"], m["content"]) for m in ctx.messages),
            over_budget=tuple(ctx.over_budget),
            leaving=tuple(api.leaving_context(self.folder, ctx, state, memory)),
            tool_tokens=ctx.tool_tokens,
            window_problem=ctx.window_problem,
            health=api.context_health(ctx),
        )

    def saved_context(self, step: int) -> ContextView:
        """The context as sent at `step`, with why it differs from step-1's."""
        with self._lock:
            folder = self.folder
            saved = api.saved_context(folder, step)
            budgets = folder.spec.limits.budgets()
            tokens: dict[str, int] = saved.get("sections") or {}
            tool_tokens = int(saved.get("tool_tokens") or 0)
            compressions: dict[str, list[str]] = saved.get("compressions") or {}

            def squeezed(name: str) -> tuple[str, ...]:  # what the section gave up to fit
                return tuple(str(note) for note in compressions.get(name) or ())

            diff: tuple[DiffEntry, ...] = ()
            diff_error = None
            try:
                diff = tuple(api.context_diff(folder, step))
            except ForgeError as exc:
                diff_error = exc.message
            return ContextView(
                step=step,
                saved=True,
                sections=tuple(
                    SectionView(name, budgets.get(name, 0), int(count), "", squeezed(name))
                    for name, count in tokens.items()
                ),
                total_tokens=int(saved.get("total_tokens") or 0) + tool_tokens,
                max_tokens=int(saved.get("max_tokens") or folder.spec.limits.max_tokens),
                messages=tuple((m["role"], m["content"]) for m in saved["messages"]),
                diff=diff,
                diff_error=diff_error,
                tool_tokens=tool_tokens,
                diff_since=api.previous_on_branch(folder, step),
            )

    def saved_steps(self) -> list[int]:
        """Steps whose context was saved, oldest first."""
        with self._lock:
            return api.saved_steps(self.folder)

    def log_tail(self) -> tuple[int, tuple[LogRow, ...]]:
        """The record count and the newest rows: readable when state.yaml is not."""
        with self._lock:
            return self._log_tail()

    def _log_tail(self) -> tuple[int, tuple[LogRow, ...]]:
        """The record count and the newest rows (one per step or operator change); the last
        row's index tells the pane how many rows there are."""
        records = api.log_count(self.folder)
        rows = api.log_row_count(self.folder)
        return records, tuple(api.log_rows(self.folder, max(0, rows - TAIL_ROWS), rows))

    def log_rows(self, start: int, stop: int) -> tuple[LogRow, ...]:
        with self._lock:
            return tuple(api.log_rows(self.folder, start, stop))

    def find_log_rows(self, text: str, start: int = 0) -> tuple[int, tuple[LogRow, ...]]:
        """The row count and the rows from `start` on holding `text`: reads the log from
        there, so only in a worker."""
        with self._lock:
            count, rows = api.find_log_rows(self.folder, text, start)
            return count, tuple(rows)

    def log_row_of_step(self, step: int) -> int | None:
        with self._lock:
            return api.log_row_of_step(self.folder, step)

    def record_detail(self, index: int) -> RecordDetail:
        with self._lock:
            return api.record_detail(self.folder, index)

    def check_output(self, name: str) -> CheckOutput | None:
        """A check's full output at its last run, if it was kept."""
        with self._lock:
            return api.check_output(self.folder, name)


__all__ = [
    "TAIL_ROWS",
    "CheckView",
    "ContextView",
    "Level",
    "LockHolder",
    "SectionView",
    "TaskReader",
    "TaskSnapshot",
    "meter_level",
]
