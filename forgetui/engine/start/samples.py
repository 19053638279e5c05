"""Bundled sample tasks: instantiated into a fresh run directory so the
shipped copy is never modified."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from forgetui.engine.base.errors import ForgeError, TaskNotFoundError
from forgetui.engine.base.yamlio import load_model
from forgetui.engine.folder.memory import WorkingMemory
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.folder.task_spec import TaskSpec
from forgetui.engine.start.sample_dirs import find_sample, sample_names
from forgetui.paths import runs_dir

REPLAY_FILE = "replay.yaml"
# A run directory is `<sample id>-<local time>` (runs.py reads the time back to list them).
RUN_STAMP_FORMAT = "%Y%m%d-%H%M%S"


def init_sample(name_or_path: str | Path, into: Path | None = None) -> TaskFolder:
    """Copy the sample's workspace into a fresh run directory and create its task folder there."""
    sample = find_sample(name_or_path)
    if sample is None:
        known = ", ".join(sample_names())
        raise TaskNotFoundError(f"no sample task {str(name_or_path)!r} (bundled samples: {known})")
    spec = load_model(sample / "task.yaml", TaskSpec)
    if into is None:
        stamp = time.strftime(RUN_STAMP_FORMAT)
        into = runs_dir() / f"{spec.id}-{stamp}"
        suffix = 1
        while into.exists():
            suffix += 1
            into = runs_dir() / f"{spec.id}-{stamp}-{suffix}"
    if into.exists() and not into.is_dir():
        raise ForgeError(f"{into}: not a directory; choose another --into")
    if into.exists() and any(into.iterdir()):
        raise ForgeError(f"{into}: directory is not empty; choose another --into")
    made = not into.exists()
    try:
        shutil.copytree(sample / "workspace", into, dirs_exist_ok=True)
    except (OSError, shutil.Error) as exc:
        if made:
            shutil.rmtree(into, ignore_errors=True)
        reason = getattr(exc, "strerror", None) or exc
        raise ForgeError(f"{into}: cannot copy the sample there: {reason}") from None
    memory_file = sample / "working_memory.yaml"
    memory = load_model(memory_file, WorkingMemory) if memory_file.is_file() else None
    folder = TaskFolder.create(into, spec, memory=memory)
    if (sample / REPLAY_FILE).is_file():
        shutil.copy2(sample / REPLAY_FILE, folder.path / REPLAY_FILE)
    inputs = sample / "inputs"
    if inputs.is_dir():
        shutil.copytree(inputs, folder.path / "artifacts" / "inputs", dirs_exist_ok=True)
    from forgetui.engine.start.layout_checks import check_at_layout  # runs checks: not for `status`

    check_at_layout(folder)  # last: a copy killed while its checks run is complete already
    return folder
