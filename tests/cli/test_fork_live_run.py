"""Forks of a task a live `forgetui run` is stepping. A fork is a reader: it takes no lock, so
it must not copy in the middle of a step (a file written, its result not yet logged), or the
fork holds a file of a step after the one it forked at. Each step here writes a file, then runs
a slow command check: most of the time a step is under way."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from forgetui.engine.folder.task_folder import FORGE_DIR, TaskFolder
from tests.cli.conftest import cli_env
from tests.engine.helpers import make_task
from tests.fake_openai import FakeOpenAI, slow_reply, tool_call_reply

STEPS = 16
FORKS = 6
SLOW_CHECK = ["python", "-c", "import time; time.sleep(0.3)"]


def written(step: int) -> tuple[str, str]:
    """Odd steps rewrite a.txt, even ones make a new file: a fork must undo both kinds."""
    return ("a.txt", f"a{step}\n") if step % 2 else (f"s{step}.txt", f"{step}\n")


def files_at(step: int) -> dict[str, bytes]:
    """The workspace at the end of `step`, as the run wrote it."""
    files: dict[str, bytes] = {}
    for number in range(1, step + 1):
        path, content = written(number)
        files[path] = content.encode()
    return files


def user_files(workspace: Path) -> dict[str, bytes]:
    return {
        p.relative_to(workspace).as_posix(): p.read_bytes()
        for p in workspace.rglob("*")
        if p.is_file() and FORGE_DIR not in p.relative_to(workspace).parts
    }


def test_forks_of_a_live_run_each_hold_their_step(
    cli: Any, tmp_path: Path, fake_openai: FakeOpenAI
) -> None:
    slow = {"name": "slow", "kind": "command", "cmd": SLOW_CHECK}
    folder = make_task(tmp_path, [], checks=[slow], allowed_commands=["python"])
    for step in range(1, STEPS + 1):
        path, content = written(step)
        fake_openai.queue(
            slow_reply(0.2, tool_call_reply(("write_file", {"path": path, "content": content})))
        )
    model = ["--model", "openai/gpt-4o-mini", "--api-base", fake_openai.url]
    with (tmp_path / "run.out").open("w") as out:
        run = subprocess.Popen(
            [sys.executable, "-m", "forgetui", "run", str(folder.path), *model,
             "--max-steps", str(STEPS)],
            stdout=out, stderr=subprocess.STDOUT, cwd=tmp_path,
            env={**os.environ, **cli_env(tmp_path / "home")},
        )  # fmt: skip
    forks: list[tuple[int, Any, Path, bool]] = []
    try:
        while run.poll() is None and len(forks) < FORKS:
            step = TaskFolder.open(folder.path).load_state().step
            if step < 5:
                time.sleep(0.05)
                continue
            to = 4 if len(forks) % 2 == 0 else step - 1
            dest = tmp_path / f"fork-{len(forks)}"
            done = cli("rewind", folder.path, "--to", str(to), "--fork", dest, "--json")
            forks.append((to, done, dest, run.poll() is None))
        assert run.wait(timeout=120) == 0, (tmp_path / "run.out").read_text()
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()

    assert len(forks) >= 3 and sum(live for *_, live in forks) >= 3  # forked while it stepped
    assert len({to for to, *_ in forks}) >= 2
    for to, done, dest, _live in forks:
        assert done.code == 0, done.err
        assert done.json()["to"] == to
        assert user_files(dest) == files_at(to), f"fork at step {to}"
        fork = TaskFolder.open(dest / FORGE_DIR / "tasks" / folder.task_id)
        assert fork.load_state().step == to
    assert TaskFolder.open(folder.path).load_state().step == STEPS
    assert user_files(folder.workspace) == files_at(STEPS)
