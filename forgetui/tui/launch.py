"""`forgetui` and `forgetui open PATH`: resolve what to open, read the settings, build the app.

PATH is a task folder, a workspace holding one task, or a sample (a bundled name or a sample
folder), which is instantiated into a fresh run directory so the shipped copy is never touched.
No PATH opens a fresh copy of the hello_world sample."""

from __future__ import annotations

from pathlib import Path

from forgetui.tui.app import ForgeApp
from forgetui.tui.config import Settings, load_settings
from forgetui.tui.session import EngineProcess, Session, StepSession
from forgetui.tui.snapshot import TaskReader
from forgetui.tui.themes import FALLBACK_THEME, ThemeSet, load_themes

DEFAULT_SAMPLE = "hello_world"


def resolve_task(path: str | None) -> Path:
    """The task folder to open, instantiating a sample when PATH names one."""
    from forgetui.engine import api

    if path is None:
        return api.init_sample(DEFAULT_SAMPLE).path
    if api.find_sample(path) is not None:
        return api.init_sample(path).path
    return api.open_task(path).path


def make_app(settings: Settings, task: Path, themes: ThemeSet) -> ForgeApp:
    """The factory: everything the app needs is passed in, so tests build it the same way."""
    session: Session
    if settings.engine == "process":
        session = EngineProcess(task, settings.model, settings.api_base)
    else:
        session = StepSession(task, settings.model, settings.api_base)
    reader = TaskReader(task, settings.model, owns_lock=session.owns_lock)
    return ForgeApp(settings, themes, reader, session)


# The reader (and, with engine "thread", the executor) run in threads of this process; Python
# hands the GIL to a waiting thread after this long. The default 5 ms, paid several times per
# key press while a thread computes, makes typing lag; 1 ms keeps keys responsive.
GIL_SWITCH_INTERVAL_S = 0.001


def launch(path: str | None, model: str | None, api_base: str | None, theme: str | None) -> int:
    import sys

    from forgetui.paths import data_dir

    sys.setswitchinterval(GIL_SWITCH_INTERVAL_S)

    settings = load_settings({"model": model, "api_base": api_base, "theme": theme})
    task = resolve_task(path)
    try:
        themes = load_themes(data_dir("themes"))
    except FileNotFoundError as exc:
        themes = ThemeSet((FALLBACK_THEME,), (str(exc),))
    app = make_app(settings, task, themes)
    result = app.run()
    return result if isinstance(result, int) else 0
