"""The workbench's start: the command line loads no file model before a command runs, the child
counting the first view starts before the launcher reads anything and finds the task itself
(not for a sample, whose copy is made first), loading no more of the engine than counting
needs, a view it counted before the mount is the first paint, the workbench's modules load
none of the engine's writers, and the start's heap is collected once, after that view."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from forgetui.engine.start.samples import init_sample
from forgetui.tui import launch
from forgetui.tui.app import ForgeApp
from forgetui.tui.early_start import plain_open
from forgetui.tui.first_view import FirstView
from forgetui.tui.snapshot import TaskReader

from .conftest import SIZE, on_a_terminal, screen_text, settle

NO_FLAGS = {"model": None, "api_base": None, "theme": None, "model_flags": None}


def _answered(early: FirstView) -> None:
    for _ in range(3000):  # the child imports the engine and counts: seconds on a busy machine
        if early.ready():
            return
        time.sleep(0.02)
    raise AssertionError("the first-view child never answered")


def test_the_command_line_loads_no_file_model_before_a_command_runs() -> None:
    """What every command, and the workbench before its child starts, pays first."""
    code = (
        "import sys, forgetui.cli\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'pydantic'"
        " or m.startswith('forgetui.engine.folder')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_early_child_finds_the_task_and_counts_it_as_the_launcher_would(
    quick_hello: Path, tmp_path: Path, forge_home: Path
) -> None:
    task = init_sample(quick_hello, into=tmp_path / "run").path
    workspace = task.parent.parent.parent  # `forgetui open WORKSPACE`: its one task
    early = FirstView.early(str(workspace), NO_FLAGS)
    reader = TaskReader(task)
    early.expect(reader.path, None, None, {})
    _answered(early)
    shown = early.take(reader.path)
    early.close()
    assert shown is not None and not shown.loading and shown.context is not None
    counted = reader.snapshot()
    assert counted.context is not None
    assert shown.context.total_tokens == counted.context.total_tokens > 0


def test_the_early_childs_count_is_not_used_for_other_arguments(
    quick_hello: Path, tmp_path: Path, forge_home: Path
) -> None:
    """A model named at launch, or other bounds, count differently: counted here then."""
    task = init_sample(quick_hello, into=tmp_path / "run").path
    early = FirstView.early(str(task), NO_FLAGS)
    early.expect(task, "replay", None, {"max_output_tokens": 64})
    _answered(early)
    assert early.take(task) is None
    assert not early.ready()  # nothing to wait for: the reader shows the frame, then counts
    early.close()


def test_a_path_that_is_no_single_task_leaves_the_early_child_nothing_to_count(
    forge_home: Path,
) -> None:
    early = FirstView.early("hello_world", NO_FLAGS)  # a sample: the launcher copies it first
    _answered(early)
    assert early.take(Path("/nowhere")) is None
    early.close()


def test_a_sample_is_copied_before_any_child_counts_it(
    quick_hello: Path, tmp_path: Path, forge_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sample named (or no PATH outside a workspace) has no task yet for an early child to
    find: none is started, on a terminal or not; a task's PATH still starts one."""
    started: list[str | None] = []
    monkeypatch.setattr(launch, "_not_a_terminal", lambda: None)  # as on a terminal
    early = classmethod(lambda cls, path, flags: started.append(path))
    monkeypatch.setattr(FirstView, "early", early)
    monkeypatch.setattr(launch, "_launch", lambda path, runs, flags, early: 0)
    task = init_sample(quick_hello, into=tmp_path / "run").path
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.chdir(empty)
    for path in ("hello_world", str(quick_hello), None, str(task)):
        launch.launch(path, None, None, None)
    assert started == [str(task)]


def _imported_after(code: str, prefixes: tuple[str, ...]) -> list[str]:
    """The modules matching `prefixes` loaded once `code` ran, in a fresh interpreter."""
    listed = f"sorted(m for m in sys.modules if m.startswith({prefixes!r}))"
    script = f"import json, sys\n{code}\nprint(json.dumps({listed}))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    loaded: list[str] = json.loads(out.stdout)
    return loaded


def test_the_childs_count_loads_no_probe_nor_litellms_model(
    quick_hello: Path, tmp_path: Path
) -> None:
    """Counting reads the server findings' cache (the probes filling it are `forgetui doctor`'s)
    and names the model; it calls none, so litellm's model and its HTTP stack stay unloaded."""
    task = init_sample(quick_hello, into=tmp_path / "run").path
    code = (
        "import io\nfrom forgetui.tui.first_view import _count\n"
        f"assert _count('task', [{str(task)!r}, '', '', '{{}}'], io.BytesIO()) == 0"
    )
    probes = (
        "forgetui.engine.llm.doctor", "forgetui.engine.llm.server_info",
        "forgetui.engine.llm.litellm_model", "litellm",
    )  # fmt: skip
    assert _imported_after(code, probes) == []


def test_the_workbench_loads_none_of_the_engines_writers_with_its_modules() -> None:
    """The operator's verbs, replies, inbox and the service load when first used, after the
    first view; the views the child's snapshot is read into load no engine module at all."""
    writers = (
        "forgetui.engine.api.service", "forgetui.engine.operator.verbs",
        "forgetui.engine.operator.replies", "forgetui.engine.operator.inbox",
        "forgetui.engine.history.diff", "forgetui.engine.step.runner",
    )  # fmt: skip
    assert _imported_after("import forgetui.tui.app", writers) == []
    engine = ("forgetui.engine.", "pydantic")
    assert _imported_after("import forgetui.tui.task_views", engine) == []


@pytest.mark.anyio
async def test_a_view_counted_before_the_mount_is_the_first_paint(
    workbench: Callable[..., ForgeApp], quick_hello: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = workbench(quick_hello)
    reader = app.reader
    reader.first_view = FirstView.start(reader.path, None, None, {})
    _answered(reader.first_view)
    painted: list[str] = []
    real = ForgeApp._display

    def display(self: ForgeApp, screen: Any, renderable: Any) -> None:
        real(self, screen, renderable)
        if renderable is not None:
            shown = self.current_workbench.snapshot if self.current_workbench else None
            painted.append("empty" if shown is None else "frame" if shown.loading else "whole")

    monkeypatch.setattr(ForgeApp, "_display", display)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        shown = app.workbench.snapshot
        assert shown is not None and shown.context is not None
        assert f"{shown.context.total_tokens:,}" in screen_text(app)  # the meters, counted
        await pilot.press("q")
    reader.close()
    assert painted[0] == "whole"  # no empty panes painted first, nor a frame


def test_the_start_is_not_collected_until_the_first_view_then_settled() -> None:
    code = (
        "import gc, time\n"
        "from forgetui.tui import heap\n"
        "heap.hold()\n"
        "held = not gc.isenabled()\n"
        "heap.settle_once()\n"
        "print(held, gc.isenabled(), gc.get_freeze_count() > 0)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "True", "True"]


def test_collections_resume_even_if_no_complete_view_comes() -> None:
    code = (
        "import gc, time\n"
        "from forgetui.tui import heap\n"
        "heap.HOLD_LIMIT_S = 0.05\n"
        "heap.hold()\n"
        "held = not gc.isenabled()\n"
        "time.sleep(1.0)\n"
        "print(held, gc.isenabled(), heap.settled())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "True", "False"]


# The real CLI on a pseudo-terminal; at its first frame the probe notes what is imported and
# what is shown. It hooks the launcher's factory, so nothing is imported ahead of the launcher.
FIRST_FRAME_PROBE = r"""
import json, os, sys
from forgetui.tui.early_start import start_early

start_early(sys.argv[1:])  # first, as the `forgetui` command's entry does
from forgetui.tui import launch

real_make_app = launch.make_app
real_forked = launch._forked_early
forked = {"used": False, "pid": None}

def forked_early(*args, **kwargs):
    from forgetui.tui import early_start

    child = early_start.early
    forked["pid"] = child.pid if child is not None else None
    used = real_forked(*args, **kwargs)
    forked["used"] = used is not None
    return used

launch._forked_early = forked_early

def gone(pid):
    if pid is None:
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False

def make_app(*args, **kwargs):
    from forgetui.tui.app import ForgeApp

    real = ForgeApp._display

    def display(self, screen, renderable):
        real(self, screen, renderable)
        if renderable is None or self._batch_count:  # a frame held back is not written
            return
        shown = self.current_workbench.snapshot if self.current_workbench else None
        models = ("forgetui.engine.folder.task_spec", "forgetui.engine.folder.task_state")
        loaded = [m for m in sys.modules if m in ("pydantic", "yaml", *models)]
        view = "empty" if shown is None else "frame" if shown.loading else "whole"
        from textual.screen import UPDATE_PERIOD

        with open(os.environ["PROBE_OUT"], "w") as out:
            json.dump({"loaded": sorted(loaded), "view": view, "theme": self.theme,
                       "frame_rate": round(1 / UPDATE_PERIOD),
                       "forked": forked["used"],
                       "unused_fork_gone": None if forked["used"] else gone(forked["pid"])}, out)
        os._exit(0)

    ForgeApp._display = display
    if os.environ.get("PROBE_WAIT"):  # however long the child takes on a loaded machine
        from forgetui.tui import task_loader  # here: Textual is imported by the launcher first

        task_loader.FIRST_VIEW_WAIT_S = float(os.environ["PROBE_WAIT"])
    return real_make_app(*args, **kwargs)

launch.make_app = make_app
from forgetui.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _first_frame(
    args: list[str], tmp_path: Path, env_extra: dict[str, str] | None = None
) -> dict[str, Any]:
    """`forgetui ARGS` on a terminal until its first frame: what the probe noted then."""
    import os

    out = tmp_path / "first_frame.json"
    env = {**os.environ, "PROBE_OUT": str(out), "TERM": "xterm-256color", "PROBE_WAIT": "60"}
    env.pop("TEXTUAL_FPS", None)
    env.update(env_extra or {})
    assert on_a_terminal([sys.executable, "-c", FIRST_FRAME_PROBE, *args], env) == 0
    noted: dict[str, Any] = json.loads(out.read_text())
    return noted


def test_the_workbench_paints_a_task_whole_before_loading_yaml_or_the_file_models(
    quick_hello: Path, tmp_path: Path, forge_home: Path
) -> None:
    """The child started early validates the task and reads the settings and themes; the
    launcher opens the workbench on what it sends, so the first frame (the whole view, with
    the theme the user's config names) comes before pydantic, YAML or a file model loads."""
    task = init_sample(quick_hello, into=tmp_path / "run").path
    (forge_home / "config").mkdir(parents=True, exist_ok=True)
    (forge_home / "config" / "config.yaml").write_text("theme: light\n")
    noted = _first_frame(["open", str(task)], tmp_path)
    assert noted == {
        "loaded": [], "view": "whole", "theme": "light", "frame_rate": launch.FRAME_RATE,
        "forked": True, "unused_fork_gone": None,
    }  # fmt: skip


def test_a_command_line_with_a_flag_forks_nothing_and_is_counted_all_the_same(
    quick_hello: Path, tmp_path: Path, forge_home: Path
) -> None:
    """Only the plain forms fork as the command starts; with a flag the launcher starts the
    child once the command line is parsed, and the first frame is whole just the same."""
    task = init_sample(quick_hello, into=tmp_path / "run").path
    noted = _first_frame(["open", "--theme", "light", str(task)], tmp_path)
    assert (noted["view"], noted["theme"], noted["forked"]) == ("whole", "light", False)
    assert noted["frame_rate"] == launch.FRAME_RATE


def test_the_workbench_paints_at_the_users_own_frame_rate_if_set(
    quick_hello: Path, tmp_path: Path, forge_home: Path
) -> None:
    """The workbench's higher frame rate (a key's frame waits less while steps run) is a
    default: TEXTUAL_FPS in the environment wins."""
    task = init_sample(quick_hello, into=tmp_path / "run").path
    assert launch.FRAME_RATE != 30
    noted = _first_frame(["open", str(task)], tmp_path, {"TEXTUAL_FPS": "30"})
    assert (noted["view"], noted["frame_rate"]) == ("whole", 30)
    noted = _first_frame(["open", str(task)], tmp_path, {"TEXTUAL_FPS": " "})  # as unset
    assert noted["frame_rate"] == launch.FRAME_RATE
    assert noted["unused_fork_gone"] is None  # none was forked


def test_a_fork_for_a_sample_is_stopped_before_the_sample_is_copied(
    tmp_path: Path, forge_home: Path
) -> None:
    """`forgetui open hello_world` forks as it starts (the entry cannot tell a sample from a
    task); the launcher stops that child, copies the sample and counts the copy."""
    noted = _first_frame(["open", "hello_world"], tmp_path)
    assert (noted["view"], noted["forked"], noted["unused_fork_gone"]) == ("whole", False, True)


@pytest.mark.parametrize(
    "argv, plain",
    [
        ([], (True, None)),
        (["open"], (True, None)),
        (["open", "some/task"], (True, "some/task")),
        (["open", "--runs"], (False, None)),
        (["open", ""], (False, None)),  # the parser names the empty path
        (["open", "  "], (False, None)),
        (["open", "a", "b"], (False, None)),
        (["--theme", "light"], (False, None)),
        (["status", "x"], (False, None)),
    ],
)
def test_only_the_plain_forms_are_forked_for(
    argv: list[str], plain: tuple[bool, str | None]
) -> None:
    assert plain_open(argv) == plain


def test_a_task_changed_after_the_early_child_read_it_is_read_again(
    quick_hello: Path, tmp_path: Path, forge_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the child found is used only if the task's files are as it found them."""
    task = init_sample(quick_hello, into=tmp_path / "run").path
    early = FirstView.early(str(task), NO_FLAGS)
    found = early.found(wait=120)
    assert found is not None and found.task == task
    state = task / "state.yaml"
    state.write_text(state.read_text() + "\n")  # another program touched it meanwhile
    monkeypatch.setattr(FirstView, "found", lambda self, wait=0.0: found)
    assert launch._found_early(early) is None
    early.close()


@pytest.mark.anyio
async def test_a_finished_task_counted_before_the_mount_is_laid_out_whole(
    workbench: Callable[..., ForgeApp], quick_hello: Path
) -> None:
    """Shown at the mount, at 160 columns a finished task's frame kept one line (the goal's
    first) and its checks none, until the window was resized."""
    from forgetui.engine import api

    app = workbench(quick_hello)
    reader = app.reader
    assert api.run(reader.path).exit_code == 0  # to its end: complete
    reader.first_view = FirstView.start(reader.path, None, None, {})
    _answered(reader.first_view)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        shown = app.workbench.snapshot
        assert shown is not None and shown.status == "complete" and not shown.loading
        body = app.workbench.query_one("#task-frame-body")
        assert body.region.height > 1
        text = screen_text(app)
        assert "Success criteria" in text and "ready for completion: yes" in text
        await pilot.press("q")
    reader.close()
