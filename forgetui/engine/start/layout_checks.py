"""The checks run once when a task is laid out (`new`, `init`), as step 0: the first step
already knows what passes, and a check the agent later breaks is a regression from the start.

The task folder is complete before they run (TaskFolder.create renames it into place), and
their verification is saved the way a step saves its own (checkpoint 0, then state.yaml, under
the lock). A layout killed while a check runs leaves a valid task whose checks have not run
yet; a check that hangs is stopped by its own `timeout_s`."""

from __future__ import annotations

from forgetui.engine.checks.verify import run_checks
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.folder.task_state import Verification

LAYOUT_STEP = 0


def check_at_layout(folder: TaskFolder) -> Verification | None:
    """Run the task's checks against its workspace as step 0 and keep the result; None when
    there are none, or the task has moved on since it was laid out (they ran, or a step did)."""
    spec = folder.spec
    if not spec.checks:
        return None
    with folder.lock:
        state = folder.load_state()
        if state.step != LAYOUT_STEP or state.verification.checked_at is not None:
            return None
        verification = run_checks(
            spec,
            folder.workspace,
            state.verification,
            LAYOUT_STEP,
            keep_outputs=lambda outputs: folder.save_check_outputs(LAYOUT_STEP, outputs),
        )
        state.verification = verification
        # checkpoint 0 is the task as laid out: a rewind to 0 finds the same verification
        folder.save_checkpoint(LAYOUT_STEP, state, folder.load_memory())
        folder.save_state(state)
    return verification
