"""A question waiting on the operator: the banner under the header until it is answered (an
escalation's question, an action waiting for approval), the bell once per question, the config
that turns the bell off or opens the answer modal at once, and the modal's take-over buttons."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from textual.app import App, ComposeResult
from textual.widgets import Input, Static

from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.folder.task_state import Escalation, PendingAction
from forgetui.tui.app import ForgeApp
from forgetui.tui.config import load_settings
from forgetui.tui.modals.escalation import HANDOVER_WHY, EscalationScreen, Handover
from forgetui.tui.question_banner import QuestionBanner

from .conftest import QUICK_CHECKS, SIZE, custom_sample, press, settle, type_into

pytestmark = pytest.mark.anyio


def write(content: str) -> dict[str, Any]:
    return {"action": "write_file", "args": {"path": "hello.py", "content": content}}


@pytest.fixture
def approval_sample(tmp_path: Path) -> Path:
    """hello_world with approval: confirm_writes; the agent tries two writes."""
    return custom_sample(
        tmp_path, "hello_world", "approval_banner",
        task={"approval": "confirm_writes", "checks": QUICK_CHECKS},
        replay=[write("print('one')\n"), write('print("Hello, world!")\n')],
    )  # fmt: skip


@pytest.fixture
def bells(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Each time the app rings the terminal bell."""
    rung: list[str] = []
    monkeypatch.setattr(App, "bell", lambda self: rung.append("bell"))
    return rung


def banner(app: ForgeApp) -> str | None:
    """The banner's text as shown, None while it is hidden."""
    widget = app.workbench.query_one(QuestionBanner)
    return str(widget.render()) if widget.display else None


def state(app: ForgeApp) -> Any:
    return TaskFolder.open(app.reader.path).load_state()


async def test_the_escalation_banner_shows_the_question_until_it_is_answered(
    workbench: Callable[..., ForgeApp],
) -> None:
    app = workbench("escalation")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert banner(app) is None  # no question yet
        await press(pilot, "s")
        shown = banner(app)
        assert shown is not None
        assert "Which language should greeting.py greet in?" in shown and "a answer" in shown
        await press(pilot, "a")
        await pilot.press(*"French")
        await press(pilot, "enter")
        assert [d.answer for d in state(app).decisions] == ["French"]
        assert banner(app) is None


async def test_a_step_waiting_for_approval_shows_in_the_banner(
    workbench: Callable[..., ForgeApp], approval_sample: Path
) -> None:
    app = workbench(approval_sample)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "s")
        shown = banner(app)
        assert shown is not None and "Approve write_file hello.py?" in shown
        assert "a answer" in shown
        assert app.workbench.query_one(QuestionBanner).region.height == 1  # on screen at 80x24


async def test_the_bell_rings_once_per_escalation_not_per_reload(
    workbench: Callable[..., ForgeApp], approval_sample: Path, bells: list[str]
) -> None:
    app = workbench(approval_sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert bells == []
        await press(pilot, "s")
        assert bells == ["bell"]
        app.workbench.request_reload(urgent=True)  # the same question read again
        await settle(pilot)
        assert bells == ["bell"]
        await press(pilot, "a")
        app.screen.query_one("#escalation-answer", Input).value = "reject not yet"
        await press(pilot, "enter")
        assert banner(app) is None
        await press(pilot, "s")  # the refused step is recorded
        assert banner(app) is None
        await press(pilot, "s")  # the next write asks again
        again = banner(app)
        assert again is not None and "Approve write_file hello.py?" in again
        assert bells == ["bell", "bell"]


async def test_the_bell_can_be_turned_off_in_the_config(
    workbench: Callable[..., ForgeApp], bells: list[str]
) -> None:
    app = workbench("escalation", bell=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "s")
        assert banner(app) is not None
        assert bells == []
        assert not isinstance(app.screen, EscalationScreen)  # the modal waits for `a`


async def test_open_questions_opens_the_answer_modal_when_a_question_arrives(
    workbench: Callable[..., ForgeApp],
) -> None:
    app = workbench("escalation", open_questions=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert not isinstance(app.screen, EscalationScreen)
        await press(pilot, "s")
        assert isinstance(app.screen, EscalationScreen)
        await pilot.press(*"French")
        await press(pilot, "enter")
        assert [d.answer for d in state(app).decisions] == ["French"]
        assert not isinstance(app.screen, EscalationScreen)


def test_bell_and_open_questions_come_from_the_user_config(forge_home: Path) -> None:
    env = {"FORGETUI_HOME": str(forge_home)}
    defaults = load_settings({}, env)
    assert (defaults.bell, defaults.open_questions) == (True, False)
    path = forge_home / "config" / "config.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump({"bell": False, "open_questions": True}))
    settings = load_settings({}, env)
    assert (settings.bell, settings.open_questions, settings.notices) == (False, True, ())


# -- the modal's take-over buttons -------------------------------------------------------------


class ModalHost(App[None]):
    def __init__(self, escalation: Escalation, phases: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.escalation = escalation
        self.phases = phases
        self.answers: list[str | Handover | None] = []

    def compose(self) -> ComposeResult:
        yield Static("host")

    def on_mount(self) -> None:
        self.push_screen(EscalationScreen(self.escalation, (), self.phases), self.answers.append)


LOOP = Escalation(reason="loop", question="Keeps repeating. How to proceed?", step=4,
                  raised_at="t", options=["continue", "abort"])  # fmt: skip
PHASES = ("planning", "execution", "verification")


async def answer_by_buttons(escalation: Escalation, *buttons: str, reason: str = "") -> Any:
    app = ModalHost(escalation, PHASES)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        app.screen.query_one("#escalation-answer", Input).value = reason
        for button in buttons:
            await pilot.click(button)
            await pilot.pause()
    assert len(app.answers) == 1
    return app.answers[0]


async def test_takeover_buttons_send_the_cli_takeover_answers() -> None:
    assert await answer_by_buttons(LOOP, "#takeover-complete") == "mark complete"
    failed = await answer_by_buttons(LOOP, "#takeover-failed", reason="wrong approach")
    assert failed == "mark failed: wrong approach"
    phase = await answer_by_buttons(LOOP, "#takeover-phase", "#phase-verification")
    assert phase == "phase verification"
    assert await answer_by_buttons(LOOP, "#takeover-human") == Handover(HANDOVER_WHY)


async def test_typing_the_actions_yourself_on_an_approval_refuses_the_waiting_action() -> None:
    action = PendingAction(action="write_file", args={"path": "a"})
    pending = Escalation(reason="approval", question="Approve write_file a?", step=1,
                         raised_at="t", pending_action=action)  # fmt: skip
    assert await answer_by_buttons(pending, "#takeover-human") == Handover(f"reject {HANDOVER_WHY}")


async def test_takeover_mark_failed_button_ends_the_escalated_task(
    workbench: Callable[..., ForgeApp],
) -> None:
    app = workbench("escalation")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "s", "a")
        app.screen.query_one("#escalation-answer", Input).value = "wrong approach"
        await pilot.click("#takeover-failed")
        await settle(pilot)
        assert state(app).status == "failed"
        assert banner(app) is None


async def test_takeover_typing_the_actions_switches_to_the_human_model(
    workbench: Callable[..., ForgeApp],
) -> None:
    app = workbench("escalation")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "s", "a")
        await pilot.click("#takeover-human")
        await settle(pilot)
        assert [d.answer for d in state(app).decisions] == [HANDOVER_WHY]
        assert app.workbench.session.human
        assert banner(app) is None
        await pilot.press("s")  # the next step asks the operator for the action
        await pilot.pause()
        assert app.screen.id == "human-action"
        await type_into(pilot, "list_dir path=.")
        await press(pilot, "enter")
        last = TaskFolder.open(app.reader.path).log.tail(1)[0]
        assert (last.action, last.result) == ("list_dir", "success")


def test_escalated_banner_snapshot_80x24(
    snap_compare: Any, workbench: Callable[..., ForgeApp]
) -> None:
    app = workbench("escalation")

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        await press(pilot, "s")
        app.clear_notifications()
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
