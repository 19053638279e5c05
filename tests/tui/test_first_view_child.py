"""The launcher's child counts the first view while the workbench starts: the workbench shows
its snapshot only when it is the one this process would count (same files), else counts here."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from forgetui.engine import api
from forgetui.engine.start.samples import init_sample
from forgetui.tui.app import ForgeApp
from forgetui.tui.first_view import FirstView
from forgetui.tui.snapshot import TaskReader, TaskSnapshot

from .conftest import SIZE, screen_text, settle


def _task(sample: Path, tmp_path: Path) -> Path:
    return init_sample(sample, into=tmp_path / "run").path


def _answered(early: FirstView) -> None:
    for _ in range(3000):  # the child imports the engine and counts: seconds on a busy machine
        if early.ready():
            return
        time.sleep(0.02)
    raise AssertionError("the first-view child never answered")


def _comparable(snapshot: TaskSnapshot) -> TaskSnapshot:
    # the tests show one sandbox in this process (conftest); the child asks the machine
    return replace(snapshot, sandbox=None)


def test_the_childs_first_view_is_the_real_count_and_no_count_is_made_here(
    quick_hello: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    task = _task(quick_hello, tmp_path)
    reader = TaskReader(task)
    reader.first_view = FirstView.start(task, None, None, {})
    _answered(reader.first_view)
    counted_here: list[int] = []
    real = TaskReader.snapshot

    def counting(self: TaskReader) -> TaskSnapshot:
        counted_here.append(1)
        return real(self)

    monkeypatch.setattr(TaskReader, "snapshot", counting)
    frames: list[TaskSnapshot] = []
    first = reader.first_snapshot(frames.append)
    assert counted_here == [] and frames == []  # the child's answer, whole, at once
    reader.close()
    assert not first.loading and first.context is not None
    assert first.context.total_tokens > 0 and all(s.tokens for s in first.context.sections)
    assert _comparable(first) == _comparable(real(reader))  # the meters are the real counts


def test_a_task_file_changed_after_the_child_read_it_is_counted_here(
    quick_hello: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    task = _task(quick_hello, tmp_path)
    reader = TaskReader(task)
    reader.first_view = FirstView.start(task, None, None, {})
    _answered(reader.first_view)
    folder = api.open_task(task)
    folder.acquire("another program")  # as the operator's note from another terminal
    try:
        api.add_note(folder, "edited meanwhile")
    finally:
        folder.release()
    counted_here: list[TaskSnapshot] = []
    real = TaskReader.snapshot

    def counting(self: TaskReader) -> TaskSnapshot:
        counted_here.append(real(self))
        return counted_here[-1]

    monkeypatch.setattr(TaskReader, "snapshot", counting)
    first = reader.first_snapshot(lambda frame: None)
    reader.close()
    assert len(counted_here) == 1 and first is counted_here[0]
    assert first.context is not None
    assert "edited meanwhile" in "\n".join(text for _role, text in first.context.messages)


def test_a_child_that_fails_leaves_the_count_to_this_process(
    quick_hello: Path, tmp_path: Path
) -> None:
    task = _task(quick_hello, tmp_path)
    reader = TaskReader(task)
    reader.first_view = FirstView.start(tmp_path / "not-a-task", None, None, {})
    frames: list[TaskSnapshot] = []
    first = reader.first_snapshot(frames.append)
    reader.close()
    assert first.context is not None and not first.loading
    assert first.goal.startswith("Write hello.py")


@pytest.mark.anyio
async def test_the_workbench_shows_the_childs_view_whole_at_its_first_load(
    workbench: Callable[..., ForgeApp], quick_hello: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = workbench(quick_hello)
    reader = app.reader
    reader.first_view = FirstView.start(reader.path, None, None, {})
    _answered(reader.first_view)
    read_here: list[str] = []
    real_frame, real_snapshot = TaskReader.frame, TaskReader.snapshot
    monkeypatch.setattr(TaskReader, "frame", lambda self: read_here.append("frame"))
    monkeypatch.setattr(TaskReader, "snapshot", lambda self: read_here.append("snapshot"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        shown = app.workbench.snapshot
        assert read_here == []  # no frame first, nothing counted in this process
        assert shown is not None and not shown.loading and shown.context is not None
        text = screen_text(app)
        assert "Write hello.py" in text and "next step preview" in text
        assert f"{shown.context.total_tokens:,}" in text
    reader.close()
    monkeypatch.setattr(TaskReader, "frame", real_frame)
    monkeypatch.setattr(TaskReader, "snapshot", real_snapshot)
    counted = reader.snapshot()
    assert counted.context is not None
    assert [(s.name, s.tokens) for s in shown.context.sections] == [
        (s.name, s.tokens) for s in counted.context.sections
    ]  # the meters on screen are the real next-context counts
    assert shown.context.total_tokens == counted.context.total_tokens
