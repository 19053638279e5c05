"""Where each file of a task lives: `<workspace>/.agentforge/tasks/<task_id>/`, its files and
its artifact folders. Named once here, so the checks that read a folder and the folder that
writes it cannot disagree about a name."""

from __future__ import annotations

FORGE_DIR = ".agentforge"
TASKS_DIR = "tasks"
CHECKPOINTS_DIR = "checkpoints"  # under artifacts/
TASK_FILE = "task.yaml"
STATE_FILE = "state.yaml"
MEMORY_FILE = "working_memory.yaml"
LOG_FILE = "actions.yaml"
ARTIFACT_DIRS: tuple[str, ...] = ("inputs", "outputs", "snapshots", "contexts", CHECKPOINTS_DIR)
CHECK_OUTPUTS_FILE = "checks.yaml"  # in artifacts/outputs/
