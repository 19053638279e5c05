"""The house rules every module of forgetui keeps, so a reader finds one thing per module and can
hold a function in view: no module over 400 lines, and no function over 60 lines without a
docstring (which says why it is long). Checked on the real source, and on planted files, so a
rule that could never fail would show here."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60


def broken_rules(package: Path) -> list[str]:
    """`path:line: what is wrong` for every module under `package` over the module limit and
    every function or method over the function limit without a docstring, paths shown from
    the package's parent (`forgetui/engine/...`)."""
    found: list[str] = []
    for path in sorted(package.rglob("*.py")):
        shown = path.relative_to(package.parent).as_posix()
        text = path.read_text(encoding="utf-8")
        lines = len(text.splitlines())
        if lines > MAX_MODULE_LINES:
            found.append(f"{shown}:1: module of {lines} lines (over {MAX_MODULE_LINES})")
        for node in ast.walk(ast.parse(text, filename=str(path))):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > MAX_FUNCTION_LINES and ast.get_docstring(node) is None:
                found.append(
                    f"{shown}:{node.lineno}: function {node.name} of {length} lines "
                    f"(over {MAX_FUNCTION_LINES}) without a docstring saying why"
                )
    return found


def test_every_module_keeps_the_house_rules() -> None:
    broken = broken_rules(ROOT / "forgetui")
    assert broken == [], "\n".join(broken)


def _function(name: str, statements: int, docstring: str | None = None) -> str:
    """A function of `statements` + 1 lines (+ 1 for a docstring)."""
    head = [f"def {name}() -> int:"]
    if docstring is not None:
        head.append(f'    """{docstring}"""')
    body = [f"    x{i} = {i}" for i in range(statements - 1)]
    return "\n".join([*head, *body, "    return 0", ""])


def test_a_long_module_and_a_long_undocumented_function_are_named(tmp_path: Path) -> None:
    """Each limit is kept at its bound and broken one line past it; a docstring lets a long
    function be, not a long module."""
    package = tmp_path / "planted"
    (package / "inner").mkdir(parents=True)
    (package / "at_the_bounds.py").write_text(
        _function("sixty_lines", 59)
        + "\n"
        + "\n".join(f"X{i} = {i}" for i in range(MAX_MODULE_LINES - 61))
        + "\n",
        encoding="utf-8",
    )
    assert len((package / "at_the_bounds.py").read_text().splitlines()) == MAX_MODULE_LINES
    (package / "inner" / "steps.py").write_text(
        "X = 1\n\n\n"
        + _function("long_undocumented", 60)
        + "\n\n"
        + _function("long_documented", 70, "Long: one table of cases, read top to bottom."),
        encoding="utf-8",
    )
    (package / "long_module.py").write_text(
        "\n".join(f"X{i} = {i}" for i in range(MAX_MODULE_LINES + 1)) + "\n", encoding="utf-8"
    )
    (package / "long_documented_module.py").write_text(
        '"""Long on purpose."""\n' + "\n".join(f"X{i} = {i}" for i in range(MAX_MODULE_LINES)),
        encoding="utf-8",
    )

    assert broken_rules(package) == [
        "planted/inner/steps.py:4: function long_undocumented of 61 lines (over 60) "
        "without a docstring saying why",
        "planted/long_documented_module.py:1: module of 401 lines (over 400)",
        "planted/long_module.py:1: module of 401 lines (over 400)",
    ]
