"""real_repo, run as shipped: the step after the agent reads ledger/money.py works from every
line the read gave. However full current_state is, the older results give way first (on one line,
then left out) and the file just read stays whole."""

from __future__ import annotations

from pathlib import Path

import yaml

from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.start.samples import find_sample, init_sample
from forgetui.engine.step.runner import run

MONEY = "ledger/money.py"


def first_whole_read(sample: Path, path: str) -> int:
    """The step at which the sample's script first reads `path` whole."""
    script = yaml.safe_load((sample / "replay.yaml").read_text("utf-8"))
    for step, entry in enumerate(script, start=1):
        args = entry.get("args") or {}
        whole = "start_line" not in args and "end_line" not in args
        if entry.get("action") == "read_file" and args.get("path") == path and whole:
            return step
    raise AssertionError(f"the sample never reads {path} whole")


def saved(folder: TaskFolder, step: int) -> tuple[str, list[str]]:
    """The user message sent at `step`, and current_state's compressions."""
    context = folder.load_saved_context(step)
    text = next(m["content"] for m in context["messages"] if m["role"] == "user")
    return str(text), list(context.get("compressions", {}).get("current_state", []))


def test_the_step_after_reading_money_py_sees_all_it_read(tmp_path: Path) -> None:
    sample = find_sample("real_repo")
    assert sample is not None
    read = first_whole_read(sample, MONEY)
    folder = init_sample("real_repo", into=tmp_path / "rr")
    run(folder.path, max_steps=read + 1)
    assert folder.load_state().step == read + 1
    memory = folder.load_memory()
    content = memory.items[memory.find(f"action_result@{read}")].content
    assert isinstance(content, dict) and MONEY in str(content.get("summary"))
    output = str(content["output"])  # what the read gave (the tool cuts a long file)
    text, compressions = saved(folder, read + 1)
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    missing = [line for line in lines if line not in text]
    assert len(lines) > 100 and missing == [], (
        f"step {read + 1} lost {len(missing)} of the {len(lines)} lines read: {missing[:3]}"
    )
    assert "the newest tool result compressed too" not in compressions
