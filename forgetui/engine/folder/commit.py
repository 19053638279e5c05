"""The order in which a step's writes reach the task folder. It is the order crash recovery
(integrity/recovery.py) depends on, so it lives here alone: the executor says what to write,
these functions write it, in this order. Step N writes:

1. artifacts/contexts/step-N.yaml, before the model call. A crash after it: no line names the
   file yet, and step N, run again, writes it afresh.
2. The intent line in actions.yaml, after the answer and before the action touches anything
   (`log_intent`). A crash before it: step N never happened. A crash after it: the log holds
   an intent with no result while state.yaml is at step N-1, and recovery asks the operator to
   re-run or skip the interrupted action.
3. While the action runs, its snapshots (each file's .before and .after, written right after
   the file changes) and the checks' outputs: how recovery tells the operator what an
   interrupted action had already done, and how a re-run knows a write had landed.
4. The step's commit (`commit_step`), with Ctrl+C held until all four are written:
   a. the checkpoint of step N. A crash after it: state.yaml is still at N-1 and a rewind
      goes only to recorded steps, so nothing reads it until step N, run again, replaces it.
      It comes first because it is not fsynced: state.yaml's fsync commits it too.
   b. working_memory.yaml. A crash after it: the memory holds step N's result that nothing
      else recorded; recovery drops items ahead of state.yaml's step, then asks as in 2.
      Memory goes before state because recovery can drop what is extra, never rebuild what
      is missing.
   c. state.yaml: the commit point, step N is done. A crash after it: recovery appends the
      result line from state.yaml's `last_result` (the lock's consistency check accepts a
      state.yaml one step ahead of the log only when it holds that step's result).
   d. the result line in actions.yaml: last, as the one write that can be rebuilt.

A step that stops for the operator without a result writes state.yaml first (`hold`)."""

from __future__ import annotations

from forgetui.engine.folder.interrupts import interrupts_deferred
from forgetui.engine.folder.memory import WorkingMemory
from forgetui.engine.folder.records import IntentRecord, ResultRecord
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.folder.task_state import TaskState


def log_intent(folder: TaskFolder, intent: IntentRecord) -> None:
    """Write 2: what the model asked for, before any of it runs."""
    folder.log.append(intent)


def commit_step(
    folder: TaskFolder, state: TaskState, memory: WorkingMemory, result: ResultRecord
) -> None:
    """Write 4: `state` and `memory` as the end of step `result.step`, then its result line.
    The three files then describe the same last step."""
    with interrupts_deferred():
        folder.save_checkpoint(result.step, state, memory)
        folder.save_memory(memory)
        folder.save_state(state)
        folder.log.append(result)


def hold(folder: TaskFolder, state: TaskState, memory: WorkingMemory | None = None) -> None:
    """A step that waits for the operator and records no result: state.yaml with the
    escalation. Before the model call `memory` follows, less the items whose term ended at
    this step; a crash between the two leaves them in, and the next step expires them again.
    Waiting for approval after the call writes no memory: a crash before state.yaml leaves the
    intent alone, which recovery turns into the same question (re-run or skip)."""
    folder.save_state(state)
    if memory is not None:
        folder.save_memory(memory)
