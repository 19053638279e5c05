"""The verification pane: each check, pass or fail, the step it last changed, the ready flag;
and `enter` on a check, its full output."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest
from textual.content import Content

from forgetui.tui.app import ForgeApp
from forgetui.tui.markup import fmt
from forgetui.tui.modals.check_detail import CheckDetailScreen
from forgetui.tui.panes.verification import (
    CheckList,
    VerificationPane,
    check_lines,
    ready_lines,
)
from forgetui.tui.snapshot import CheckView, TaskSnapshot

from .conftest import SIZE, custom_sample, press, screen_text, settle


def verification_content(snapshot: TaskSnapshot) -> Content:
    """The whole pane as text, without a cursor."""
    out: list[Content] = []
    if not snapshot.checks:
        out.append(fmt("[$foreground-muted](this task defines no checks)[/]"))
    width = max((len(check.name) for check in snapshot.checks), default=0)
    for check in snapshot.checks:
        out += check_lines(check, width)
    return Content("\n").join(out + ready_lines(snapshot.ready))


def pane_text(app: ForgeApp) -> str:
    return str(app.workbench.query_one(CheckList).render())


@pytest.mark.anyio
async def test_checks_turn_green_at_the_step_that_changed_them(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        text = pane_text(app)  # the checks ran when the task was laid out: step 0
        assert "fail script-exists" in text and "hello.py does not exist" in text
        assert "since step" not in text and "not run yet" not in text
        assert "ready for completion: not yet" in text
        await press(pilot, "s", "s", "s")
        text = pane_text(app)
        assert "pass script-exists  since step 3" in text
        assert "pass runs           since step 3" in text
        assert "ready for completion: yes" in text
        assert app.workbench.query_one(VerificationPane).has_class("-ready")


def test_test_runner_timings_are_not_shown() -> None:
    snapshot = SimpleNamespace(
        checks=(CheckView("tests", True, "exit 0: 1 passed in 0.52s", 3),),
        ready=True,
    )
    text = verification_content(snapshot).plain  # type: ignore[arg-type]
    assert "1 passed" in text
    assert re.search(r" in \d+(\.\d+)?s", text) is None


def write_hello(content: str) -> dict[str, object]:
    return {"action": "write_file", "args": {"path": "hello.py", "content": content}}


@pytest.mark.anyio
async def test_enter_on_a_failing_check_shows_its_whole_output(
    workbench: Callable[..., ForgeApp], tmp_path: Path
) -> None:
    # the real hello_world checks: pytest, whose summary line is all state.yaml keeps; they
    # run after the write (step 1) and again when the agent asks (step 2)
    replay = [write_hello('print("Hello")\n'), {"action": "run_check", "args": {}}]
    sample = custom_sample(tmp_path, "hello_world", "wrong_greeting", replay=replay)
    app = workbench(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "s", "s")
        text = pane_text(app)
        assert "fail tests          \n" in text  # failing since the layout: no step changed it
        assert "pass script-exists  since step 1" in text
        assert "exit 1: 1 failed" in text
        assert "test_prints_greeting" not in text  # the pane shows the first line only
        app.workbench.query_one(CheckList).focus()
        await press(pilot, "down", "up", "enter")  # the cursor goes and comes back
        assert isinstance(app.screen, CheckDetailScreen)
        text = screen_text(app)
        assert "Check tests" in text
        assert "state fail" in text and "fail since" not in text and "kind command" in text
        assert "pytest -q test_hello.py" in text
        assert 'proves running `python hello.py` prints exactly "Hello, world!"' in text
        assert "Output of the run at step 2" in text
        assert "FAILED test_hello.py::test_prints_greeting" in text
        assert "AssertionError" in text
        await press(pilot, "escape")
        assert not isinstance(app.screen, CheckDetailScreen)
        # the second check, with down: a file check lists what it found
        await press(pilot, "down", "enter")
        text = screen_text(app)
        assert "Check script-exists" in text and "runs hello.py exists" in text
        await press(pilot, "escape")
        assert app.workbench.snapshot is not None and app.workbench.snapshot.step == 2


@pytest.mark.anyio
async def test_a_regex_check_lists_every_offending_line(
    workbench: Callable[..., ForgeApp], tmp_path: Path
) -> None:
    checks = [{"name": "no-prints", "kind": "regex", "path": "hello.py",
               "must_not_match": "print"}]  # fmt: skip
    script = "".join(f'print("line {n}")\n' for n in range(1, 9))
    sample = custom_sample(
        tmp_path, "hello_world", "prints", task={"checks": checks}, replay=[write_hello(script)]
    )
    app = workbench(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "s")
        assert "/print/ must not match, found:" in pane_text(app)
        app.workbench.query_one(CheckList).focus()
        await press(pilot, "enter")
        text = screen_text(app)
        assert "runs hello.py: must not match /print/" in text
        # the summary in state.yaml stops at five; the output has all eight
        assert 'hello.py:8: print("line 8")' in text and "and 3 more" not in text


@pytest.mark.anyio
async def test_enter_before_any_check_ran_shows_what_the_check_will_run(
    workbench: Callable[..., ForgeApp], quick_hello: Path, tmp_path: Path
) -> None:
    # a task written by hand in a repository: laid out when first opened, its checks not run
    # (`new` and `init` run them as step 0)
    workspace = tmp_path / "by_hand"
    shutil.copytree(quick_hello / "workspace", workspace)
    task = workspace / ".agentforge" / "tasks" / "hello_world"
    task.mkdir(parents=True)
    for name in ("task.yaml", "replay.yaml"):
        shutil.copy(quick_hello / name, task / name)
    app = workbench(task)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.workbench.query_one(CheckList).focus()
        await press(pilot, "end", "enter")
        assert isinstance(app.screen, CheckDetailScreen)
        text = screen_text(app)
        assert "Check runs" in text and "state not run yet" in text
        assert "runs python hello.py" in text
        assert "(not run yet)" in text and "loading" not in text
        await press(pilot, "escape")
        assert not isinstance(app.screen, CheckDetailScreen)
        assert app.workbench.snapshot is not None and app.workbench.snapshot.step == 0
        assert "not run yet" in pane_text(app)


@pytest.mark.anyio
async def test_enter_does_nothing_in_a_task_without_checks(
    workbench: Callable[..., ForgeApp], tmp_path: Path
) -> None:
    sample = custom_sample(tmp_path, "hello_world", "no_checks", task={"checks": []})
    app = workbench(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.workbench.query_one(CheckList).focus()
        await press(pilot, "down", "enter")
        assert app.screen is app.workbench
        assert "(this task defines no checks)" in pane_text(app)
        assert not app.workbench.applies("open_detail")


@pytest.mark.anyio
async def test_the_cursor_scrolls_into_view_in_a_short_pane(
    workbench: Callable[..., ForgeApp], tmp_path: Path
) -> None:
    checks = [{"name": f"check-{n}", "kind": "file_exists", "path": f"f{n}.txt"} for n in range(8)]
    sample = custom_sample(tmp_path, "hello_world", "many_checks", task={"checks": checks})
    app = workbench(sample)
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot)
        assert "check-7" not in screen_text(app)
        app.workbench.query_one(CheckList).focus()
        await press(pilot, "end")
        assert "check-7" in screen_text(app)
        await press(pilot, "enter")
        assert "Check check-7" in screen_text(app)
