"""The first view: the task's frame (its goal, step, checks and log) is on screen before the
rest of the first load (memory and the context, which need tiktoken's tables) has been read, and
the first paint happens before the token counter or the model layer are imported."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from forgetui.tui.app import ForgeApp
from forgetui.tui.snapshot import TaskReader, TaskSnapshot

from .conftest import ROOT, SIZE, on_a_terminal, screen_text, settle

pytestmark = pytest.mark.anyio


async def test_the_frame_shows_before_the_context_is_counted(
    workbench: Callable[..., ForgeApp], quick_hello: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = threading.Event()
    real = TaskReader.snapshot

    def held_snapshot(self: TaskReader) -> TaskSnapshot:
        held.wait(30)
        return real(self)

    monkeypatch.setattr(TaskReader, "snapshot", held_snapshot)
    app = workbench(quick_hello)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(200):
            await pilot.pause(0.01)
            if app.workbench.snapshot is not None:
                break
        await pilot.pause()
        shown = app.workbench.snapshot
        assert shown is not None and shown.loading  # the full read is still held
        text = screen_text(app)
        assert "Write hello.py" in text  # the goal, from task.yaml
        assert "hello.py exists in the workspace" in text  # a criterion, with its check
        assert "loading…" in text  # memory and the context are still being read
        held.set()
        await settle(pilot)
        full = app.workbench.snapshot
        assert full is not None and not full.loading
        assert full.context is not None
        text = screen_text(app)
        assert "loading…" not in text
        assert "next step preview" in text


async def test_the_sandbox_warning_still_comes_once_the_full_view_is_read(
    workbench: Callable[..., ForgeApp], quick_hello: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The frame knows no sandbox yet: the warning waits for the read that does."""
    from forgetui.engine import api

    monkeypatch.setattr(api, "sandbox_mode", lambda: api.SandboxMode("allow-list", "no bwrap"))
    app = workbench(quick_hello)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        titles = [n.title for n in app._notifications]
        assert titles.count("No OS sandbox") == 1


# The real CLI on a pseudo-terminal; at its first frame the probe lists what is imported.
PROBE = r"""
import os, sys
from forgetui.tui.app import ForgeApp

real = ForgeApp._display

def display(self, screen, renderable):
    real(self, screen, renderable)
    if renderable is not None and not self._batch_count:  # a frame held back is not written
        heavy = [m for m in ("tiktoken", "litellm", "forgetui.engine.step.runner",
                             "forgetui.engine.llm.factory") if m in sys.modules]
        with open(os.environ["PROBE_OUT"], "w") as out:
            out.write(",".join(heavy) or "none")
        os._exit(0)

ForgeApp._display = display
from forgetui.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_the_first_paint_comes_before_the_token_counter_and_the_model_layer(
    quick_hello: Path, tmp_path: Path, forge_home: Path
) -> None:
    from forgetui.engine.start.samples import init_sample

    task = init_sample(quick_hello, into=tmp_path / "run").path
    out = tmp_path / "imported.txt"
    env = {**os.environ, "PROBE_OUT": str(out), "TERM": "xterm-256color"}
    assert on_a_terminal([sys.executable, "-c", PROBE, "open", str(task)], env, ROOT) == 0
    assert out.read_text() == "none"
