"""Nothing the agent writes runs in forgetui's own processes: modules planted in the directory
forgetui is started from (a workspace holding a task, as after `cd repo && forgetui open .`) are
never imported by the workbench's engine process or by the CLI, in either sandbox mode.

Each planted module, once imported, leaves a marker naming its process: in a folder outside the
workspace when the importer is forgetui (forgetui in sys.modules), in the workspace itself when
it is a command the agent's step ran (which may import them: that is the sandbox's business, and
proves the plant works). Then it hands over to the real module, so a step still runs either way.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from forgetui.engine.folder.records import ResultRecord
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.start.samples import init_sample
from forgetui.tui.app import ForgeApp
from forgetui.tui.session import EngineProcess
from tests.cli.conftest import cli_env
from tests.engine.helpers import last_results
from tests.engine.sandbox_helpers import BWRAP, NO_BWRAP, use_mode

from .conftest import QUICK_CHECKS, SIZE, custom_sample, press, settle

PLANTED = ("json", "yaml", "textual", "pydantic", "sitecustomize", "usercustomize", "forgetui")
MODES = ["bwrap", "allow-list"]

# str.format fields: forge (the folder for forgetui's markers). The rest is the module's source.
PLANT = """\
import os as _os, sys as _sys
_here = _os.path.dirname(_os.path.abspath(__file__))
# forgetui is in sys.modules (a planted forgetui.py as it runs, too), or ran this as a program
_forge = "forgetui" in _sys.modules or __name__ == "__main__"
_where = {forge!r} if _forge else _here
try:
    with open(_os.path.join(_where, "%s-%d" % (__name__, _os.getpid())), "w") as _marker:
        with open("/proc/self/cmdline", "rb") as _cmdline:
            _command = _cmdline.read().replace(b"\\0", b" ").decode(errors="replace")
        _marker.write("%s\\nforge folder visible: %s\\n" % (_command, _os.path.isdir({forge!r})))
except OSError:
    pass
if __name__ != "__main__":  # hand over to the real module: whoever imported this goes on
    _path = list(_sys.path)
    _sys.path[:] = [p for p in _path if _os.path.abspath(p or ".") != _here]
    _mine = _sys.modules.pop(__name__)
    try:
        import importlib as _importlib
        _sys.modules[__name__] = _importlib.import_module(__name__)
    except ImportError:
        _sys.modules[__name__] = _mine
    finally:
        _sys.path[:] = _path
"""

HELLO = "import json\nprint(json.loads('\"Hello, world!\"'))\n"  # imports the planted json
REPLAY = [
    {"action": "write_file", "args": {"path": "hello.py", "content": HELLO}},
    {"action": "run_check", "args": {}},
]


def need_mode(monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    """The sandbox mode for every process the test starts; bwrap missing skips, unless required
    (FORGETUI_REQUIRE_BWRAP=1 makes BWRAP true: the test runs and fails)."""
    if mode == "bwrap" and not BWRAP:
        pytest.skip(NO_BWRAP)
    use_mode(monkeypatch, mode)


def planted_workspace(tmp_path: Path, names: tuple[str, ...] = PLANTED) -> tuple[Path, Path]:
    """(workspace, its task folder): hello_world, two steps long, with `names` planted."""
    sample = custom_sample(
        tmp_path, "hello_world", "planted", task={"checks": QUICK_CHECKS}, replay=REPLAY
    )
    workspace = tmp_path / "repo"
    task = init_sample(sample, into=workspace).path
    forge = tmp_path / "forgetui-markers"
    forge.mkdir()
    for name in names:
        (workspace / f"{name}.py").write_text(PLANT.format(forge=str(forge)))
    return workspace, task


def forgetui_markers(tmp_path: Path) -> dict[str, str]:
    return {m.name: m.read_text() for m in sorted((tmp_path / "forgetui-markers").iterdir())}


def assert_two_steps_ran(task: Path, workspace: Path, tmp_path: Path, mode: str) -> None:
    """The steps really ran: hello.py written, then the check that runs it passed; and the
    check's python imported the planted json (the plant works where the agent's code runs),
    under the sandbox asked for (bwrap hides /tmp, where the forgetui markers are)."""
    folder = TaskFolder.open(task)
    assert folder.load_state().step == 2
    results = [r for r in last_results(folder.log, 2) if isinstance(r, ResultRecord)]
    assert [(r.action, r.result) for r in results] == [
        ("write_file", "success"), ("run_check", "success"),
    ]  # fmt: skip
    assert "2/2 passing" in results[1].summary
    seen = [m for m in workspace.iterdir() if m.name.startswith("json-")]
    assert seen, "the check's `python hello.py` did not import the planted json"
    if str(tmp_path).startswith("/tmp/"):
        visible = mode == "allow-list"
        assert all(f"forge folder visible: {visible}" in m.read_text() for m in seen)


@pytest.mark.anyio
@pytest.mark.parametrize("mode", MODES)
async def test_the_engine_process_imports_nothing_from_where_the_workbench_opened(
    workbench: Callable[..., ForgeApp],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    mode: str,
) -> None:
    need_mode(monkeypatch, mode)
    workspace, task = planted_workspace(tmp_path)
    monkeypatch.chdir(workspace)  # `cd repo && forgetui open .`
    app = workbench(task)
    assert isinstance(app.session, EngineProcess)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, "s", "s")
        proc = app.session._proc
        assert proc is not None  # the steps ran in the engine's own process
    assert_two_steps_ran(task, workspace, tmp_path, mode)
    assert forgetui_markers(tmp_path) == {}


def _console_script() -> list[str]:
    script = Path(sys.executable).with_name("forgetui")
    assert script.is_file(), f"the console script is not installed next to {sys.executable}"
    return [str(script)]


ENTRIES = {
    "console-script": _console_script,
    "python -m": lambda: [sys.executable, "-m", "forgetui"],
}


def run_cli(entry: str, workspace: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """`forgetui run .` for the task's two steps, typed in the workspace."""
    return subprocess.run(
        [*ENTRIES[entry](), "run", ".", "--json", "--max-steps", "2"],
        cwd=workspace,
        env={**os.environ, **cli_env(tmp_path / "home")},
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("entry", ENTRIES)
def test_the_cli_imports_nothing_from_the_directory_it_runs_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str, entry: str
) -> None:
    need_mode(monkeypatch, mode)
    # `python -m forgetui` finds forgetui itself on the path Python gives it, the directory
    # first: a planted forgetui.py is beyond forgetui's reach (see the xfail below)
    names = PLANTED if entry == "console-script" else tuple(n for n in PLANTED if n != "forgetui")
    workspace, task = planted_workspace(tmp_path, names)
    result = run_cli(entry, workspace, tmp_path)
    assert result.returncode == 0, result.stderr
    assert_two_steps_ran(task, workspace, tmp_path, mode)
    assert forgetui_markers(tmp_path) == {}


@pytest.mark.xfail(
    strict=True,
    reason="`python -m forgetui` in a directory holding forgetui.py imports that file before any "
    "of forgetui's code runs; the console script `forgetui` is not affected",
)
def test_python_m_forgetui_in_a_directory_holding_forgetui_py(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_mode(monkeypatch, "allow-list")
    workspace, _ = planted_workspace(tmp_path, ("forgetui",))
    result = run_cli("python -m", workspace, tmp_path)
    assert forgetui_markers(tmp_path) == {}
    assert result.returncode == 0, result.stderr


def test_litellm_reads_no_env_file_the_agent_wrote(tmp_path: Path) -> None:
    """litellm loads a .env when imported: from the current directory when a tracer runs (a
    debugger, coverage) or the program has no main file, else from above its own install (a
    repo's .venv puts the repo there). One the agent wrote could aim the operator's key at its
    own server; forgetui's import of litellm turns that off."""
    workspace = tmp_path / "repo"
    workspace.mkdir()
    (workspace / ".env").write_text("OPENAI_BASE_URL=http://127.0.0.1:9/planted\n")
    probe = (
        "import os, sys; sys.settrace(lambda *a: None)\n"
        "from forgetui.engine.llm.litellm_model import import_litellm\n"
        "litellm = import_litellm()\n"
        "print(litellm.__name__, os.environ.get('OPENAI_BASE_URL'))\n"
    )
    unset = ("OPENAI_BASE_URL", "LITELLM_MODE")
    result = subprocess.run(
        [sys.executable, "-P", "-c", probe],
        cwd=workspace,
        env={name: value for name, value in os.environ.items() if name not in unset},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["litellm", "None"]
