"""The architecture's import rules (pyproject.toml `[tool.importlinter]`, docs/architecture.md),
checked with import-linter on the real source, and on a copy with one rule broken on purpose,
so a contract that could never fail would show here.

- The CLI and the workbench reach the engine only through `forgetui.engine.api`.
- The engine imports no user interface.
- Each room of the engine imports only the rooms below it; history never reaches into the
  step's own stages; no two modules of one package import each other."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """lint-imports on the `forgetui` package under `root`, with root's pyproject.toml."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", str(root / "pyproject.toml")],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_every_contract_is_kept() -> None:
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "BROKEN" not in result.stdout
    assert result.stdout.count(" KEPT") == 5


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """The package and its contracts, copied so a test can break a rule in the copy."""
    shutil.copytree(
        ROOT / "forgetui", tmp_path / "forgetui", ignore=shutil.ignore_patterns("*.pyc")
    )
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def break_rule(copy: Path, module: str, line: str) -> None:
    path = copy / (module.replace(".", "/") + ".py")
    path.write_text(path.read_text(encoding="utf-8") + f"\n{line}\n", encoding="utf-8")


@pytest.mark.parametrize(
    ("module", "line", "contract", "named"),
    [
        (
            "forgetui.tui.app",
            "from forgetui.engine.folder.task_folder import TaskFolder",
            "reach the engine only through its door",
            "forgetui.tui.app -> forgetui.engine.folder.task_folder",
        ),
        (
            "forgetui.engine.folder.lock",
            "import textual.app",
            "The engine imports no user interface",
            "forgetui.engine.folder.lock -> textual",
        ),
        (
            "forgetui.engine.folder.lock",
            "from forgetui.engine.step import executor",
            "imports only the rooms below it",
            "forgetui.engine.folder.lock -> forgetui.engine.step.executor",
        ),
        (
            "forgetui.engine.history.diff",
            "from forgetui.engine.step.draft import StepDraft",
            "never through the step's own stages",
            "forgetui.engine.history.diff -> forgetui.engine.step.draft",
        ),
        (
            "forgetui.engine.base.clock",
            "from forgetui.engine.base import errors",
            "No two modules of one package import each other",
            "forgetui.engine.base",
        ),
    ],
    ids=["door", "no-ui-in-engine", "rooms", "step-internals", "no-cycles"],
)
def test_a_broken_rule_fails_and_names_the_import(
    copy: Path, module: str, line: str, contract: str, named: str
) -> None:
    break_rule(copy, module, line)
    if contract.startswith("No two modules"):
        # clock imports nothing of the engine: errors importing clock closes the loop
        break_rule(copy, "forgetui.engine.base.errors", "from forgetui.engine.base import clock")
    result = lint_imports(copy)
    assert result.returncode != 0, result.stdout
    broken = " ".join(result.stdout.split("Broken contracts", 1)[-1].split())
    assert contract in broken
    assert named in broken
