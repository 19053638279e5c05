"""Settings precedence: CLI flag > FORGETUI_* environment > user config YAML > defaults; a
broken config never stops a launch; the theme choice is written back without losing keys."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from forgetui.engine.errors import ForgeError
from forgetui.tui.config import Settings, config_path, load_settings, save_theme


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
