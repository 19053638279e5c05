"""The workbench at any terminal size: three columns when wide, one top pane at a time (tabs)
when narrow, a zoomed pane on `z`, a notice when the terminal is too small; snapshots at
80x24, 120x40 and 160x48."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from forgetui.tui.app import ForgeApp
from forgetui.tui.footer import KeyFooter
from forgetui.tui.layout import Layout

from .conftest import press, screen_text, settle

pytestmark = pytest.mark.anyio
SIZES = [(80, 24), (120, 40), (160, 48)]


@pytest.mark.parametrize(
    ("layout", "mode", "shown"),
    [
        (Layout(160, 48), "columns", {"context", "memory", "task", "checks", "log"}),
        (Layout(120, 40), "columns", {"context", "memory", "task", "checks", "log"}),
        (Layout(119, 40), "tabs", {"context", "log"}),
        (Layout(80, 24, tab="memory"), "tabs", {"memory", "log"}),
        (Layout(80, 24, tab="log"), "tabs", {"context", "log"}),  # the log is not a tab
        (Layout(80, 24, zoomed="checks"), "tabs", {"checks"}),
        (Layout(200, 60, zoomed="log"), "columns", {"log"}),
        (Layout(59, 40), "too-small", set()),
        (Layout(160, 19, zoomed="context"), "too-small", set()),
        (Layout(60, 20), "tabs", {"context", "log"}),
    ],
)  # fmt: skip
def test_which_panes_show(layout: Layout, mode: str, shown: set[str]) -> None:
    assert layout.mode == mode
    assert layout.shown == shown


def visible(app: ForgeApp) -> set[str]:
    """The panes a user can see: on screen, with some width."""
    screen = app.workbench
    found = set()
    for pane_id in ("context", "memory", "task-frame", "verification", "action-log"):
        widget = screen.query_one(f"#{pane_id}")
        if widget.display and widget.region.width > 0 and widget.region.height > 0:
            found.add(pane_id)
    return found


async def test_a_narrow_terminal_shows_one_pane_at_a_time_from_tabs(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "s")
        assert visible(app) == {"context", "action-log"}
        context = app.workbench.query_one("#context")
        assert context.region.width == 80
        first = screen_text(app).splitlines()[1]
        assert "1 context" in first and "2 memory 1" in first and "4 verification" in first
        # the footer keeps help and quit whatever else gives way
        footer = screen_text(app).splitlines()[23]
        assert "? help" in footer and "q quit" in footer and "s step" in footer

        await press(pilot, "2")
        assert visible(app) == {"memory", "action-log"}
        assert "list_dir: listed ." in screen_text(app)
        assert app.workbench.focused is app.workbench.query_one("#memory-list")
        await press(pilot, "p")  # the memory keys act on the pane in view
        assert "1 item, 1 pinned" in screen_text(app)

        await press(pilot, "4")
        assert visible(app) == {"verification", "action-log"}
        await press(pilot, "1")
        assert visible(app) == {"context", "action-log"}


async def test_clicking_a_tab_shows_its_pane(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        line = screen_text(app).splitlines()[1]
        await pilot.click("#pane-tabs", offset=(line.index("3 task") + 2, 0))
        await settle(pilot)
        assert visible(app) == {"task-frame", "action-log"}
        assert "Success criteria" in screen_text(app)


@pytest.mark.parametrize("size", [(160, 48), (80, 24)])
async def test_z_zooms_the_focused_pane_and_back(
    workbench: Callable[..., ForgeApp], quick_hello: Path, size: tuple[int, int]
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        before = visible(app)
        await press(pilot, "5", "z")  # the action log
        assert visible(app) == {"action-log"}
        log = app.workbench.query_one("#action-log")
        assert log.region.width == size[0] and log.region.height >= size[1] - 3
        await press(pilot, "1")  # another pane's key moves the zoom to it
        assert visible(app) == {"context"}
        await press(pilot, "z")
        assert visible(app) == before


async def test_a_terminal_under_60x20_says_so_and_recovers(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=(50, 16)) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "terminal too small: 50x16 (need 60x20)" in text
        assert visible(app) == set()
        await pilot.resize_terminal(100, 30)
        await settle(pilot)
        assert "too small" not in screen_text(app)
        assert visible(app) == {"context", "action-log"}


async def test_the_footer_never_loses_help_and_quit(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(pilot)
        footer = app.workbench.query_one(KeyFooter)
        shown = {key.binding_id for key in footer.shown_keys}
        assert {"help", "quit"} <= shown
        assert sum(key.width for key in footer.shown_keys) <= 60


async def test_the_escalation_answer_box_shows_at_80x24(
    workbench: Callable[..., ForgeApp],
) -> None:
    app = workbench("escalation")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "s")
        await press(pilot, "a")
        answer = app.screen.query_one("#escalation-answer")
        assert answer.region.bottom <= 24 and answer.region.height == 3
        assert "enter answers" in screen_text(app)


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_workbench_snapshot(
    snap_compare: Any, workbench: Callable[..., ForgeApp], quick_hello: Path,
    size: tuple[int, int],
) -> None:  # fmt: skip
    """After two steps: memory, log and verification have something to show."""
    app = workbench(quick_hello)

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        await press(pilot, "s", "s")
        app.clear_notifications()
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)


async def test_a_key_that_does_not_apply_says_why(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await press(pilot, "a")
        messages = [n.message for n in app._notifications]
        assert "no question is waiting for an answer" in messages
        await press(pilot, "x")
        messages = [n.message for n in app._notifications]
        assert any("select a working-memory item" in message for message in messages)


async def test_tab_goes_through_the_panes_in_screen_order_and_the_modals_controls(
    workbench: Callable[..., ForgeApp],
) -> None:
    app = workbench("escalation")
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        panes = []
        for _ in range(12):
            await pilot.press("tab")
            focused = app.workbench.focused
            assert focused is not None
            pane = app.workbench.pane_of(focused)
            if not panes or panes[-1] != pane:
                panes.append(pane)
        assert panes[:5] == ["task", "checks", "context", "memory", "log"]

        await press(pilot, "s", "a")
        # the question's options, the take-over buttons, then the answer box
        expected = ["option-0", "option-1", "takeover-human", "takeover-complete",
                    "takeover-failed", "takeover-phase", "escalation-answer"]  # fmt: skip
        seen = []
        for _ in expected:
            await pilot.press("tab")
            focused = app.screen.focused
            assert focused is not None and focused.region.height > 0
            seen.append(focused.id)
        assert seen == expected
