"""A workspace copied (or cloned anew) with its `.venv`, whose editable install still names the
old checkout: forgetui finds that by reading the environment's files, says which file and which
path, and a check that fails to import the project carries the fix. Files that are huge,
binary or not files at all cost a bounded read and nothing else."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from forgetui.engine.checks.verify import run_checks
from forgetui.engine.folder.task_spec import TaskSpec
from forgetui.engine.folder.task_state import Verification
from forgetui.engine.sandbox import find_environment
from forgetui.engine.sandbox.editable import environment_warnings, outside_editables
from tests.cli.project_env import install_editable, make_venv, site_packages
from tests.engine.sandbox_helpers import MODES, use_mode

FIX = ".venv/bin/pip install -e ."


def fake_venv(workspace: Path) -> Path:
    """A .venv as find_environment sees one (pyvenv.cfg, an executable bin/python), with an
    empty site-packages: nothing in it ever runs here."""
    venv = workspace / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /nonexistent/bin\n")
    python = venv / "bin" / "python"
    python.write_text("#!/bin/sh\nexit 99\n")
    python.chmod(0o755)
    site = venv / "lib" / "python3.12" / "site-packages"
    site.mkdir(parents=True)
    return site


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "copy"
    (root / "src" / "demo").mkdir(parents=True)
    (root / "src" / "demo" / "__init__.py").write_text("VALUE = 1\n")
    return root


def test_an_editable_pth_naming_another_checkout_is_reported(workspace: Path) -> None:
    site = fake_venv(workspace)
    (site / "__editable__.demo-0.1.pth").write_text("/home/me/old-checkout/src\n")
    (site / "inside.pth").write_text(f"{workspace / 'src'}\nimport os\n# a comment\nrelative\n")
    warnings = environment_warnings(workspace)
    assert len(warnings) == 1, warnings
    (line,) = warnings
    assert ".venv/lib/python3.12/site-packages/__editable__.demo-0.1.pth" in line
    assert "/home/me/old-checkout/src" in line
    assert line.endswith(FIX) and "\n" not in line


def test_an_editable_install_inside_the_workspace_is_not_reported(workspace: Path) -> None:
    site = fake_venv(workspace)
    (site / "__editable__.demo-0.1.pth").write_text(f"{workspace / 'src'}\n")
    finder = site / "__editable___demo_0_1_finder.py"
    finder.write_text(f"MAPPING: dict[str, str] = {{'demo': '{workspace / 'src' / 'demo'}'}}\n")
    assert environment_warnings(workspace) == []


def test_a_setuptools_finder_is_read_as_text_never_run(workspace: Path, tmp_path: Path) -> None:
    site = fake_venv(workspace)
    ran = tmp_path / "ran"
    finder = site / "__editable___demo_0_1_finder.py"
    finder.write_text(
        f"open({str(ran)!r}, 'w').write('x')\n"
        "MAPPING: dict[str, str] = {'demo': '/home/me/old-checkout/src/demo'}\n"
        "NAMESPACES: dict[str, list[str]] = {}\n"
    )
    found = outside_editables(workspace, find_environment(workspace, None, {}))
    assert [(item.file, str(item.source)) for item in found] == [
        (finder, "/home/me/old-checkout/src/demo")
    ]
    assert not ran.exists()


def test_hostile_files_cost_a_bounded_read(workspace: Path) -> None:
    site = fake_venv(workspace)
    big = site / "big.pth"
    with big.open("wb") as out:
        out.write(b"\xff\xfe\x00 not utf-8 \x80\n" * 10)
        out.write(b"/bad/\xff/path\n")
        out.write(b"/home/me/first-outside\n")
        out.write(b"x" * (8 * 1024 * 1024))  # 8 MB with no newline: never read in full
        out.write(b"\n/home/me/after-the-bound\n")
    (site / "many.pth").write_text("".join(f"/elsewhere/{n}\n" for n in range(5000)))
    (site / "junk_finder.py").write_bytes(b"\x00\xff" * 1000)
    (site / "__editable___x_finder.py").write_text("MAPPING = {'x': 'unterminated\n" * 20000)
    os.mkfifo(site / "fifo.pth")  # a read would wait for a writer that never comes
    (site / "dir.pth").mkdir()
    found = outside_editables(workspace, find_environment(workspace, None, {}))
    sources = [str(item.source) for item in found]
    assert "/home/me/first-outside" in sources
    assert "/home/me/after-the-bound" not in sources
    assert len(found) <= 10  # a .pth listing thousands yields a few lines, not thousands


def test_no_environment_of_the_workspace_no_warning(workspace: Path) -> None:
    assert outside_editables(workspace, find_environment(workspace, None, {})) == []


@pytest.mark.parametrize("mode", MODES)
def test_a_check_that_cannot_import_the_project_says_why(
    tmp_path: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real case: `pip install -e .` in one checkout, the checkout copied. Under bwrap the
    old checkout (under /tmp) is hidden; without it the old checkout is gone, as after a fresh
    clone elsewhere. Either way the check fails to import and its result says why."""
    use_mode(monkeypatch, mode)
    old = tmp_path / "old-checkout"
    (old / "src" / "demo").mkdir(parents=True)
    (old / "src" / "demo" / "__init__.py").write_text("VALUE = 1\n")
    make_venv(old / ".venv")
    install_editable(old / ".venv", "demo", "0.1", old / "src")
    copy = tmp_path / "copy"
    shutil.copytree(old, copy, symlinks=True)
    if mode == "allow-list":
        shutil.rmtree(old / "src")
    check_cmd = ["python", "-c", "import demo"]
    outside = subprocess.run([copy / ".venv/bin/python", "-c", "import demo"], capture_output=True)
    assert outside.returncode == (
        0 if mode == "bwrap" else 1
    )  # outside the sandbox, the bwrap case's old checkout is still there to import
    spec = TaskSpec.model_validate({
        "id": "t", "goal": "g", "allowed_commands": ["python"],
        "checks": [{"name": "imports", "kind": "command", "cmd": check_cmd}],
    })  # fmt: skip
    result = run_checks(spec, copy, Verification(), step=1).checks["imports"]
    assert not result.passing
    assert "ModuleNotFoundError" in result.details
    hint = result.details.splitlines()[-1]
    pth = site_packages(copy / ".venv") / "__editable__.demo-0.1.pth"
    assert hint.startswith(f"hint: {pth.relative_to(copy)} ")
    assert str((old / "src").resolve()) in hint and hint.endswith(FIX)


def test_a_check_failing_for_another_reason_gets_no_hint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_mode(monkeypatch, "allow-list")
    ws = tmp_path / "ws"
    make_venv(ws / ".venv")
    (site_packages(ws / ".venv") / "__editable__.demo-0.1.pth").write_text("/home/me/old/src\n")
    spec = TaskSpec.model_validate({
        "id": "t", "goal": "g", "allowed_commands": ["python"],
        "checks": [{"name": "fails", "kind": "command",
                    "cmd": ["python", "-c", "raise SystemExit('boom')"]}],
    })  # fmt: skip
    result = run_checks(spec, ws, Verification(), step=1).checks["fails"]
    assert not result.passing and "boom" in result.details
    assert "hint:" not in result.details


def test_an_active_virtualenv_elsewhere_is_not_judged(workspace: Path, tmp_path: Path) -> None:
    """A shared $VIRTUAL_ENV may hold editable installs of other projects: not this copy's."""
    shared = tmp_path / "shared"
    make_venv(shared)
    (site_packages(shared) / "__editable__.other-1.0.pth").write_text("/home/me/other/src\n")
    environment = find_environment(workspace, None, {"VIRTUAL_ENV": str(shared)})
    assert environment.source == "VIRTUAL_ENV"
    assert outside_editables(workspace, environment) == []
