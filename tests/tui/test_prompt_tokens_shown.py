"""Token counts in the workbench: the header shows the server's count of the last
prompt beside forgetui's once a server reported one, at 80 columns too; the context pane shows
the tool schemas sent with the request as a line under available_actions."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from forgetui.engine import api
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.start.samples import init_sample
from forgetui.tui.app import ForgeApp
from forgetui.tui.header import StatusHeader
from forgetui.tui.panes.context_blocks import ContextSection
from forgetui.tui.snapshot import TaskReader
from tests.fake_openai import FakeOpenAI, tool_call_reply

from .conftest import SIZE, custom_sample, press, screen_text, settle

pytestmark = pytest.mark.anyio

MODEL = "openai/local-model"
NARROW = (80, 24)


def header_line(app: ForgeApp) -> str:
    return app.workbench.query_one(StatusHeader).render_line(0).text


@pytest.fixture(autouse=True)
def no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


@pytest.mark.parametrize("size", [NARROW, SIZE])
async def test_the_header_shows_the_servers_count_beside_forgetuis(
    workbench: Callable[..., ForgeApp],
    quick_hello: Path,
    fake_openai: FakeOpenAI,
    size: tuple[int, int],
) -> None:
    usage = {"prompt_tokens": 1126, "completion_tokens": 14}
    fake_openai.queue(tool_call_reply(("read_file", {"path": "test_hello.py"}), usage=usage))
    app = workbench(quick_hello, model=MODEL, api_base=fake_openai.url, engine="thread")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        assert "server" not in header_line(app)  # no model answered yet
        await press(pilot, "s")
        assert len(fake_openai.requests) == 1
        state = TaskFolder.open(app.reader.path).load_state()
        assert state.step == 1 and state.last_prompt_tokens == 1126
        line = header_line(app).rstrip()
        parts = line.split(" │ ")
        if size == NARROW:  # the phase gave way, and the pair its own count: still whole
            assert parts[1:5] == ["paused", "step 1", parts[3], "server 1,126"]
            assert parts[3].startswith("context ") and "phase" not in line
            assert len(line) <= NARROW[0]
        else:
            assert f" │ sent {state.last_context_tokens:,} · server 1,126 │ phase " in line


async def test_a_replay_step_shows_no_server_count(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello, engine="thread")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "s")
        assert TaskFolder.open(app.reader.path).load_state().step == 1
        assert "server" not in header_line(app)


async def test_the_tool_schemas_are_a_line_under_available_actions(
    workbench: Callable[..., ForgeApp], tmp_path: Path
) -> None:
    sample = custom_sample(
        tmp_path, "hello_world", "tools_on", task={"model_options": {"tools": "on"}}
    )
    app = workbench(sample, model=MODEL)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        expected = api.preview_context(TaskFolder.open(app.reader.path), MODEL)
        assert expected.tool_tokens > 800
        section = app.workbench.query_one("#section-available_actions", ContextSection)
        assert not section.has_class("-over-budget")  # its budget is for its own text
        text = screen_text(app)
        assert f"+ {expected.tool_tokens:,} tool schemas" in text
        assert f"total {expected.request_tokens:,} of 8,000 tokens" in text

    plain = workbench(sample, model="replay")
    async with plain.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "tool schemas" not in screen_text(plain)


def test_the_preview_counts_what_the_workbenchs_steps_send(tmp_path: Path) -> None:
    """The reader knows the server and the launch options: tools auto with a server are
    previewed as sent, and a flag's `tools: off` as not."""
    folder = init_sample("hello_world", tmp_path / "run")
    server = "http://127.0.0.1:9/v1"
    plain = TaskReader(folder.path, MODEL).snapshot().context
    with_server = TaskReader(folder.path, MODEL, api_base=server).snapshot().context
    flagged = TaskReader(
        folder.path, MODEL, api_base=server, model_overrides={"tools": "off"}
    ).snapshot()
    assert plain is not None and with_server is not None and flagged.context is not None
    assert plain.tool_tokens == 0 and flagged.context.tool_tokens == 0
    assert with_server.tool_tokens > 800
    expected = api.preview_context(folder, MODEL, api_base=server)
    assert with_server.total_tokens == expected.request_tokens  # the schemas are in the total
