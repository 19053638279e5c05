"""One way to move: Tab and shift+Tab go pane to pane in screen order in every layout (never
into a widget inside a pane), arrows move inside the focused pane (the context pane's sections
too), escape backs out of the innermost thing open, the focused pane's title is marked beyond
its border's colour, and the footer offers the focused pane's keys and the global ones."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from forgetui.tui.app import ForgeApp
from forgetui.tui.footer import KeyFooter
from forgetui.tui.layout import WIDGET_ID
from forgetui.tui.pane_title import FOCUS_MARK
from forgetui.tui.panes.context import ContextPane
from forgetui.tui.panes.context_blocks import Expandable
from forgetui.tui.panes.memory import MemoryList
from forgetui.tui.panes.tabs import PaneTabs

from .conftest import QUICK_CHECKS, SIZE, custom_sample, press, screen_text, settle

pytestmark = pytest.mark.anyio


def focused_pane(app: ForgeApp) -> Any:
    focused = app.workbench.focused
    return app.workbench.pane_of(focused) if focused is not None else None


async def tab_through(pilot: Any, key: str, times: int) -> list[Any]:
    seen = []
    for _ in range(times):
        await press(pilot, key)
        seen.append(focused_pane(pilot.app))
    return seen


def offered(app: ForgeApp) -> set[str]:
    """What the footer offers now, before it fits the width."""
    return {key.description for key in app.workbench.query_one(KeyFooter).keys}


def shown(app: ForgeApp) -> set[str]:
    return {key.description for key in app.workbench.query_one(KeyFooter).shown_keys}


async def test_tab_goes_once_through_each_pane_in_screen_order(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert focused_pane(app) == "log"
        order = ["task", "checks", "context", "memory", "log"]
        # one press a pane (the context pane's sections are not stops), round the end
        assert await tab_through(pilot, "tab", 6) == [*order, "task"]
        assert await tab_through(pilot, "shift+tab", 2) == ["log", "memory"]
        await press(pilot, "shift+tab")  # into the context pane: on a section, not past them
        assert isinstance(app.workbench.focused, Expandable)


async def test_tab_in_a_narrow_terminal_follows_the_tab_bar_then_the_log(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        tabs = app.workbench.query_one(PaneTabs)
        seen = []
        for _ in range(5):
            await press(pilot, "tab")
            seen.append((focused_pane(app), tabs.selected))
            # the tab is drawn as the focused title is only while its pane has the keys
            assert tabs.active == (focused_pane(app) != "log")
        assert seen == [("context", "context"), ("memory", "memory"), ("task", "task"),
                        ("checks", "checks"), ("log", "checks")]  # fmt: skip
        for pane, _tab in seen:  # every pane Tab stopped at was on screen
            assert pane is not None
        await press(pilot, "shift+tab")
        assert (focused_pane(app), tabs.selected) == ("checks", "checks")


async def test_tab_moves_the_zoom_and_escape_leaves_it(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "z")
        assert app.workbench.arranger.layout.zoomed == "log"
        await press(pilot, "tab")  # never stuck on the one pane shown: the zoom moves
        assert app.workbench.arranger.layout.zoomed == "task"
        assert focused_pane(app) == "task"
        await press(pilot, "escape")
        assert app.workbench.arranger.layout.zoomed is None
        assert focused_pane(app) == "task"


async def test_arrows_move_between_context_sections_and_escape_collapses(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "3")  # digit 1 is the context pane; 3 the task: Tab on to context
        await press(pilot, "tab", "tab")
        context = app.workbench.query_one(ContextPane)
        names = [block.id for block in context.blocks()]
        assert app.workbench.focused is context.blocks()[0]
        await press(pilot, "down", "down")
        assert app.workbench.focused is not None and app.workbench.focused.id == names[2]
        await press(pilot, "end")
        assert app.workbench.focused.id == names[-1]
        await press(pilot, "home", "down", "enter")
        block = context.focused_block()
        assert block is not None and block.id == names[1] and block.expanded
        await press(pilot, "escape")  # the expanded section collapses: nothing else happens
        assert not block.expanded and app.workbench.focused is block
        await press(pilot, "down", "enter", "up")
        await press(pilot, "escape")  # on a collapsed one: the expanded ones collapse
        assert not any(each.expanded for each in context.blocks())
        # leaving and coming back: the section last visited
        await press(pilot, "tab", "shift+tab")
        assert app.workbench.focused is block


def many_notes(tmp_path: Path, count: int) -> Path:
    """quick_hello whose working memory holds `count` notes: more than the pane shows."""
    sample = custom_sample(tmp_path, "hello_world", "many", task={"checks": QUICK_CHECKS})
    items = [{"type": "note", "key": f"n{n}", "step": 0, "content": f"note {n}", "pinned": True}
             for n in range(count)]  # fmt: skip
    memory = {"max_items": count + 5, "items": items}
    (sample / "working_memory.yaml").write_text(yaml.safe_dump(memory))
    return sample


async def test_page_keys_move_a_page_in_the_memory_list(
    workbench: Callable[..., ForgeApp], tmp_path: Path
) -> None:
    app = workbench(many_notes(tmp_path, 40))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        memory = app.workbench.query_one(MemoryList)
        assert len(memory.rows) == 40
        await press(pilot, "2")
        assert app.workbench.focused is memory and memory.cursor == 0
        await press(pilot, "pagedown")
        page = memory.cursor
        assert 5 < page < 39  # a page: more than a row, less than the whole list
        await press(pilot, "pageup")
        assert memory.cursor == 0
        await press(pilot, "end")  # the last item, scrolled into view
        assert memory.cursor == 39
        assert "note 39" in screen_text(app)
        await press(pilot, "pageup")
        assert memory.cursor == 39 - page
        await press(pilot, "home")
        assert memory.cursor == 0 and "note 0 " in screen_text(app)


async def test_the_focused_pane_title_is_marked_and_the_footer_offers_its_keys(
    workbench: Callable[..., ForgeApp], tmp_path: Path
) -> None:
    app = workbench(many_notes(tmp_path, 3))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        wb = app.workbench

        def marked() -> set[str]:
            return {
                pane for pane, widget_id in WIDGET_ID.items()
                if (wb.query_one(f"#{widget_id}").border_title or "").startswith(FOCUS_MARK)
            }  # fmt: skip

        assert marked() == {"log"} and wb.query_one("#action-log").has_class("-focused")
        assert f"{FOCUS_MARK}action log" in screen_text(app)
        assert {"filter", "go to", "open", "step", "run/pause", "help"} <= offered(app)
        assert not offered(app) & {"pin", "evict", "edit", "earlier"}

        await press(pilot, "2")
        assert marked() == {"memory"}
        # at 80 columns the pane's keys and run, step, help and quit all show
        assert {"pin", "evict", "edit", "open", "step", "run/pause", "help", "quit"} <= shown(app)
        assert not offered(app) & {"filter", "go to"}

        await press(pilot, "s", "1")
        assert marked() == {"context"}
        assert {"open", "earlier", "step", "help", "quit"} <= shown(app)
        assert "later" in offered(app)  # dimmed on the preview: it gave way at 80 columns
        # the context pane's title changes with what it shows; the mark stays on it
        await press(pilot, "left_square_bracket")
        title = wb.query_one(ContextPane).border_title or ""
        assert marked() == {"context"}
        assert title.startswith(f"{FOCUS_MARK}compiled context: as sent at step 1")
        footer = wb.query_one(KeyFooter)
        assert footer.content_size.width == 80 and "│" in screen_text(app).splitlines()[-1]
        await press(pilot, "x", "y")  # a memory key pressed elsewhere still works
        assert "n0" not in {row.ref for row in wb.query_one(MemoryList).rows}


async def test_escape_closes_every_dialog_back_to_the_pane_it_left(
    workbench: Callable[..., ForgeApp], tmp_path: Path
) -> None:
    app = workbench(many_notes(tmp_path, 2))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "s")  # a step: its row opens a record's detail
        # help, the note prompt, limits, the inbox, the model, a memory item (and its editor),
        # a check, a record, rewind, re-run
        openers = [("5", "question_mark"), ("5", "n"), ("5", "l"), ("5", "i"), ("5", "m"),
                   ("2", "enter"), ("2", "e"), ("4", "enter"), ("5", "enter"), ("5", "r"),
                   ("5", "R")]  # fmt: skip
        for pane_key, key in openers:
            await press(pilot, pane_key)
            pane = focused_pane(app)
            await press(pilot, key)
            assert app.screen is not app.workbench, key
            await press(pilot, "escape")
            assert app.screen is app.workbench, key
            assert focused_pane(app) == pane
