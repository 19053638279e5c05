"""Build small real task folders with a replay script, for executor tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from forgetui.engine.llm import make_model
from forgetui.engine.store import TaskFolder
from forgetui.engine.task import TaskSpec


def make_task(tmp_path: Path, script: list[dict[str, Any]], **spec: Any) -> TaskFolder:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    data: dict[str, Any] = {
        "id": "t1",
        "goal": "Write out.txt",
        "task_type": "generic",
        "phase": "execution",
        "checks": [{"name": "out", "kind": "file_exists", "path": "out.txt"}],
    }
    data.update(spec)
    folder = TaskFolder.create(workspace, TaskSpec.model_validate(data))
    (folder.path / "replay.yaml").write_text(yaml.safe_dump(script, sort_keys=False))
    return folder


def replay(folder: TaskFolder) -> Any:
    return make_model("replay", task_dir=folder.path)


def act(action: str, **args: Any) -> dict[str, Any]:
    return {"action": action, "args": args}
