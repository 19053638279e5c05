"""Where bundled data and per-user files live, from a checkout or an installed wheel."""

from __future__ import annotations

import os
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    """themes/ or sample_tasks/: inside the wheel (forgetui/_data) or at the checkout's root."""
    for candidate in (_PACKAGE / "_data" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"forgetui's {name}/ folder is missing from this installation")


def home_dir() -> Path:
    """Per-user state: FORGETUI_HOME if set (tests use it), else the platform's data dir."""
    env = os.environ.get("FORGETUI_HOME")
    if env:
        return Path(env)
    import platformdirs

    return platformdirs.user_data_path("forgetui")


def config_dir() -> Path:
    env = os.environ.get("FORGETUI_HOME")
    if env:
        return Path(env) / "config"
    import platformdirs

    return platformdirs.user_config_path("forgetui")


def cache_dir() -> Path:
    """What can be made again (kept token counts): FORGETUI_HOME/cache if set, else the
    platform's user cache directory."""
    env = os.environ.get("FORGETUI_HOME")
    if env:
        return Path(env) / "cache"
    import platformdirs

    return platformdirs.user_cache_path("forgetui")


def runs_dir() -> Path:
    return home_dir() / "runs"
