"""The workbench's start: the command line loads no file model before a command runs, the child
counting the first view starts before the launcher reads anything and finds the task itself,
a view it counted before the mount is the first paint, and the start's heap is collected once,
after that view."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from forgetui.engine.start.samples import init_sample
from forgetui.tui.app import ForgeApp
from forgetui.tui.first_view import FirstView
from forgetui.tui.snapshot import TaskReader

from .conftest import SIZE, screen_text, settle

NO_FLAGS = {"model": None, "api_base": None, "theme": None, "model_flags": None}


def _answered(early: FirstView) -> None:
    for _ in range(3000):  # the child imports the engine and counts: seconds on a busy machine
        if early.ready():
            return
        time.sleep(0.02)
    raise AssertionError("the first-view child never answered")


def test_the_command_line_loads_no_file_model_before_a_command_runs() -> None:
    """What every command, and the workbench before its child starts, pays first."""
    code = (
        "import sys, forgetui.cli\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'pydantic'"
        " or m.startswith('forgetui.engine.folder')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_early_child_finds_the_task_and_counts_it_as_the_launcher_would(
    quick_hello: Path, tmp_path: Path, forge_home: Path
) -> None:
    task = init_sample(quick_hello, into=tmp_path / "run").path
    workspace = task.parent.parent.parent  # `forgetui open WORKSPACE`: its one task
    early = FirstView.early(str(workspace), NO_FLAGS)
    reader = TaskReader(task)
    early.expect(reader.path, None, None, {})
    _answered(early)
    shown = early.take(reader.path)
    early.close()
    assert shown is not None and not shown.loading and shown.context is not None
    counted = reader.snapshot()
    assert counted.context is not None
    assert shown.context.total_tokens == counted.context.total_tokens > 0


def test_the_early_childs_count_is_not_used_for_other_arguments(
    quick_hello: Path, tmp_path: Path, forge_home: Path
) -> None:
    """A model named at launch, or other bounds, count differently: counted here then."""
    task = init_sample(quick_hello, into=tmp_path / "run").path
    early = FirstView.early(str(task), NO_FLAGS)
    early.expect(task, "replay", None, {"max_output_tokens": 64})
    _answered(early)
    assert early.take(task) is None
    assert not early.ready()  # nothing to wait for: the reader shows the frame, then counts
    early.close()


def test_a_path_that_is_no_single_task_leaves_the_early_child_nothing_to_count(
    forge_home: Path,
) -> None:
    early = FirstView.early("hello_world", NO_FLAGS)  # a sample: the launcher copies it first
    _answered(early)
    assert early.take(Path("/nowhere")) is None
    early.close()


@pytest.mark.anyio
async def test_a_view_counted_before_the_mount_is_the_first_paint(
    workbench: Callable[..., ForgeApp], quick_hello: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = workbench(quick_hello)
    reader = app.reader
    reader.first_view = FirstView.start(reader.path, None, None, {})
    _answered(reader.first_view)
    painted: list[str] = []
    real = ForgeApp._display

    def display(self: ForgeApp, screen: Any, renderable: Any) -> None:
        real(self, screen, renderable)
        if renderable is not None:
            shown = self.current_workbench.snapshot if self.current_workbench else None
            painted.append("empty" if shown is None else "frame" if shown.loading else "whole")

    monkeypatch.setattr(ForgeApp, "_display", display)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        shown = app.workbench.snapshot
        assert shown is not None and shown.context is not None
        assert f"{shown.context.total_tokens:,}" in screen_text(app)  # the meters, counted
        await pilot.press("q")
    reader.close()
    assert painted[0] == "whole"  # no empty panes painted first, nor a frame


def test_the_start_is_not_collected_until_the_first_view_then_settled() -> None:
    code = (
        "import gc, time\n"
        "from forgetui.tui import heap\n"
        "heap.hold()\n"
        "held = not gc.isenabled()\n"
        "heap.settle_once()\n"
        "print(held, gc.isenabled(), gc.get_freeze_count() > 0)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "True", "True"]


def test_collections_resume_even_if_no_complete_view_comes() -> None:
    code = (
        "import gc, time\n"
        "from forgetui.tui import heap\n"
        "heap.HOLD_LIMIT_S = 0.05\n"
        "heap.hold()\n"
        "held = not gc.isenabled()\n"
        "time.sleep(1.0)\n"
        "print(held, gc.isenabled(), heap.settled())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "True", "False"]
