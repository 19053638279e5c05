"""`R` on an action-log row: the step's saved context to a model again, the recorded and the new
answer side by side, `a` adopts the new one as a fork."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from textual.widgets import Input

from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.history.rerun import Adoption, NewAnswer, RecordedAnswer, Rerun
from forgetui.engine.llm import ModelReply
from forgetui.tui.app import ForgeApp
from forgetui.tui.modals.rerun import RerunScreen
from forgetui.tui.modals.text_prompt import TextPromptScreen
from forgetui.tui.panes.action_log import LogView
from tests.fake_openai import FakeOpenAI, text_reply

from .conftest import SIZE, press, screen_text, settle

pytestmark = pytest.mark.anyio

WRITE_ANSWER = (
    "I'll write it.\n```yaml\naction: write_file\nargs:\n  path: hello.py\n"
    '  content: print("Hello, world!")\n```'
)


async def _rerun_newest_step(pilot: Any, model: str | None) -> None:
    """R on the newest log row, then the model typed over the prefilled one (None: keep it)."""
    app = pilot.app
    app.workbench.query_one(LogView).focus()
    await press(pilot, "R")
    assert isinstance(app.screen, TextPromptScreen), "the model prompt"
    if model is not None:
        app.screen.query_one(Input).value = model
    await press(pilot, "enter")
    assert isinstance(app.screen, RerunScreen)


async def test_R_asks_the_fake_server_and_shows_both_answers(
    workbench: Callable[..., ForgeApp], quick_hello: Path, fake_openai: FakeOpenAI,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    fake_openai.queue(text_reply(WRITE_ANSWER))
    app = workbench(quick_hello, engine="thread", api_base=fake_openai.url)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "s", "s")  # list_dir, read_file
        folder = app.workbench.reader.path
        before = len(TaskFolder.open(folder).log)
        app.workbench.query_one(LogView).focus()
        await press(pilot, "R")
        prompt = app.screen
        assert isinstance(prompt, TextPromptScreen)
        assert prompt.query_one(Input).value == "replay"  # the model that answered step 2
        prompt.query_one(Input).value = "openai/fake"
        await press(pilot, "enter")
        assert isinstance(app.screen, RerunScreen)
        text = screen_text(app)
        assert "recorded (replay)" in text and "new (openai/fake)" in text
        assert "different action" in text
        assert "read_file" in text and "write_file" in text
        assert "success: read test_hello.py" in text and "not executed" in text
        assert "120 in · 30 out tokens" in text  # the server's count
        assert "I'll write it." in text  # the raw answer
        [request] = fake_openai.requests
        assert request["messages"] == TaskFolder.open(folder).load_saved_context(2)["messages"]
        await press(pilot, "escape")
        assert not isinstance(app.screen, RerunScreen)
        assert len(TaskFolder.open(folder).log) == before  # nothing ran


async def test_a_adopts_the_new_action_in_a_fork(
    workbench: Callable[..., ForgeApp], quick_hello: Path, tmp_path: Path
) -> None:
    """Through the engine's child process (the default), with a script that answers otherwise."""
    app = workbench(quick_hello)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "s", "s")
        folder = app.workbench.reader.path
        script = tmp_path / "other.yaml"
        write = {"path": "hello.py", "content": 'print("Hello, world!")\n'}
        script.write_text(
            yaml.safe_dump([{"action": "list_dir", "args": {"path": "."}},
                            {"action": "write_file", "args": write}])
        )  # fmt: skip
        await _rerun_newest_step(pilot, f"replay:{script}")
        assert "different action" in screen_text(app)
        await press(pilot, "a")
        prompt = app.screen
        assert isinstance(prompt, TextPromptScreen)
        workspace = TaskFolder.open(folder).workspace
        assert prompt.query_one(Input).value == f"{workspace}-rerun-2"
        prompt.query_one(Input).value = str(tmp_path / "fork")
        await press(pilot, "enter")
        assert isinstance(app.screen, RerunScreen)
        assert "adopted: step 2 of the fork (write_file success" in screen_text(app)
        fork = TaskFolder.open(tmp_path / "fork" / ".agentforge/tasks/hello_world")
        assert fork.load_state().step == 2
        assert (tmp_path / "fork" / "hello.py").read_text() == write["content"]
        assert not (workspace / "hello.py").exists()  # the task itself is not changed
        assert TaskFolder.open(folder).load_state().step == 2


async def test_R_needs_a_step_row_and_says_why_a_step_cannot_rerun(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "s")
        folder = app.workbench.reader.path
        TaskFolder.open(folder).context_path(1).unlink()
        app.workbench.query_one(LogView).focus()
        await press(pilot, "R")
        assert not isinstance(app.screen, (RerunScreen, TextPromptScreen))
        said = [n.message for n in app._notifications]
        assert any("step 1 has no saved context to send" in m for m in said), said


def _canned(step: int = 2) -> tuple[RecordedAnswer, Rerun]:
    recorded = RecordedAnswer(
        model="replay", raw_response="action: read_file\nargs:\n  path: test_hello.py\n",
        action="read_file", args={"path": "test_hello.py"}, finish_reason=None,
        prompt_tokens=0, completion_tokens=0, cost=0.0, model_ms=0.4,
        result="success", summary="read test_hello.py lines 1-12 of 12",
    )  # fmt: skip
    reply = ModelReply("write_file", {"path": "hello.py"}, WRITE_ANSWER, None)
    new = NewAnswer(
        model="openai/gpt-4o-mini", raw_response=WRITE_ANSWER + "\n" + "More thoughts.\n" * 20,
        action="write_file", args={"path": "hello.py", "content": 'print("Hello, world!")'},
        finish_reason="stop", prompt_tokens=1249, completion_tokens=38, cost=0.0002,
        model_ms=1830.0, error=None, attempted=None, call_failed=False,
    )  # fmt: skip
    rerun = Rerun("/tmp/ws/.agentforge/tasks/hello_world", step, "execution", 1091, recorded,
                  new, reply)  # fmt: skip
    return recorded, rerun


def _refused(rerun: Rerun, dest: str) -> Adoption:
    raise AssertionError("not in this test")


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
def test_rerun_modal_snapshot(
    snap_compare: Any, workbench: Callable[..., ForgeApp], quick_hello: Path,
    size: tuple[int, int],
) -> None:  # fmt: skip
    app = workbench(quick_hello)
    recorded, rerun = _canned()

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        await press(pilot, "s", "s")  # the scene a re-run of step 2 opens on
        await settle(pilot)
        screen = RerunScreen(
            2, "replay", Path("/tmp/ws"), lambda: recorded, lambda model: rerun, _refused
        )
        await app.push_screen(screen)
        await settle(pilot)
        await press(pilot, "enter")  # the prefilled model
        app.clear_notifications()

    assert snap_compare(app, terminal_size=size, run_before=run_before)
