"""Settings precedence: CLI flag > FORGETUI_* environment > user config YAML > defaults; a
broken config (bad YAML, not UTF-8, binary) never stops a launch and is named in one line; the
theme choice is written back without losing keys, and never into a config that did not read
cleanly."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from forgetui.engine.base.errors import ForgeError
from forgetui.engine.start.samples import init_sample
from forgetui.paths import data_dir
from forgetui.tui.app import ForgeApp
from forgetui.tui.config import config_path, load_settings, save_theme
from forgetui.tui.launch import make_app
from forgetui.tui.settings import Settings, model_overrides
from forgetui.tui.themes import load_themes

from .conftest import SIZE, press, settle


def write_config(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data))
    return path


def test_defaults_when_nothing_is_set(forge_home: Path) -> None:
    settings = load_settings({}, {"FORGETUI_HOME": str(forge_home)})
    assert (settings.theme, settings.model, settings.watch, settings.clock) == (
        "dark", None, True, True,
    )  # fmt: skip
    assert settings.config_file == forge_home / "config" / "config.yaml"
    assert settings.notices == ()


def test_each_source_overrides_the_one_below(forge_home: Path) -> None:
    write_config(forge_home / "config" / "config.yaml",
                 {"theme": "light", "model": "replay", "watch": False})  # fmt: skip
    env = {"FORGETUI_HOME": str(forge_home)}
    assert load_settings({}, env).theme == "light"  # file over default
    env["FORGETUI_THEME"] = "high-contrast"
    assert load_settings({}, env).theme == "high-contrast"  # env over file
    assert load_settings({"theme": "dark"}, env).theme == "dark"  # flag over env
    assert load_settings({"theme": None}, env).theme == "high-contrast"  # untyped flag
    assert load_settings({}, env).watch is False  # file keys not overridden stay
    assert load_settings({}, {**env, "FORGETUI_WATCH": "on"}).watch is True


def test_forgetui_config_points_at_another_file(tmp_path: Path) -> None:
    other = write_config(tmp_path / "elsewhere.yaml", {"theme": "light", "keymap": {"step": "j"}})
    settings = load_settings({}, {"FORGETUI_CONFIG": str(other)})
    assert settings.config_file == other
    assert settings.theme == "light"
    assert settings.keymap == {"step": "j"}
    assert config_path({"FORGETUI_CONFIG": str(other)}) == other


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("theme: [unclosed", "not valid YAML"),
        ("colour: red\n", "field 'colour'"),
        ("watch: sometimes\n", "field 'watch'"),
        ("model_options: {max_output_tokens: 0}\n", "field 'model_options.max_output_tokens'"),
        ("model_options: {tools: maybe}\n", "field 'model_options.tools'"),
    ],
)
def test_a_broken_config_falls_back_with_a_notice(
    forge_home: Path, content: str, problem: str
) -> None:
    path = forge_home / "config" / "config.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(content)
    settings = load_settings({}, {"FORGETUI_HOME": str(forge_home)})
    assert settings.theme == "dark"
    assert len(settings.notices) == 1 and problem in settings.notices[0]


def test_model_bounds_config_under_the_task_flags_over_it(forge_home: Path) -> None:
    """A user's local server wants the same bounds for every task: the config gives them,
    a task's own task.yaml `model_options` win over them, the flags typed at launch win over
    both."""
    write_config(
        forge_home / "config" / "config.yaml",
        {"model_options": {"max_output_tokens": 256, "system_role": "merge", "tools": "off"}},
    )
    env = {"FORGETUI_HOME": str(forge_home)}
    settings = load_settings({"model_flags": {"tools": "on"}}, env)
    assert settings.model_options == {
        "max_output_tokens": 256, "system_role": "merge", "tools": "off",
    }  # fmt: skip
    # the task sets max_output_tokens itself; the flag beats the config's tools
    assert model_overrides(settings, {"max_output_tokens"}) == {
        "system_role": "merge", "tools": "on",
    }  # fmt: skip
    assert model_overrides(load_settings({}, env), set()) == {
        "max_output_tokens": 256, "system_role": "merge", "tools": "off",
    }  # fmt: skip


def test_a_bad_env_value_is_reported_not_fatal(forge_home: Path) -> None:
    settings = load_settings({}, {"FORGETUI_HOME": str(forge_home), "FORGETUI_CLOCK": "maybe"})
    assert settings.clock is True
    assert "FORGETUI_CLOCK" in settings.notices[0]


def test_save_theme_keeps_the_other_keys(tmp_path: Path) -> None:
    path = write_config(tmp_path / "config.yaml", {"model": "replay", "keymap": {"step": "j"}})
    saved = save_theme(Settings(config_file=path), "light")
    assert saved.theme == "light"
    assert yaml.safe_load(path.read_text()) == {
        "model": "replay", "keymap": {"step": "j"}, "theme": "light",
    }  # fmt: skip


def test_save_theme_creates_the_file_and_refuses_to_clobber_garbage(tmp_path: Path) -> None:
    fresh = tmp_path / "new" / "config.yaml"
    save_theme(Settings(config_file=fresh), "light")
    assert yaml.safe_load(fresh.read_text()) == {"theme": "light"}
    garbage = tmp_path / "garbage.yaml"
    garbage.write_text("- a list, not settings\n")
    with pytest.raises(ForgeError, match="not rewritten"):
        save_theme(Settings(config_file=garbage), "light")
    assert garbage.read_text() == "- a list, not settings\n"


BINARY = bytes(range(256)) * 4  # not text at all


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"\xff\xfe\x00theme: x", "not UTF-8 text"),
        (BINARY, "not UTF-8 text"),
        (b"\x00\x01\x02\x03theme: x\n", "not text (a control character on line 1)"),
        (b"theme: light\nwatch: [unclosed\n", "not valid YAML (line 3)"),
        (b"theme: light\n  clock: on: off\n", "not valid YAML (line 2)"),
        (b"- a list\n", "not a mapping of settings"),
    ],
)
def test_unreadable_content_is_named_in_one_line_and_defaults_apply(
    forge_home: Path, content: bytes, problem: str
) -> None:
    path = forge_home / "config" / "config.yaml"
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    settings = load_settings({}, {"FORGETUI_HOME": str(forge_home)})
    assert settings == Settings(config_file=path, notices=settings.notices, config_ok=False)
    assert settings.notices == (f"{path}: {problem}; using defaults",)


def test_a_clean_or_missing_config_may_be_rewritten(forge_home: Path) -> None:
    env = {"FORGETUI_HOME": str(forge_home)}
    assert load_settings({}, env).config_ok
    write_config(forge_home / "config" / "config.yaml", {"theme": "light"})
    assert load_settings({}, {**env, "FORGETUI_CLOCK": "maybe"}).config_ok  # env: not the file


@pytest.mark.parametrize(
    "content",
    [
        b"\xff\xfe\x00theme: x",
        BINARY,
        b"theme: [unclosed",
        b"colour: red\n",  # parses, but an unknown key
        b"watch: sometimes\n",  # parses, but the wrong type
    ],
)
def test_save_theme_never_rewrites_a_config_that_did_not_read_cleanly(
    forge_home: Path, content: bytes
) -> None:
    path = forge_home / "config" / "config.yaml"
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    settings = load_settings({}, {"FORGETUI_HOME": str(forge_home)})
    with pytest.raises(ForgeError, match=f"^{re.escape(str(path))}: not rewritten"):
        save_theme(settings, "light")
    # nor when the settings did not come from reading it (checked again at save time)
    with pytest.raises(ForgeError, match=f"^{re.escape(str(path))}: not rewritten"):
        save_theme(Settings(config_file=path), "light")
    assert path.read_bytes() == content


def test_save_theme_refuses_a_file_broken_at_launch_even_if_fixed_since(
    forge_home: Path,
) -> None:
    path = forge_home / "config" / "config.yaml"
    path.parent.mkdir(parents=True)
    path.write_text("colour: red\n")
    settings = load_settings({}, {"FORGETUI_HOME": str(forge_home)})
    path.write_text("model: replay\n")
    with pytest.raises(ForgeError, match="had a problem when forgetui started"):
        save_theme(settings, "light")
    assert path.read_text() == "model: replay\n"


async def _launch_with_config(forge_home: Path, content: bytes) -> tuple[ForgeApp, Path]:
    path = forge_home / "config" / "config.yaml"
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    settings = load_settings({}, {"FORGETUI_HOME": str(forge_home)})
    settings = replace(settings, watch=False, clock=False, cursor_blink=False)
    app = make_app(settings, init_sample("hello_world").path, load_themes(data_dir("themes")))
    app.animation_level = "none"
    return app, path


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"\xff\xfe\x00theme: x", "not UTF-8 text"),
        (BINARY, "not UTF-8 text"),
        (b"colour: red\n", "field 'colour'"),
    ],
)
async def test_the_app_starts_with_an_unreadable_config_and_t_leaves_it_alone(
    forge_home: Path, content: bytes, problem: str
) -> None:
    app, path = await _launch_with_config(forge_home, content)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        assert app.theme == "dark"
        [note] = [n for n in app._notifications if n.title == "Settings"]
        assert note.message.startswith(f"{path}: {problem}")
        assert note.message.endswith("; using defaults") and "\n" not in note.message
        await press(pilot, "t")
        assert app.theme == "high-contrast"  # for this session
        messages = [n.message for n in app._notifications]
        assert "theme: high-contrast" in messages
        [warning] = [n for n in app._notifications if n.title == "Theme not remembered"]
        assert warning.message.startswith(f"{path}: not rewritten")
        assert warning.message.endswith("high-contrast is used until you quit")
    assert path.read_bytes() == content
