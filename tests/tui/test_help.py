"""One command table feeds the footer, the help screen and the palette: every core key (run,
step, answer, pin, evict, note, detail, theme, help, quit, palette) is in the footer of the pane
it belongs to (the global ones in every pane's), help lists them all, the palette offers only
what applies now, and a user keymap remaps a binding by its id."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from forgetui.tui.app import ForgeApp
from forgetui.tui.commands import COMMANDS
from forgetui.tui.footer import KeyFooter
from forgetui.tui.modals.escalation import EscalationScreen
from forgetui.tui.modals.help import HelpScreen

from .conftest import SIZE, press, screen_text, settle, type_into

pytestmark = pytest.mark.anyio

DOCUMENTED_KEYS = {"space", "s", "a", "p", "x", "n", "enter", "t", "?", "q", "^p"}


def palette_titles(app: ForgeApp) -> set[str]:
    return {command.title for command in app.get_system_commands(app.screen)}


async def test_footer_holds_every_key_and_dims_what_does_not_apply(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    app = workbench(quick_hello)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        footer = app.workbench.query_one(KeyFooter)
        enabled = {key.description: key.enabled for key in footer.keys}
        assert enabled["step"] and enabled["run/pause"] and enabled["note"]
        assert not enabled["answer"]  # no escalation now
        assert "space run/pause" in screen_text(app).splitlines()[-1]
        shown = {footer.palette.display}  # type: ignore[union-attr]
        for pane in "12345":  # each pane's footer offers its keys, with the global ones
            await press(pilot, pane)
            shown |= {key.display for key in footer.keys}
        assert shown >= DOCUMENTED_KEYS

        await press(pilot, "question_mark")
        assert isinstance(app.screen, HelpScreen)
        pages = []  # help scrolls: what a user reads paging down to its end
        for _ in range(8):
            pages.append(screen_text(app))
            await press(pilot, "pagedown")
        text = "\n".join(pages)
        for command in COMMANDS:
            if command.action == "show_pane":  # one entry for the five pane keys
                assert f"{command.key} {command.description}" in text
            else:
                assert command.title in text
        assert "Show a pane" in text
        answer = next(line for line in text.splitlines() if "Answer the escalation" in line)
        assert "(not now)" in answer  # no escalation: the key is listed, marked as not now
        await press(pilot, "escape")
        assert not isinstance(app.screen, HelpScreen)


async def test_palette_offers_only_what_applies_now(
    workbench: Callable[..., ForgeApp],
) -> None:
    app = workbench("escalation")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        titles = palette_titles(app)
        assert {"Single step", "Run / pause", "Add a note", "Next theme", "Quit"} <= titles
        assert "Answer the escalation" not in titles
        assert "Later context" not in titles
        await press(pilot, "s")  # escalates
        titles = palette_titles(app)
        assert "Answer the escalation" in titles
        assert "Single step" not in titles
        assert "Earlier context" in titles


async def test_a_keymap_remaps_a_command_by_id(workbench: Callable[..., ForgeApp]) -> None:
    app = workbench("escalation", keymap={"step": "j"})
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "s")
        assert app.workbench.snapshot is not None and app.workbench.snapshot.step == 0
        await press(pilot, "j")
        assert app.workbench.snapshot.step == 1
        await press(pilot, "ctrl+p")  # the palette runs commands too
        await type_into(pilot, "answer")
        await press(pilot, "enter")
        assert isinstance(app.screen, EscalationScreen)
        footer = app.workbench.query_one(KeyFooter)
        assert "j" in {key.display for key in footer.keys}


def dialog_text(app: ForgeApp) -> str:
    """The help dialog's lines only (between its borders), stripped and run together, so a
    path the dialog wraps reads back whole."""
    return "".join(
        line.split("█")[1].strip() for line in screen_text(app).splitlines() if line.count("█") >= 2
    )


async def test_help_names_the_task_folder_being_worked_on(
    workbench: Callable[..., ForgeApp], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = workbench("hello_world")  # a sample opens as a copy in runs/: help says which one
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        monkeypatch.setenv("HOME", str(tmp_path / "elsewhere"))
        app.push_screen(HelpScreen(app.settings.keymap, app.command_applies, app.reader.path))
        await settle(pilot)
        # the dialog may wrap a long path onto its own line: compare without the spaces
        said = f"task folder {app.reader.path}".replace(" ", "")
        assert said in dialog_text(app).replace(" ", "")
        await press(pilot, "escape")

        monkeypatch.setenv("HOME", str(tmp_path))  # under home it is shown from ~
        app.push_screen(HelpScreen(app.settings.keymap, app.command_applies, app.reader.path))
        await settle(pilot)
        shown = f"~/{app.reader.path.relative_to(tmp_path)}"
        assert shown.startswith("~/home/runs/hello_world-")
        assert shown in screen_text(app)  # on one line, unbroken


async def test_help_without_a_task_path_has_no_folder_line(
    workbench: Callable[..., ForgeApp],
) -> None:
    app = workbench("hello_world")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.push_screen(HelpScreen(app.settings.keymap, app.command_applies))
        await settle(pilot)
        assert "task folder" not in screen_text(app)
