"""The architecture's import rules, checked on the source (DESIGN.md section 2; STYLE.md 1, 3).

- The front ends (`forgetui/cli.py`, `forgetui/render.py`, `forgetui/tui/`) reach the engine
  only through `forgetui.engine.api`.
- Nothing in `forgetui/engine/` imports textual, nor the front door it sits under (`api`), nor a
  front end.
A failure names the file, the line and the offending import."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "forgetui"
FRONT_ENDS = [PACKAGE / "cli.py", PACKAGE / "render.py", *sorted((PACKAGE / "tui").rglob("*.py"))]
ENGINE = sorted((PACKAGE / "engine").rglob("*.py"))
API = "forgetui.engine.api"


def imports(path: Path) -> Iterator[tuple[int, str]]:
    """(line, dotted module) of every import in a file, `from a import b` giving a.b too, so
    `from forgetui.engine import store` is seen as forgetui.engine.store."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "forgetui.engine":
                for alias in node.names:
                    yield node.lineno, f"forgetui.engine.{alias.name}"
            else:
                yield node.lineno, node.module


def where(path: Path, line: int, module: str) -> str:
    shown = path.relative_to(PACKAGE.parent) if path.is_relative_to(PACKAGE.parent) else path.name
    return f"{shown}:{line}: imports {module}"


def front_end_violations(paths: list[Path]) -> list[str]:
    return [
        where(path, line, module)
        for path in paths
        for line, module in imports(path)
        if module.startswith("forgetui.engine") and not (module == API or module.startswith(API))
    ]


def engine_violations(paths: list[Path]) -> list[str]:
    found = []
    for path in paths:
        if path.name == "api.py" and path.parent.name == "engine":
            continue
        for line, module in imports(path):
            root = module.split(".")[0]
            if (
                root == "textual"
                or module == API
                or module.startswith(("forgetui.tui", "forgetui.cli", "forgetui.render"))
            ):
                found.append(where(path, line, module))
    return found


def test_front_ends_import_only_the_engine_api() -> None:
    assert front_end_violations(FRONT_ENDS) == []


def test_the_engine_imports_no_ui_and_not_its_own_front_door() -> None:
    assert engine_violations(ENGINE) == []


@pytest.mark.parametrize(
    ("source", "bad"),
    [
        ("from forgetui.engine.store import TaskFolder\n", True),
        ("from forgetui.engine import store\n", True),
        ("import forgetui.engine.executor\n", True),
        ("def f():\n    from forgetui.engine.diff import context_diff\n", True),
        ("from forgetui.engine import api\n", False),
        ("from forgetui.engine.api import ForgeError\n", False),
        ("import textual\n", False),
    ],
)
def test_the_front_end_rule_names_what_reaches_past_the_api(
    tmp_path: Path, source: str, bad: bool
) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(source)
    found = front_end_violations([probe])
    assert bool(found) is bad
    if bad:
        assert found[0].startswith("probe.py:") and "imports forgetui.engine." in found[0]


@pytest.mark.parametrize(
    ("source", "bad"),
    [
        ("import textual.app\n", True),
        ("from forgetui.engine import api\n", True),
        ("from forgetui.tui.app import ForgeApp\n", True),
        ("from forgetui.engine.store import TaskFolder\n", False),
    ],
)
def test_the_engine_rule_names_ui_and_front_door_imports(
    tmp_path: Path, source: str, bad: bool
) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(source)
    assert bool(engine_violations([probe])) is bad
