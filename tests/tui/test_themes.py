"""Themes as data: themes/*.yaml validated into Textual themes with the meter variables; `t`
cycles them and the choice persists; a broken or unknown theme falls back with one
notification; a snapshot of the workbench in each bundled theme."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from forgetui.engine.start.samples import init_sample
from forgetui.paths import data_dir
from forgetui.tui.app import ForgeApp
from forgetui.tui.launch import make_app
from forgetui.tui.settings import DEFAULT_THEME
from forgetui.tui.theme_set import METER_VARIABLES
from forgetui.tui.themes import load_theme_file, load_themes

from .conftest import SIZE, press, settings_for, settle

BUNDLED = ("dark", "high-contrast", "light")


def test_bundled_themes_load_with_meter_colours() -> None:
    themes = load_themes(data_dir("themes"))
    assert themes.problems == ()
    assert themes.names == BUNDLED  # the default first
    for theme in themes.themes:
        assert set(METER_VARIABLES) <= set(theme.variables)
    assert {t.name: t.dark for t in themes.themes} == {
        "dark": True, "high-contrast": True, "light": False,
    }  # fmt: skip
    assert themes.next_after("light") == "dark"
    assert themes.next_after("no-such") == "dark"


def test_a_broken_theme_file_is_skipped_and_reported(tmp_path: Path) -> None:
    shutil.copy(data_dir("themes") / "light.yaml", tmp_path / "light.yaml")
    (tmp_path / "bad.yaml").write_text("name: bad\nprimary: not-a-colour\n")
    (tmp_path / "worse.yaml").write_text("name: [unclosed\n")
    themes = load_themes(tmp_path)
    assert themes.names == (DEFAULT_THEME, "light")  # dark.yaml missing: built-in fallback
    assert themes.problems == (
        "bad.yaml: field 'primary': 'not-a-colour' is not a colour",
        "worse.yaml: line 2: not valid YAML",
    )


def test_a_theme_file_names_its_fields(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_text(yaml.safe_dump({"name": "x", "primary": "#123456", "sparkle": True}))
    with pytest.raises(ValueError, match="field 'sparkle'"):
        load_theme_file(path)


@pytest.mark.anyio
async def test_t_cycles_themes_and_remembers_the_choice(
    workbench: Callable[..., ForgeApp], forge_home: Path
) -> None:
    app = workbench("hello_world")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.theme == "dark"
        seen = []
        for _ in range(2):
            await press(pilot, "t")
            seen.append(app.theme)
        assert seen == ["high-contrast", "light"]
    config = forge_home / "config" / "config.yaml"
    assert yaml.safe_load(config.read_text()) == {"theme": "light"}


@pytest.mark.anyio
async def test_t_says_which_theme_is_active_in_one_toast(
    workbench: Callable[..., ForgeApp],
) -> None:
    app = workbench("hello_world")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await press(pilot, "t")
        assert [n.message for n in app._notifications] == ["theme: high-contrast"]
        await press(pilot, "t", "t")  # no pile of toasts: the one on screen names the theme
        assert [n.message for n in app._notifications] == ["theme: dark"]
        assert app.theme == "dark"


@pytest.mark.anyio
async def test_a_theme_that_cannot_be_remembered_says_why_and_still_applies(
    workbench: Callable[..., ForgeApp], forge_home: Path
) -> None:
    config = forge_home / "config" / "config.yaml"
    config.parent.mkdir(parents=True)
    config.write_text("colour: red\n")  # parses, but not a setting: never rewritten
    app = workbench("hello_world")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await press(pilot, "t")
        assert app.theme == "high-contrast"
        notes = {n.title: n.message for n in app._notifications}
        assert notes[""] == "theme: high-contrast"
        assert notes["Theme not remembered"] == (
            f"{config}: not rewritten, field 'colour': Extra inputs are not permitted; "
            "high-contrast is used until you quit"
        )
    assert config.read_text() == "colour: red\n"


@pytest.mark.anyio
async def test_broken_and_unknown_themes_fall_back_with_one_notification(
    forge_home: Path, tmp_path: Path
) -> None:
    themes_dir = tmp_path / "themes"
    shutil.copytree(data_dir("themes"), themes_dir)
    (themes_dir / "broken.yaml").write_text("name: broken\nprimary: 12\n")
    task = init_sample("hello_world").path
    app = make_app(settings_for(forge_home, theme="broken"), task, load_themes(themes_dir))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        assert app.theme == DEFAULT_THEME
        notes = [n for n in app._notifications if n.title == "Settings"]
        assert len(notes) == 1
        assert "theme 'broken' is not available; using dark" in notes[0].message
        assert "broken.yaml: field 'primary'" in notes[0].message


@pytest.mark.anyio
async def test_textual_builtin_themes_still_get_meter_colours(
    workbench: Callable[..., ForgeApp],
) -> None:
    app = workbench("hello_world", theme="textual-light")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.theme == "textual-light"
        assert app.theme_variables["meter-warn"] == METER_VARIABLES["meter-warn"]


@pytest.mark.parametrize("theme", BUNDLED)
def test_theme_snapshot(
    snap_compare: Any, workbench: Callable[..., ForgeApp], quick_hello: Path, theme: str
) -> None:
    app = workbench(quick_hello, theme=theme)

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        await press(pilot, "s", "s", "s")
        app.clear_notifications()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
