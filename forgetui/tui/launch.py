"""`forgetui` and `forgetui open PATH`: resolve what to open, read the settings, build the app.

PATH is a task folder, a workspace, a directory of workspaces (the run copies: `--runs`), or a
sample (a bundled name or a sample folder), which is instantiated into a fresh run directory so
the shipped copy is never touched. One task opens its workbench; several open the task list.
No PATH opens the tasks of the workspace the shell is in, if it has any (the run copies and
other directories are listed only when named: a directory of projects is not a task list), and
else a fresh copy of the hello_world sample.

Textual is imported only once a terminal is known to be there: without one the app would spin
forever, so `launch` refuses first, before any run copy is made. Then, still before Textual, it
starts the child that counts the workbench's first view (first_view.py): the two load side by
side, and the view is complete soon after the first paint."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from forgetui.engine.api import ForgeError
from forgetui.tui.places import tasks_to_open

if TYPE_CHECKING:
    from forgetui.tui.app import ForgeApp
    from forgetui.tui.first_view import FirstView, Found
    from forgetui.tui.session import Session
    from forgetui.tui.settings import Settings
    from forgetui.tui.snapshot import TaskReader
    from forgetui.tui.theme_set import ThemeSet

DEFAULT_SAMPLE = "hello_world"


def resolve_task(path: str | None) -> Path:
    """The task folder to open, instantiating a sample when PATH names one."""
    from forgetui.engine import api

    sample = DEFAULT_SAMPLE if path is None else path if api.find_sample(path) else None
    if sample is None:
        return api.open_task(str(path)).path
    # the copy's checks run before the first screen (step 0): a second or more of pytest
    print(f"forgetui: a fresh copy of {sample}, running its checks once...", file=sys.stderr)
    return api.init_sample(sample).path


def require_terminal() -> None:
    """Refuse to start the workbench unless stdout, stdin and stderr are terminals (Textual
    reads keys from stdin and draws on stderr); a pipe would leave it spinning, unseen."""
    name = _not_a_terminal()
    if name is not None:
        raise ForgeError(
            f"the workbench needs a terminal ({name} is not a TTY); "
            "use `forgetui run TASK` for headless runs"
        )


def _not_a_terminal() -> str | None:
    streams: tuple[tuple[str, TextIO | None], ...] = (
        ("stdout", sys.stdout), ("stdin", sys.stdin), ("stderr", sys.stderr),
    )  # fmt: skip
    for name, stream in streams:
        if stream is None or not stream.isatty():
            return name
    return None


def make_app(
    settings: Settings, task: Path, themes: ThemeSet,
    parts: tuple[TaskReader, Session] | None = None,
) -> ForgeApp:  # fmt: skip
    """The factory: everything the app needs is passed in, so tests build it the same way
    (`parts`: the task's reader and writer, when the launcher built them before Textual)."""
    from forgetui.tui.app import ForgeApp

    reader, session = parts or workbench_parts(settings, task)
    return ForgeApp(settings, themes, reader, session, open_task=partial(workbench_parts, settings))


def make_list_app(settings: Settings, place: Path, themes: ThemeSet) -> ForgeApp:
    """The app on the task list of `place`: enter opens a task's workbench, escape comes back."""
    from forgetui.engine import api
    from forgetui.tui.app import ForgeApp

    return ForgeApp(
        settings, themes, None, None,
        open_task=partial(workbench_parts, settings), tasks=api.TaskList(place),
    )  # fmt: skip


def workbench_parts(
    settings: Settings, task: Path, overrides: Mapping[str, Any] | None = None
) -> tuple[TaskReader, Session]:
    """A task's reader and writer, as its workbench uses them (reads task.yaml: a worker calls
    this for a task opened from the list). `overrides`: the model bounds, when the early child
    read task.yaml for them (first_view.Found); then `task` is its task folder already."""
    from forgetui.engine import api
    from forgetui.tui.session import EngineProcess
    from forgetui.tui.settings import model_overrides
    from forgetui.tui.snapshot import TaskReader

    if overrides is None:
        folder = api.open_task(task)  # a fork opened by its workspace: its task folder
        task, own = folder.path, folder.spec.model_options.model_fields_set
        overrides = model_overrides(settings, own)  # the config's under task.yaml, flags over
    session: Session
    if settings.engine == "process":
        session = EngineProcess(task, settings.model, settings.api_base, overrides)
    else:
        session = api.TaskService(task, settings.model, settings.api_base, overrides)
    reader = TaskReader(
        task, settings.model, owns_lock=session.owns_lock,
        api_base=settings.api_base, model_overrides=overrides,
    )  # fmt: skip
    return reader, session


# The reader (and, with engine "thread", the executor) run in threads of this process; Python
# hands the GIL to a waiting thread after this long. The default 5 ms, paid several times per
# key press while a thread computes, makes typing lag; 1 ms keeps keys responsive.
GIL_SWITCH_INTERVAL_S = 0.001

# Textual paints at most this many frames a second, in fixed slots: a key's repaint waits for the
# next slot when another repaint took the current one. While steps run back to back something
# repaints in most slots (the log after each record, the header's stage), so at Textual's
# default of 60 a key waited up to 17 ms for its frame on top of its own work; at 120, 8 ms.
# Frames are painted only when something changed, so an idle screen costs no more. Textual
# reads TEXTUAL_FPS once, when imported; a user's own setting wins.
FRAME_RATE = 120


def set_frame_rate() -> None:
    """Before Textual is imported. An empty TEXTUAL_FPS counts as unset (Textual would fall
    back to its own 60)."""
    if not os.environ.get("TEXTUAL_FPS", "").strip():
        os.environ["TEXTUAL_FPS"] = str(FRAME_RATE)


def launch(
    path: str | None,
    model: str | None,
    api_base: str | None,
    theme: str | None,
    model_options: Mapping[str, Any] | None = None,
    runs: bool = False,
) -> int:
    """Open the workbench, or the task list. A bad PATH is reported before the terminal check
    (it is the more useful error); the terminal check comes before a sample is copied or
    Textual imported. On a terminal, the child counting the first view starts first of all
    (first_view.py): it finds the task itself while this process imports the engine. Not for
    a sample: its copy is made here first, and the child started then counts it."""
    from forgetui.engine import api
    from forgetui.tui import heap
    from forgetui.tui.first_view import FirstView

    set_frame_rate()
    heap.hold()  # nothing the start allocates is garbage: no collection until the first view
    flags = {"model": model, "api_base": api_base, "theme": theme,
             "model_flags": model_options or None}  # fmt: skip
    # a sample is copied first: its task does not exist yet, the child would find nothing
    counts_early = not runs and not api.opens_a_sample(path, Path.cwd())
    early = _forked_early(path, flags, counts_early)
    if early is None and counts_early and _not_a_terminal() is None:
        early = FirstView.early(path, flags)
    try:
        return _launch(path, runs, flags, early)
    finally:
        if early is not None:
            early.close()


def _forked_early(path: str | None, flags: Mapping[str, Any], usable: bool) -> FirstView | None:
    """The child forked as the command started (early_start.py), if it was started for this
    PATH and these flags and is `usable` (not a sample to copy first); one that is not is
    stopped here."""
    from forgetui.tui import early_start
    from forgetui.tui.first_view import FirstView

    child = early_start.take()
    if child is None:
        return None
    early = FirstView.forked(child.pid, child.fd)
    typed = any(value is not None for value in flags.values())  # it was forked with none
    if not usable or child.path != path or typed:
        early.close()
        return None
    return early


def _launch(path: str | None, runs: bool, flags: Mapping[str, Any], early: FirstView | None) -> int:
    """`launch` once the early child (if any) runs: what it found opens the workbench if it
    found one task; else this process reads for itself, and the child's view is used if the
    task it counted is the one opened here (not a sample's fresh copy)."""
    from forgetui.engine import api
    from forgetui.tui.first_view import FirstView

    found = _found_early(early)
    if found is not None and early is not None:
        sys.setswitchinterval(GIL_SWITCH_INTERVAL_S)
        from forgetui.tui.themes import build_themes

        parts = workbench_parts(found.settings, found.task, found.overrides)
        themes = build_themes(found.themes)
        return _run_workbench(found.settings, found.task, themes, parts, early, found.run_copy)
    if early is not None:  # it found no single task, or its reading is stale: not used
        early.close()
        early = None
    tasks = tasks_to_open(path, runs)
    is_sample = tasks is None
    if tasks is not None and len(tasks) == 1:
        api.open_task(tasks[0])  # a broken task fails here, whatever the terminal
    require_terminal()
    sys.setswitchinterval(GIL_SWITCH_INTERVAL_S)
    from forgetui.tui.config import load_settings  # YAML and pydantic: the child's, else here

    settings = load_settings(flags)
    if tasks is not None and len(tasks) > 1:
        place = api.runs_root() if runs else Path(path or Path.cwd())
        result = make_list_app(settings, place, _themes()).run()
        return result if isinstance(result, int) else 0
    task = tasks[0] if tasks is not None else resolve_task(path)
    run_dir = api.open_task(task).workspace if is_sample else None
    reader, session = workbench_parts(settings, task)
    # before Textual's import: the child counts meanwhile, on the other core
    inputs = (reader.path, reader.model, reader.api_base, reader.model_overrides)
    child = FirstView.start(*inputs)
    try:
        return _run_workbench(settings, task, _themes(), (reader, session), child, True)
    finally:
        if run_dir is not None:  # a sample's copy sits in runs/, where nobody would look
            sys.stderr.write(
                f"forgetui: this run's copy is at {run_dir} (`forgetui runs` lists them)\n"
            )


def _found_early(early: FirstView | None) -> Found | None:
    """What the early child found, once Textual is loaded here meanwhile (the two take about
    as long, side by side); None if it found no single task or the task's files changed
    since it read them."""
    from forgetui.tui.first_view import task_files

    if early is None:
        return None
    import forgetui.tui.app  # noqa: F401  (Textual and the workbench, while the child reads)

    found = early.found()
    return found if found is not None and task_files(found.task) == found.stamps else None


def _run_workbench(
    settings: Settings, task: Path, themes: ThemeSet, parts: tuple[TaskReader, Session],
    first_view: FirstView, run_copy: bool,
) -> int:  # fmt: skip
    """The workbench on `task` until it quits; `first_view` counts its first snapshot, and
    the task is marked shown while it is open if it may be a run copy (`runs --prune`)."""
    reader = parts[0]
    first_view.expect(reader.path, reader.model, reader.api_base, reader.model_overrides)
    reader.first_view = first_view
    try:
        app = make_app(settings, task, themes, parts)
        if run_copy:
            from forgetui.engine import api

            with api.shown_in_workbench(task):  # `runs --prune` leaves it alone meanwhile
                result = app.run()
        else:
            result = app.run()
    finally:
        reader.close()
    return result if isinstance(result, int) else 0


def _themes() -> ThemeSet:
    from forgetui.tui.themes import bundled_themes

    return bundled_themes()
