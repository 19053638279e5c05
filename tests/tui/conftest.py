"""Workbench test helpers: an app built by the real factory on a fresh sample instance, with
watchers and clocks off, a fixed FORGETUI_HOME, and waits on workers instead of sleeps."""

from __future__ import annotations

import contextlib
import shutil
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml
from textual.pilot import Pilot
from textual.worker import WorkerCancelled, WorkerFailed

from forgetui.engine.folder.catalog import ActionSpec
from forgetui.engine.llm import Model, ModelReply
from forgetui.engine.llm.stream import AnswerStream
from forgetui.engine.start.samples import init_sample
from forgetui.paths import data_dir
from forgetui.tui.app import ForgeApp
from forgetui.tui.launch import make_app
from forgetui.tui.settings import Settings
from forgetui.tui.themes import load_themes

ROOT = Path(__file__).resolve().parents[2]
SIZE = (160, 48)


@pytest.fixture(autouse=True)
def forge_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("FORGETUI_HOME", str(home))
    for name in ("FORGETUI_CONFIG", "FORGETUI_THEME", "FORGETUI_MODEL", "FORGETUI_WATCH"):
        monkeypatch.delenv(name, raising=False)
    # the samples' checks run pytest; this venv's plugins would add seconds to each
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    return home


@pytest.fixture(autouse=True)
def steady_step_times(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A snapshot shows each step's time as one fixed figure: the real one (1 ms, 2 ms) varies
    from run to run, and the column's rendering is tested on its own."""
    if "snap_compare" in request.fixturenames:
        from forgetui.tui.panes import log_columns

        monkeypatch.setattr(log_columns, "took", lambda ms: "5ms" if ms else "")


@pytest.fixture(autouse=True)
def shown_sandbox(monkeypatch: pytest.MonkeyPatch) -> None:
    """The workbench shows bubblewrap as the sandbox on every machine, so a screen does not
    depend on whether bwrap is installed where the suite runs (the engine's own sandbox tests
    cover both modes; test_sandbox_shown covers the allow-list's warning)."""
    from forgetui.engine import api

    monkeypatch.setattr(api, "sandbox_mode", lambda: api.SandboxMode("bwrap", "bubblewrap"))


def settings_for(home: Path, **overrides: Any) -> Settings:
    base: dict[str, Any] = {
        "theme": "dark",
        "watch": False,
        "clock": False,
        "cursor_blink": False,
        "config_file": home / "config" / "config.yaml",
    }
    return Settings(**{**base, **overrides})


@pytest.fixture
def workbench(forge_home: Path) -> Callable[..., ForgeApp]:
    """workbench(sample_or_task_folder, **settings) -> the app, not yet running."""

    def build(task: str | Path = "hello_world", **overrides: Any) -> ForgeApp:
        path = Path(task)
        folder = path if (path / "task.yaml").is_file() and not (path / "workspace").is_dir() \
            else init_sample(task).path  # fmt: skip
        app = make_app(
            settings_for(forge_home, **overrides), folder, load_themes(data_dir("themes"))
        )
        app.animation_level = "none"  # no tab underline sliding while a test waits for idle
        return app

    return build


def custom_sample(
    tmp_path: Path, base: str, name: str, task: dict[str, Any] | None = None,
    replay: list[dict[str, Any]] | None = None,
) -> Path:  # fmt: skip
    """A copy of a bundled sample with task.yaml fields and the replay script replaced."""
    target = tmp_path / "samples" / name
    shutil.copytree(data_dir("sample_tasks") / base, target)
    spec = yaml.safe_load((target / "task.yaml").read_text())
    spec.update(task or {})
    (target / "task.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
    if replay is not None:
        (target / "replay.yaml").write_text(yaml.safe_dump(replay, sort_keys=False))
    return target


QUICK_CHECKS = [
    {"name": "script-exists", "kind": "file_exists", "path": "hello.py",
     "criterion": "hello.py exists in the workspace"},
    {"name": "runs", "kind": "command", "cmd": ["python", "hello.py"],
     "criterion": 'running `python hello.py` prints exactly "Hello, world!"'},
]  # fmt: skip


@pytest.fixture
def quick_hello(tmp_path: Path) -> Path:
    """hello_world whose checks run `python hello.py` instead of pytest: same flow, faster."""
    return custom_sample(tmp_path, "hello_world", "quick_hello", task={"checks": QUICK_CHECKS})


async def settle(pilot: Pilot[Any], rounds: int = 400) -> None:
    """Wait until no worker but the file watcher runs, no reload is pending and no step is in
    flight: the state a user sees once the workbench has caught up."""
    app = pilot.app
    assert isinstance(app, ForgeApp)
    for _ in range(rounds):
        busy = [w for w in app.workers if w.group != "watch" and not w.is_finished]
        if busy:
            # a failed worker is reported by the app's handler; an exclusive one replaced by
            # its successor is cancelled: either way it is done
            with contextlib.suppress(WorkerCancelled, WorkerFailed):
                await app.workers.wait_for_complete(busy)
        await pilot.pause()
        screen = app.workbench
        busy = [w for w in app.workers if w.group != "watch" and not w.is_finished]
        loading = screen.loader.pending
        if not busy and not loading and screen.step_in_flight is None:
            await pilot.pause()
            return
    raise AssertionError("the workbench did not settle")


async def press(pilot: Pilot[Any], *keys: str) -> None:
    """Press keys one at a time, letting the workbench settle after each."""
    for key in keys:
        await pilot.press(key)
        await settle(pilot)


class GatedModel:
    """Wraps the task's real model; each call waits until the test opens the gate, so a test
    can look at the workbench while a step is in flight."""

    def __init__(
        self, inner: Model, fail: BaseException | None = None, free_calls: int = 0
    ) -> None:
        self.inner = inner
        self.name = inner.name
        self.entered = threading.Event()
        self.gate = threading.Event()
        self.fail = fail
        self.free_calls = free_calls  # calls that go through before the gate applies

    def complete(
        self,
        messages: Sequence[dict[str, str]],
        tools: Sequence[ActionSpec],
        stream: AnswerStream | None = None,
    ) -> ModelReply:
        if self.free_calls > 0:
            self.free_calls -= 1
            return self.inner.complete(messages, tools, stream)
        self.entered.set()
        self.gate.wait(30)
        if self.fail is not None:
            raise self.fail
        return self.inner.complete(messages, tools, stream)


@pytest.fixture
def gated(monkeypatch: pytest.MonkeyPatch) -> Callable[..., list[GatedModel]]:
    """gated(fail=None, free_calls=0) -> the list that will hold the gated model once a step
    creates it."""
    from forgetui.engine.step import runner

    def install(fail: BaseException | None = None, free_calls: int = 0) -> list[GatedModel]:
        made: list[GatedModel] = []
        real = runner.model_for

        def gated_model_for(*args: Any, **kwargs: Any) -> Model:
            model = GatedModel(real(*args, **kwargs), fail, free_calls)
            made.append(model)
            return model

        monkeypatch.setattr(runner, "model_for", gated_model_for)
        return made

    return install


def screen_text(app: ForgeApp) -> str:
    """Everything on screen as plain text (what a user reads)."""
    from rich.console import Console

    console = Console(width=SIZE[0], record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(app.screen._compositor.render_update(full=True))
    return console.export_text()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def type_into(pilot: Pilot[Any], text: str) -> None:
    """Put text in the focused input the way a paste would (one event, not a key per char)."""
    from textual.widgets import Input

    focused = pilot.app.focused
    assert isinstance(focused, Input), f"no input has focus ({focused!r})"
    focused.insert_text_at_cursor(text)
    await pilot.pause()


def on_a_terminal(argv: list[str], env: dict[str, str], cwd: Path | None = None) -> int:
    """Run `argv` with a pseudo-terminal for stdin, stdout and stderr (as `forgetui` is run by
    a user), its output read and dropped so it never blocks writing a frame; its exit code."""
    import os
    import pty
    import subprocess

    master, slave = pty.openpty()

    def drain() -> None:
        try:
            while os.read(master, 65536):
                pass
        except OSError:
            return

    threading.Thread(target=drain, daemon=True).start()
    try:
        proc = subprocess.run(
            argv, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd, timeout=120,
            check=False,
        )  # fmt: skip
    finally:
        os.close(slave)
        os.close(master)
    return proc.returncode
