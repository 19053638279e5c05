"""The escalation modal: answer a question (the escalation sample: the answer changes what the
agent writes next), approve / edit / reject pending actions, the modal's own checks, and its
snapshot."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static

from forgetui.engine.base.errors import ForgeError
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.folder.task_state import Escalation, PendingAction
from forgetui.engine.operator.replies import modify_answer
from forgetui.tui.app import ForgeApp
from forgetui.tui.modals.escalation import EscalationScreen

from .conftest import QUICK_CHECKS, SIZE, custom_sample, press, screen_text, settle, type_into

pytestmark = pytest.mark.anyio


def write(content: str) -> dict[str, Any]:
    return {"action": "write_file", "args": {"path": "hello.py", "content": content}}


@pytest.fixture
def approval_sample(tmp_path: Path) -> Path:
    """hello_world with approval: confirm_writes; the agent tries three different writes."""
    return custom_sample(
        tmp_path, "hello_world", "approval",
        task={"approval": "confirm_writes", "checks": QUICK_CHECKS},
        replay=[write("print('one')\n"), write("print('two')\n"),
                write('print("Hello, world!")\n')],
    )  # fmt: skip


def workspace_file(app: ForgeApp, name: str) -> Path:
    return TaskFolder.open(app.reader.path).workspace / name


def last_result(app: ForgeApp) -> Any:
    return TaskFolder.open(app.reader.path).log.tail(1)[0]


async def escalate(pilot: Any) -> None:
    await settle(pilot)
    await press(pilot, "s", "a")


async def test_answering_the_escalation_sample_in_french(
    workbench: Callable[..., ForgeApp],
) -> None:
    app = workbench("escalation")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert not app.workbench.applies("answer")
        await press(pilot, "s")
        assert "escalated" in screen_text(app).splitlines()[0]
        assert not app.workbench.applies("single_step")  # answer first
        await press(pilot, "a")
        assert isinstance(app.screen, EscalationScreen)
        text = screen_text(app)
        assert "Which language should greeting.py greet in?" in text
        assert "English" in text and "French" in text
        await press(pilot, "escape")  # closed without answering: still pending
        assert TaskFolder.open(app.reader.path).load_state().pending_escalation is not None

        await press(pilot, "a")
        await pilot.press(*"French")
        await press(pilot, "enter")
        assert not isinstance(app.screen, EscalationScreen)
        state = TaskFolder.open(app.reader.path).load_state()
        assert [d.answer for d in state.decisions] == ["French"]
        await press(pilot, "s")
        assert "Bonjour" in workspace_file(app, "greeting.py").read_text()


async def test_reject_edit_and_approve_pending_actions(
    workbench: Callable[..., ForgeApp], approval_sample: Path
) -> None:
    app = workbench(approval_sample)
    async with app.run_test(size=SIZE) as pilot:
        await escalate(pilot)
        assert not workspace_file(app, "hello.py").exists()  # waiting, not written
        text = screen_text(app)
        assert "an action needs approval" in text
        assert "write_file" in text and "path: hello.py" in text
        await type_into(pilot, "modify {not json")
        await press(pilot, "enter")
        assert isinstance(app.screen, EscalationScreen)  # refused in the modal
        assert "modify needs the new arguments as JSON" in screen_text(app)
        app.screen.query_one("#escalation-answer").value = "reject keep it simple"  # type: ignore[attr-defined]
        await press(pilot, "enter", "s")
        assert not workspace_file(app, "hello.py").exists()
        assert last_result(app).result == "refused"
        assert "keep it simple" in last_result(app).summary

        await press(pilot, "s", "a")  # the second write: edit its arguments
        await pilot.click("#edit")
        await settle(pilot)
        editor = app.screen.query_one("#modify-args")
        editor.text = '{"path": "hello.py", "content": "print(\\"edited\\")\\n"}'  # type: ignore[attr-defined]
        await pilot.click("#modify")
        await press(pilot, "s")
        assert workspace_file(app, "hello.py").read_text() == 'print("edited")\n'

        await press(pilot, "s", "a")  # the third write: approve it as it is
        await pilot.click("#approve")
        await press(pilot, "s")
        assert workspace_file(app, "hello.py").read_text() == 'print("Hello, world!")\n'
        assert (last_result(app).action, last_result(app).result) == ("write_file", "success")


class ModalHost(App[None]):
    def __init__(self, escalation: Escalation, phases: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.escalation = escalation
        self.phases = phases
        self.answers: list[str | None] = []

    def compose(self) -> ComposeResult:
        yield Static("host")

    def on_mount(self) -> None:
        self.push_screen(EscalationScreen(self.escalation, (), self.phases), self.answers.append)


async def test_an_option_button_answers_with_its_text() -> None:
    question = Escalation(reason="agent", question="Which [b]language[/b]?", step=1,
                          raised_at="t", options=["English", "[French]"])  # fmt: skip
    app = ModalHost(question)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert "Which [b]language[/b]?" in str(
            app.screen.query_one("#escalation-question").render()
        )
        await pilot.click("#option-1")
        await pilot.pause()
    assert app.answers == ["[French]"]


async def test_an_approval_answer_must_be_one_the_engine_takes() -> None:
    action = PendingAction(action="write_file", args={"path": "a"})
    pending = Escalation(
        reason="approval", question="Approve?", step=1, raised_at="t", pending_action=action
    )
    app = ModalHost(pending)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await type_into(pilot, "sure")
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, EscalationScreen)
        await pilot.click("#reject")
        await pilot.pause()
    assert app.answers == ["reject sure"]


def test_modify_answer_is_the_engine_form() -> None:
    assert modify_answer('{"path": "a.py"}') == 'modify {"path": "a.py"}'
    with pytest.raises(ForgeError, match="JSON object"):
        modify_answer("[1, 2]")


def test_escalation_modal_snapshot(snap_compare: Any, workbench: Callable[..., ForgeApp]) -> None:
    app = workbench("escalation")

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        await press(pilot, "s")
        app.clear_notifications()
        await press(pilot, "a")

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


async def test_the_modal_takes_a_take_over_answer_and_names_a_bad_phase() -> None:
    question = Escalation(reason="loop", question="Keeps repeating. How to proceed?", step=4,
                          raised_at="t", options=["continue", "abort"])  # fmt: skip

    app = ModalHost(question, ("planning", "execution", "verification"))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await type_into(pilot, "phase shipping")
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, EscalationScreen)  # refused, with the reason shown
        error = str(app.screen.query_one("#escalation-error").render())
        assert "planning, execution, verification" in error
        app.screen.query_one("#escalation-answer").value = ""  # type: ignore[attr-defined]
        await type_into(pilot, "mark failed: going nowhere")
        await pilot.press("enter")
        await pilot.pause()
    assert app.answers == ["mark failed: going nowhere"]


async def test_at_80x24_every_answer_shows_without_scrolling(
    workbench: Callable[..., ForgeApp],
) -> None:
    """A short terminal keeps the options, what led here and every take-over button on screen:
    the operator need not know the body scrolls."""
    app = workbench("escalation")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "s")
        app.clear_notifications()
        await press(pilot, "a")
        modal = app.screen
        assert isinstance(modal, EscalationScreen)
        body = modal.query_one("#escalation-body")
        assert body.max_scroll_y == 0
        shown = modal.find_widget  # raises when a widget is not on screen
        for selector in ("#option-0", "#option-1", "#takeover-human", "#takeover-complete",
                         "#takeover-failed", "#escalation-answer"):  # fmt: skip
            widget = modal.query_one(selector)
            assert shown(widget).region.area > 0, selector
            assert modal.region.contains_region(shown(widget).region), selector


def test_escalation_modal_snapshot_80x24(
    snap_compare: Any, workbench: Callable[..., ForgeApp]
) -> None:
    app = workbench("escalation")

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        await press(pilot, "s")
        app.clear_notifications()
        await press(pilot, "a")

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
