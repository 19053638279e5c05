"""Going back to the end of step N in place (what going back takes: rewind_plan.py).

The task keeps its whole log: the later steps stay as a superseded branch (a `RewindMark` in
state.yaml, an operator record in the log), shown dimmed and never again in a context, and
numbering goes on after them, so no step number, context or snapshot is reused. A fork
(fork.py) goes back into a new workspace instead, leaving the original untouched."""

from __future__ import annotations

from forgetui.engine.base.clock import now_iso
from forgetui.engine.base.errors import ForgeError
from forgetui.engine.folder import consistency
from forgetui.engine.folder.interrupts import interrupts_deferred
from forgetui.engine.folder.memory import WorkingMemory
from forgetui.engine.folder.records import OperatorRecord
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.folder.task_state import RewindMark
from forgetui.engine.history.fork import fork_task
from forgetui.engine.history.restore import WriteBackFailed, refuse_blocked, write_back
from forgetui.engine.history.rewind_plan import (
    REWIND_COMMAND,
    RewindConflict,
    RewindPlan,
    RewindReport,
    plan_going_back,
    status_after,
    steps_text,
)
from forgetui.engine.integrity.recovery import recover

# state.yaml fields an in-place rewind keeps as they are: numbering, what was spent, the seal,
# the log's last result, and the operator's limits
KEPT_FIELDS = (
    "step", "totals", "task_sha256", "last_result", "extra_steps", "extra_cost_usd",
    "max_steps", "max_cost_usd", "last_context_tokens", "last_prompt_tokens",
)  # fmt: skip


def _report(folder: TaskFolder, to: int, plan: RewindPlan, *, done: bool = True) -> RewindReport:
    """An in-place rewind's report (`done`: False for a plan)."""
    return RewindReport(
        to=to,
        fork=False,
        folder=folder.path,
        workspace=folder.workspace,
        source=folder.path,
        superseded=(to + 1, plan.state.step),
        restored=plan.files.restored,
        removed=plan.files.removed,
        conflicts=list(plan.files.conflicts),
        untracked=plan.untracked,
        status=status_after(plan.checkpoint.state, stepped=True),
        done=done,
    )


def plan_rewind(folder: TaskFolder, to: int) -> RewindReport:
    """What `rewind_task(folder, to)` would do, conflicts included; nothing is changed and no
    lock is taken (a refusal is the same ForgeError the rewind would raise)."""
    return _report(folder, to, plan_going_back(folder, to, fork=False), done=False)


def rewind_task(folder: TaskFolder, to: int, *, force: bool = False) -> RewindReport:
    """Back to the end of step `to`, in place, under the task lock (refused while another
    process holds it, naming it). Files changed by hand since the run wrote them stop it
    (RewindConflict, nothing changed) unless `force`."""
    folder.acquire(REWIND_COMMAND)
    try:
        consistency.check(folder)
        recover(folder)  # as every writer: a crash's missing result comes back from state.yaml
        plan = plan_going_back(folder, to, fork=False)
        refuse_blocked(plan.files, folder.workspace)  # every file, before any is written
        if plan.files.conflicts and not force:
            raise RewindConflict(_report(folder, to, plan, done=False))
        state, last = plan.state, plan.state.step
        mark = RewindMark(to=to, first=to + 1, last=last, at=now_iso())
        kept = {name: getattr(state, name) for name in KEPT_FIELDS}
        rewound = plan.checkpoint.state.model_copy(
            update={
                **kept,
                "status": status_after(plan.checkpoint.state, stepped=True),
                "resolution": None,
                "rewinds": [*state.rewinds, mark],
            }
        )
        report = _report(folder, to, plan)
        record = OperatorRecord(
            step=last,
            at=mark.at,
            op="rewind",
            text=f"rewind → step {to} ({steps_text((mark.first, mark.last))} superseded)",
            detail={
                "to": to,
                "superseded": [mark.first, mark.last],
                "restored": report.restored,
                "removed": report.removed,
                "forced": report.conflicts,
            },
        )
        with interrupts_deferred():  # the files, then the three that describe the same rewind
            try:
                write_back(folder.workspace, plan.files.targets)
            except WriteBackFailed as failed:
                folder.log.append(_failed_record(last, to, failed))
                stays = f"the task stays at step {last}"
                if failed.left:
                    stays += " and those files do not match it: rewind again once it can write"
                raise ForgeError(
                    f"rewind to step {to} stopped: {failed.message}; {stays}"
                ) from None
            folder.save_memory(_shifted(plan.checkpoint.memory, last - to))
            folder.save_state(rewound)
            folder.log.append(record)
        return report
    finally:
        folder.release()


def _failed_record(last: int, to: int, failed: WriteBackFailed) -> OperatorRecord:
    """What a rewind that could not write its files did, for the log: state.yaml did not
    move, and the files it could not put back (if any) are named."""
    return OperatorRecord(
        step=last,
        at=now_iso(),
        op="rewind_failed",
        text=f"rewind → step {to} failed: {failed.message}",
        detail={
            "to": to,
            "failed": failed.rel,
            "reason": failed.reason,
            "written": failed.written,
            "not_put_back": failed.left,
        },
    )


def _shifted(memory: WorkingMemory, by: int) -> WorkingMemory:
    """Memory at step N, dated as if added `by` steps later: the next step is `by` steps on,
    and each item's term goes on from where it stood at N."""
    items = [
        item if item.step is None else item.model_copy(update={"step": item.step + by})
        for item in memory.items
    ]
    return memory.model_copy(update={"items": items})


__all__ = [
    "KEPT_FIELDS",
    "REWIND_COMMAND",
    "RewindConflict",
    "RewindReport",
    "fork_task",
    "plan_rewind",
    "rewind_task",
]
