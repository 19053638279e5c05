"""forgetui on a developer's own checkout, driven as a user drives it: `cd` into the project,
`forgetui new`, `forgetui run`, `forgetui status`. The project has its own `.venv` holding what
forgetui's environment lacks (the project itself, installed editable, and a dependency), so a
check that passes proves it ran with the project's environment and imported the project's code.

Two projects: `minilru`, written here, and cachetools 8.0.2 as published on PyPI
(tests/data/cachetools-8.0.2.tar.gz, its unmodified source distribution; MIT licence, the
LICENSE file inside). Each gets a bug planted in its LRU eviction, and a replayed fix."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
from pathlib import Path
from typing import Any

import pytest
import yaml

from forgetui.engine.sandbox import MODE_VARIABLE
from tests.cli.conftest import Result, cli_env
from tests.cli.project_env import (
    copy_distributions,
    git_checkout,
    imports,
    install_editable,
    install_package,
    make_venv,
    site_packages,
    venv_python,
    write_console_script,
)
from tests.engine.sandbox_helpers import BWRAP, NO_BWRAP

pytestmark = pytest.mark.timeout(240)

DATA = Path(__file__).resolve().parents[1] / "data"
MODES = ["allow-list", "bwrap"]
GOAL = "Fix the LRU eviction bug"

MINILRU = '''"""A least-recently-used cache."""

from collections import OrderedDict

from tinydep import MISSING

__version__ = "0.1.0"


class LRUCache:
    def __init__(self, maxsize):
        self.maxsize = maxsize
        self._data = OrderedDict()

    def get(self, key, default=MISSING):
        if key not in self._data:
            if default is MISSING:
                raise KeyError(key)
            return default
        self._data.move_to_end(key)
        return self._data[key]

    def put(self, key, value):
        self._data[key] = value
        self._data.move_to_end(key)
        if len(self._data) > self.maxsize:
            self._data.popitem(last=True)

    def __len__(self):
        return len(self._data)

    def __contains__(self, key):
        return key in self._data
'''
MINILRU_BUG = "self._data.popitem(last=True)"
MINILRU_FIX = "self._data.popitem(last=False)"

MINILRU_TESTS = """from pathlib import Path

import minilru
from minilru import LRUCache


def test_never_holds_more_than_maxsize():
    cache = LRUCache(2)
    for n in range(5):
        cache.put(n, n)
    assert len(cache) == 2


def test_evicts_the_least_recently_used():
    cache = LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.put("c", 3)
    assert "a" not in cache
    assert cache.get("c") == 3


def test_get_makes_an_entry_recent():
    cache = LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.get("a")
    cache.put("c", 3)
    assert cache.get("a") == 1
    assert "b" not in cache


def test_imports_this_checkout():
    here = Path(__file__).resolve().parents[1] / "src" / "minilru" / "__init__.py"
    assert Path(minilru.__file__).resolve() == here, minilru.__file__
"""

MINILRU_PYPROJECT = """[project]
name = "minilru"
version = "0.1.0"
dependencies = ["tinydep"]

[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[tool.pytest.ini_options]
testpaths = ["tests"]
"""

# An older release installed where forgetui runs: its eviction is right, it needs no tinydep,
# and it is not this checkout. A check run with it would pass the eviction tests on the bug.
STALE_MINILRU = '''"""minilru 0.0.9, released."""

from collections import OrderedDict

__version__ = "0.0.9"


class LRUCache:
    def __init__(self, maxsize):
        self.maxsize = maxsize
        self._data = OrderedDict()

    def get(self, key, default=None):
        if key in self._data:
            self._data.move_to_end(key)
        return self._data.get(key, default)

    def put(self, key, value):
        self._data[key] = value
        self._data.move_to_end(key)
        if len(self._data) > self.maxsize:
            self._data.popitem(last=False)

    def __len__(self):
        return len(self._data)

    def __contains__(self, key):
        return key in self._data
'''

CACHETOOLS = "cachetools-8.0.2"
CACHETOOLS_FIX = "key = next(iter(self.__order))"
CACHETOOLS_BUG = "key = next(reversed(self.__order))"


def require_bwrap(mode: str) -> None:
    """The bwrap runs skip where bubblewrap cannot run, unless required
    (FORGETUI_REQUIRE_BWRAP=1 makes BWRAP true: the run goes ahead and fails)."""
    if mode != "bwrap" or BWRAP:
        return
    pytest.skip(NO_BWRAP)


def user_env(home: Path, mode: str, **extra: str) -> dict[str, str]:
    """A shell with no virtual environment active and nothing on PYTHONPATH, unless `extra`
    says otherwise."""
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "FORGETUI_SANDBOX")
    }
    return {**env, **cli_env(home), MODE_VARIABLE: mode, **extra}


def forgetui_program() -> list[str]:
    """The `forgetui` an install puts next to its interpreter, else `python -m forgetui`."""
    script = Path(sys.executable).parent / "forgetui"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "forgetui"]


def forgetui(
    workspace: Path, *args: str, env: dict[str, str], program: list[str] | None = None
) -> Result:
    """`forgetui ARGS` typed in the checkout."""
    proc = subprocess.run(
        [*(program or forgetui_program()), *args],
        capture_output=True,
        text=True,
        cwd=workspace,
        env=env,
        timeout=180,
    )
    return Result(proc.returncode, proc.stdout, proc.stderr)


def with_project_tools(venv_dir: Path) -> None:
    """pytest and what it needs, laid out in the venv as pip lays them out."""
    copied = copy_distributions(venv_dir, ["pytest"])
    assert {"pytest", "pluggy", "iniconfig"} <= {name.lower() for name in copied}
    assert (venv_dir / "bin" / "pytest").read_text().startswith(f"#!{venv_python(venv_dir)}\n")


def minilru_checkout(ws: Path) -> Path:
    """The minilru project with its bug, its own .venv, committed if git is installed."""
    (ws / "src" / "minilru").mkdir(parents=True)
    (ws / "tests").mkdir()
    (ws / "src" / "minilru" / "__init__.py").write_text(MINILRU)
    (ws / "tests" / "test_lru.py").write_text(MINILRU_TESTS)
    (ws / "pyproject.toml").write_text(MINILRU_PYPROJECT)
    (ws / ".gitignore").write_text(".venv/\n__pycache__/\n")
    venv_dir = ws / ".venv"
    make_venv(venv_dir)
    install_editable(venv_dir, "minilru", "0.1.0", ws / "src")
    install_package(venv_dir, "tinydep", "1.0.0", {"tinydep/__init__.py": "MISSING = object()\n"})
    with_project_tools(venv_dir)
    git_checkout(ws)
    return ws


def assert_honest(ws: Path, package: str) -> None:
    """The checkout's venv imports its own code; forgetui's interpreter cannot import it."""
    src = ws / "src" / package / "__init__.py"
    assert imports(venv_python(ws / ".venv"), package) == str(src.resolve())
    assert imports(sys.executable, package) is None


def replay(task: Path, path: str, bug: str, fix: str) -> None:
    """The model's part, scripted: plan, see the check fail, fix the line, complete."""
    script = [
        {"action": "read_file", "args": {"path": path}},
        {"action": "complete", "args": {"summary": "Plan: make eviction drop the oldest entry."}},
        {"action": "run_check", "args": {}},
        {"action": "edit_file", "args": {"path": path, "old": bug, "new": fix}},
        {"action": "complete", "args": {"summary": "Eviction drops the least recently used."}},
    ]
    (task / "replay.yaml").write_text(yaml.safe_dump(script, sort_keys=False))


def only_task(ws: Path) -> Path:
    tasks = list((ws / ".agentforge" / "tasks").iterdir())
    assert len(tasks) == 1, tasks
    return tasks[0]


def the_check(line: dict[str, Any]) -> dict[str, Any]:
    checks = line["verification"]["checks"]
    assert len(checks) == 1, checks
    return next(iter(checks.values()))


def counts(details: str) -> dict[str, int]:
    return {word: int(n) for n, word in re.findall(r"(\d+) (passed|failed|errors?)", details)}


def last_output(ws: Path, name: str) -> str:
    """The tail of what the check printed at its last run, as the workbench shows it."""
    from forgetui.engine import api

    kept = api.check_output(api.open_task(ws), name)
    return "\n".join(kept.output.splitlines()[-8:]) if kept else "(no output kept)"


def run_fix(
    ws: Path,
    env: dict[str, str],
    before: dict[str, int],
    after: int,
    program: list[str] | None = None,
) -> None:
    """`forgetui run . --json` on the scripted fix: the check failed on the bug with every test
    collected (no import error), passed after the edit, and the task completed."""
    ran = forgetui(ws, "run", ".", "--json", env=env, program=program)
    lines = ran.json_lines()
    assert lines, ran.err
    (checked,) = [line for line in lines if line.get("action") == "run_check"]
    (edited,) = [line for line in lines if line.get("action") == "edit_file"]
    assert edited["result"] == "success", edited["summary"]
    (name,) = checked["verification"]["checks"]
    failing, passing = the_check(checked), the_check(edited)
    seen = last_output(ws, name)
    assert not failing["passing"] and counts(failing["details"]) == before, seen
    assert passing["passing"] and counts(passing["details"]) == {"passed": after}, seen
    assert ran.code == 0 and lines[-1]["status"] == "complete", (ran.err, lines[-1])


def assert_workspace_env(ws: Path, env: dict[str, str], program: list[str] | None = None) -> None:
    """`status --json` names the checkout's .venv, and the sandbox the test asked for."""
    status = forgetui(ws, "status", ".", "--json", env=env, program=program)
    assert status.code == 0, status.err
    assert status.json()["sandbox"] == env[MODE_VARIABLE]
    environment = status.json().get("environment")
    assert environment is not None, "status --json names no environment"
    assert environment["source"] == "workspace .venv"
    python = Path(environment["python"])
    assert python.parent.resolve() == (ws / ".venv" / "bin").resolve(), environment


@pytest.mark.parametrize("mode", MODES)
def test_fix_in_a_src_layout_checkout_with_its_own_venv(tmp_path: Path, mode: str) -> None:
    """The check runs the checkout's pytest on the checkout's code: it fails on the planted bug
    with every test collected (minilru and tinydep import), then passes once the line is fixed,
    including the test that minilru came from this checkout's src/."""
    require_bwrap(mode)
    ws = minilru_checkout(tmp_path / "minilru")
    assert_honest(ws, "minilru")
    assert imports(sys.executable, "tinydep") is None
    env = user_env(tmp_path / "home", mode)

    made = forgetui(
        ws, "new", "--workspace", ".", "--goal", GOAL, "--check-cmd", "pytest -q tests/test_lru.py",
        env=env,
    )  # fmt: skip
    assert made.code == 0, made.err
    replay(only_task(ws), "src/minilru/__init__.py", MINILRU_BUG, MINILRU_FIX)
    run_fix(ws, env, {"failed": 2, "passed": 2}, after=4)
    assert MINILRU_FIX in (ws / "src" / "minilru" / "__init__.py").read_text()
    assert_workspace_env(ws, env)


def operator_env(where: Path) -> list[str]:
    """A venv the operator works in, with forgetui and a released minilru installed and
    activated; returns its `forgetui` command. forgetui's own interpreter is this venv's."""
    make_venv(where)
    install_package(where, "minilru", "0.0.9", {"minilru/__init__.py": STALE_MINILRU})
    here = Path(sysconfig.get_path("purelib"))
    (site_packages(where) / "forgetui_here.pth").write_text(
        f"import site; site.addsitedir({str(here)!r})\n"
    )
    return [str(write_console_script(where, "forgetui", "forgetui.cli:main"))]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("stale_in", ["VIRTUAL_ENV", "PYTHONPATH"])
def test_a_stale_copy_where_forgetui_runs_is_not_what_is_checked(
    tmp_path: Path, mode: str, stale_in: str
) -> None:
    """forgetui started from an activated venv holding minilru 0.0.9 (or with an old copy on
    PYTHONPATH): the check still imports the checkout's minilru. With the stale copy the bug
    would pass the eviction tests; the check fails on it, then passes on the fix."""
    require_bwrap(mode)
    ws = minilru_checkout(tmp_path / "minilru")
    assert_honest(ws, "minilru")
    program: list[str] | None = None
    if stale_in == "VIRTUAL_ENV":
        where = tmp_path / "operator-venv"
        program = operator_env(where)
        path = f"{where / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"
        env = user_env(tmp_path / "home", mode, VIRTUAL_ENV=str(where), PATH=path)
        stale = imports(venv_python(where), "minilru")
    else:
        old = tmp_path / "old-checkout"
        (old / "minilru").mkdir(parents=True)
        (old / "minilru" / "__init__.py").write_text(STALE_MINILRU)
        env = user_env(tmp_path / "home", mode, PYTHONPATH=str(old))
        stale = imports(sys.executable, "minilru", env={"PYTHONPATH": str(old)})
    # the trap is armed: where forgetui runs, `import minilru` finds the old copy
    assert stale is not None and str(tmp_path) in stale and str(ws) not in stale

    made = forgetui(
        ws, "new", "--workspace", ".", "--goal", GOAL, "--check-cmd", "pytest -q tests/test_lru.py",
        env=env, program=program,
    )  # fmt: skip
    assert made.code == 0, made.err
    replay(only_task(ws), "src/minilru/__init__.py", MINILRU_BUG, MINILRU_FIX)
    run_fix(ws, env, {"failed": 2, "passed": 2}, after=4, program=program)
    assert_workspace_env(ws, env, program)


def test_new_without_a_check_proposes_the_project_tests(tmp_path: Path) -> None:
    """`forgetui new` in the checkout with no --check-cmd: it proposes the project's pytest,
    says so, and that check, run with the checkout's venv, carries the fix to complete."""
    ws = minilru_checkout(tmp_path / "minilru")
    env = user_env(tmp_path / "home", "allow-list")

    made = forgetui(ws, "new", "--workspace", ".", "--goal", GOAL, env=env)
    assert made.code == 0, made.err
    task = only_task(ws)
    checks = yaml.safe_load((task / "task.yaml").read_text())["checks"]
    commands = [check for check in checks if check.get("kind") == "command"]
    assert len(commands) == 1, checks
    assert "pytest" in " ".join(commands[0]["cmd"])
    assert "pytest" in made.out + made.err  # it says what it chose
    replay(task, "src/minilru/__init__.py", MINILRU_BUG, MINILRU_FIX)
    run_fix(ws, env, {"failed": 2, "passed": 2}, after=4)


def cachetools_checkout(where: Path) -> Path:
    """cachetools' sdist unpacked, its LRU eviction broken in one line, its own .venv."""
    with tarfile.open(DATA / f"{CACHETOOLS}.tar.gz") as sdist:
        sdist.extractall(where, filter="data")
    ws = where / CACHETOOLS
    source = ws / "src" / "cachetools" / "__init__.py"
    text = source.read_text()
    lru = text.index("class LRUCache(")
    assert text.find(CACHETOOLS_FIX, lru) > lru  # LRUCache.popitem takes the oldest key
    source.write_text(text[:lru] + text[lru:].replace(CACHETOOLS_FIX, CACHETOOLS_BUG, 1))
    assert source.read_text().count(CACHETOOLS_BUG) == 1
    (ws / ".gitignore").write_text(".venv/\n__pycache__/\n")
    venv_dir = ws / ".venv"
    make_venv(venv_dir)
    install_editable(venv_dir, "cachetools", "8.0.2", ws / "src")
    with_project_tools(venv_dir)
    git_checkout(ws)
    return ws


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
def test_fix_in_cachetools_from_its_sdist(tmp_path: Path, mode: str) -> None:
    """A real project as published: its own tests/test_lru.py fails on the planted eviction
    bug, run with the checkout's venv, and passes once the line is restored."""
    require_bwrap(mode)
    ws = cachetools_checkout(tmp_path)
    assert_honest(ws, "cachetools")
    env = user_env(tmp_path / "home", mode)

    made = forgetui(
        ws, "new", "--workspace", ".", "--goal", GOAL, "--check-cmd", "pytest -q tests/test_lru.py",
        env=env,
    )  # fmt: skip
    assert made.code == 0, made.err
    replay(only_task(ws), "src/cachetools/__init__.py", CACHETOOLS_BUG, CACHETOOLS_FIX)
    run_fix(ws, env, {"failed": 3, "passed": 31}, after=34)
    assert_workspace_env(ws, env)
    if shutil.which("git"):
        diff = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=ws, capture_output=True, text=True, check=True,
        )  # fmt: skip
        assert diff.stdout.strip() == "M src/cachetools/__init__.py"
