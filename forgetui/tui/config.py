"""The workbench's settings and their precedence, written down and tested:

    CLI flag the user typed  >  FORGETUI_* environment  >  user config YAML  >  defaults

The user config is `<config dir>/config.yaml` (forgetui.paths.config_dir(); FORGETUI_HOME moves
it, FORGETUI_CONFIG names another file). Settings are read once, by the launcher, and handed to
the app's factory; widgets never read files."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from forgetui.engine.api import (
    ForgeError,
    ModelOptions,
    first_error,
    load_yaml,
    save_yaml,
)
from forgetui.paths import config_dir
from forgetui.tui.settings import CONFIG_FILE, Settings

ENV_PREFIX = "FORGETUI_"
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


class ConfigFile(BaseModel):
    """The user's config.yaml: every key optional."""

    model_config = ConfigDict(extra="forbid")

    theme: str | None = None
    model: str | None = None
    api_base: str | None = None
    watch: bool | None = None
    clock: bool | None = None
    cursor_blink: bool | None = None
    bell: bool | None = None
    open_questions: bool | None = None
    keymap: dict[str, str] | None = None
    engine: Literal["process", "thread"] | None = None
    model_options: ModelOptions | None = None


def config_path(env: Mapping[str, str]) -> Path:
    override = env.get(f"{ENV_PREFIX}CONFIG")
    if override:
        return Path(override).expanduser()
    return config_dir() / CONFIG_FILE


class ConfigProblem(Exception):
    """What is wrong with the config file, in words for a one-line notice (no path)."""


def _yaml_problem(exc: yaml.YAMLError, text: str) -> str:
    mark = getattr(exc, "problem_mark", None)
    if mark is not None:
        return f"not valid YAML (line {mark.line + 1})"
    if isinstance(exc, yaml.reader.ReaderError):  # a control character: binary, not text
        line = text.count("\n", 0, exc.position) + 1
        return f"not text (a control character on line {line})"
    return "not valid YAML"


def _parse_config(path: Path) -> dict[str, Any] | None:
    """The file's settings as written, validated against ConfigFile; None when there is no file.
    Raises ConfigProblem for anything else: launch falls back to defaults, saving refuses."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigProblem(f"cannot read it ({exc.strerror or exc})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigProblem("not UTF-8 text") from None
    try:
        data = load_yaml(text)
    except yaml.YAMLError as exc:
        raise ConfigProblem(_yaml_problem(exc, text)) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigProblem("not a mapping of settings")
    try:
        ConfigFile.model_validate(data)
    except ValidationError as exc:
        field, _loc, msg = first_error(exc)
        raise ConfigProblem(f"field '{field or '(top level)'}': {msg}") from None
    return data


def _read_config(path: Path) -> tuple[dict[str, Any], list[str]]:
    """The file's settings (unset keys left out) and any problem, which never stops a launch."""
    try:
        data = _parse_config(path)
    except ConfigProblem as exc:
        return {}, [f"{path}: {exc}; using defaults"]
    if data is None:
        return {}, []
    config = ConfigFile.model_validate(data)
    values = config.model_dump(exclude_none=True, exclude={"model_options"})
    if config.model_options is not None:  # only the fields written there
        values["model_options"] = config.model_options.model_dump(
            include=config.model_options.model_fields_set
        )
    return values, []


def _read_env(env: Mapping[str, str]) -> tuple[dict[str, Any], list[str]]:
    values: dict[str, Any] = {}
    problems: list[str] = []
    for name in ("theme", "model", "api_base", "engine"):
        value = env.get(f"{ENV_PREFIX}{name.upper()}")
        if value:
            values[name] = value
    engine = values.get("engine")
    if engine is not None and engine not in ("process", "thread"):
        problems.append(f"{ENV_PREFIX}ENGINE={engine!r}: expected process or thread")
        del values["engine"]
    for name in ("watch", "clock"):
        key = f"{ENV_PREFIX}{name.upper()}"
        raw = env.get(key)
        if raw is None or raw == "":
            continue
        if raw.lower() in _TRUE:
            values[name] = True
        elif raw.lower() in _FALSE:
            values[name] = False
        else:
            problems.append(f"{key}={raw!r}: expected 1/0, true/false, yes/no or on/off")
    return values, problems


def load_settings(
    cli: Mapping[str, Any] | None = None, env: Mapping[str, str] | None = None
) -> Settings:
    """Merge the sources by precedence. `cli` holds only flags the user typed (None = not typed)."""
    environ = os.environ if env is None else env
    path = config_path(environ)
    from_file, file_problems = _read_config(path)
    from_env, env_problems = _read_env(environ)
    from_cli = {key: value for key, value in (cli or {}).items() if value is not None}
    merged: dict[str, Any] = {**from_file, **from_env, **from_cli}
    return Settings(
        **merged,
        config_file=path,
        notices=tuple(file_problems + env_problems),
        config_ok=not file_problems,
    )


def save_theme(settings: Settings, theme: str) -> Settings:
    """Remember the chosen theme in the user config (other keys kept). Returns the new settings.
    A file that was unusable at launch, or is now, is never rewritten: the user's text, however
    broken, is theirs to fix, and adding a theme to it would look like accepting it."""
    path = settings.config_file
    if not settings.config_ok:
        raise ForgeError(f"{path}: not rewritten, it had a problem when forgetui started")
    try:
        loaded = _parse_config(path)
    except ConfigProblem as exc:
        raise ForgeError(f"{path}: not rewritten, {exc}") from None
    data = dict(loaded or {})
    data["theme"] = theme
    save_yaml(path, data)
    return replace(settings, theme=theme)
