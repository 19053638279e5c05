"""The bookkeeping a recorded step leaves in state.yaml: what was done and what is pending
(the `progress` summary that outlives the last 3 actions), the probe, and the model's usage."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from forgetui.engine.folder import memory as wm
from forgetui.engine.folder.departures import record_departures
from forgetui.engine.folder.records import UNPARSED, ResultRecord
from forgetui.engine.folder.task_spec import TaskSpec
from forgetui.engine.folder.task_state import TaskState, Verification
from forgetui.engine.llm import ModelReply

KEEP_COMPLETED = 20
KEEP_SCRATCHPAD = 50
KEEP_COMMANDS = 5
# Results whose output the agent asked to see: kept in its working memory.
OUTPUT_ACTIONS = ("read_file", "search", "list_dir", "run_cmd")


def remember_result(
    memory: wm.WorkingMemory, result: ResultRecord, state: TaskState
) -> wm.WorkingMemory:
    """This step's result as the newest action_result item (FIFO), replacing any earlier one
    of the same step; what it pushes out is noted in `state.departed`. A failed model call is
    the operator's problem: the agent never acted, so it remembers nothing of it. Nor of an
    answer that named no action: the recent actions show its error and the expected form
    once, and three more copies (the item's summary and error, last_errors) grew a weak
    model's context by a third in three steps."""
    if result.transport or result.action == UNPARSED:
        return memory
    content: dict[str, Any] = {
        "action": result.action,
        "result": result.result,
        "summary": result.summary,
    }
    if result.output and result.action in OUTPUT_ACTIONS:
        content["output"] = result.output
    if result.error:
        content["error"] = result.error
    items = [i for i in memory.items if not (i.type == "action_result" and i.step == result.step)]
    memory = memory.model_copy(update={"items": items})
    memory, gone = wm.add_item(
        memory, wm.MemoryItem(type="action_result", step=result.step, content=content)
    )
    record_departures(state, gone, result.step)
    return memory


def achievements(
    result: ResultRecord, before: Verification | None, after: Verification
) -> list[str]:
    """What a step achieved, in words the next context can use: checks it turned green,
    files it created or changed, a subtask or phase it finished. A read, a note or a command's
    output achieves nothing by itself."""
    step = result.step
    done: list[str] = []
    if result.result == "success":
        existed = {
            path.removesuffix(".before").split("/", 3)[-1]
            for path in result.snapshots
            if path.endswith(".before")
        }
        for path in result.files_changed:
            done.append(f"{step}: {'changed' if path in existed else 'created'} {path}")
        if result.action in ("mark_subtask_complete", "complete", "set_plan"):
            done.append(f"{step}: {result.summary}")
    earlier = before.checks if before is not None else {}
    for name, check in after.checks.items():
        was = earlier.get(name)
        if check.passing and (was is None or not was.passing):
            done.append(f"{step}: check '{name}' passes")
    return done


def update_progress(
    state: TaskState,
    result: ResultRecord,
    spec: TaskSpec,
    workspace: Path,
    verified_before: Verification | None = None,
) -> None:
    probe = state.probe
    written = probe.files_written
    for path in result.files_changed:
        written = [p for p in written if p != path] + [path]
    errors = probe.last_errors
    if result.error and not result.transport and result.action != UNPARSED:
        errors = [*errors, f"step {result.step}: {result.error[:500]}"][-3:]
    missing = [p for p in spec.target_files if not (workspace / p).exists()]
    state.probe = probe.model_copy(
        update={"files_written": written[-10:], "last_errors": errors, "files_missing": missing}
    )
    progress = state.progress
    completed = progress.completed
    count = progress.completed_count
    achieved = achievements(result, verified_before, state.verification)
    if achieved:
        completed = [*completed, *achieved][-KEEP_COMPLETED:]
        count += len(achieved)
    pending = [
        f"make check '{name}' pass"
        for name, check in state.verification.checks.items()
        if not check.passing
    ]
    objective = spec.goal
    if state.plan and (where := state.plan.current()):
        task = state.plan.tasks[where[0]]
        objective = f"{task.title}: {task.subtasks[where[1]].title}"
        pending = [
            s.title for t in state.plan.tasks for s in t.subtasks if s.status == "pending"
        ] + pending
    state.progress = progress.model_copy(
        update={
            "completed": completed,
            "completed_count": count,
            "pending": pending[:20],
            "objective": objective,
        }
    )


def add_usage(state: TaskState, reply: ModelReply | None) -> None:
    """The call's tokens and cost into the totals; the provider's count of this prompt is kept
    beside forgetui's (`last_context_tokens`): 0 when the provider reported none."""
    if reply is None:
        return
    state.last_prompt_tokens = reply.prompt_tokens
    totals = state.totals
    state.totals = totals.model_copy(
        update={
            "prompt_tokens": totals.prompt_tokens + reply.prompt_tokens,
            "completion_tokens": totals.completion_tokens + reply.completion_tokens,
            "cost_usd": round(totals.cost_usd + reply.cost, 6),
            "model_calls": totals.model_calls + 1,
        }
    )
