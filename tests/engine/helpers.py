"""Build small real task folders with a replay script, for executor tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from forgetui.engine.folder.action_log import ActionLog
from forgetui.engine.folder.records import ResultRecord
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.folder.task_spec import TaskSpec
from forgetui.engine.llm import make_model


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


def litellm_at(fake: Any, **options: Any) -> Any:
    """A real LiteLLMModel aimed at the loopback fake server, bounded for tests: short timeout
    and backoff, and a deadline that leaves room for litellm's lazy imports on a process's
    first call. `options` override any of these (`use_tools=False`, ...)."""
    from forgetui.engine.llm.litellm_model import LiteLLMModel

    settings: dict[str, Any] = {
        "api_base": fake.url,
        "timeout_s": 5.0,
        "deadline_s": 60.0,
        "backoff_base_s": 0.01,
        "backoff_cap_s": 0.05,
        **options,
    }
    return LiteLLMModel("openai/gpt-4o-mini", **settings)


def act(action: str, **args: Any) -> dict[str, Any]:
    return {"action": action, "args": args}


def last_results(log: ActionLog, n: int) -> list[ResultRecord]:
    """The last n result records, oldest first."""
    return [r for r in log.tail(n, ("result",)) if isinstance(r, ResultRecord)]
