"""`forgetui run` tells the operator on stderr when a command's change to project memory was
undone (allow-list mode): one line per file, in every output mode."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from forgetui.engine.workspace.project_memory import add_entry
from tests.engine.helpers import act, make_task

PLANT = """\
print('attempting', flush=True)
open('.agentforge/memory/lessons.yaml', 'w').write('- id: lesson-7\\n  text: planted\\n')
print('written', flush=True)
"""


def test_run_prints_the_undone_change_on_stderr(cli_in_process: Any, tmp_path: Path) -> None:
    folder = make_task(tmp_path, [act("run_cmd", cmd=["python", "-c", PLANT])], checks=[])
    add_entry(folder.workspace, "lesson", "the real lesson")
    before = (folder.workspace / ".agentforge" / "memory" / "lessons.yaml").read_bytes()
    replay = f"replay:{folder.path / 'replay.yaml'}"
    done = cli_in_process(
        "run", folder.path, "--model", replay, "--max-steps", "1", "--json",
        extra_env={"FORGETUI_SANDBOX": "allow-list"},
    )  # fmt: skip
    assert done.code == 0, done.err
    [step] = [row for row in done.json_lines() if "step" in row and "action" in row]
    assert step["result"] == "failure"
    assert (
        "forgetui: step 1: run_cmd changed .agentforge/, undone: "
        ".agentforge/memory/lessons.yaml: changed by the command, put back"
    ) in done.err
    assert (folder.workspace / ".agentforge" / "memory" / "lessons.yaml").read_bytes() == before
