"""`forgetui new` typed in a checkout: it proposes the project's own test command and says so on
stderr (stdout stays the task folder alone), the allow-list comes from the project's files, the
checks run once as step 0, and bad input is one line, exit 2, nothing written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from forgetui.engine.api import create_task

PYPROJECT = "[project]\nname = 'demo'\n\n[tool.pytest.ini_options]\naddopts = '-q'\n"


def checkout(root: Path, **extra: str) -> Path:
    """A small Python project in `root`: pyproject with pytest configured, a passing test and a
    failing one's absence, a Makefile with a test rule."""
    files = {
        "pyproject.toml": PYPROJECT,
        "src/demo/__init__.py": "def answer():\n    return 42\n",
        "tests/test_demo.py": "def test_answer():\n    assert 6 * 7 == 42\n",
        "Makefile": "test:\n\tpytest\n",
        **extra,
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def task_yaml(folder: Path) -> dict[str, Any]:
    return yaml.safe_load((folder / "task.yaml").read_text())


def test_new_in_a_checkout_proposes_its_tests_and_runs_them_once(cli: Any, tmp_path: Path) -> None:
    ws = checkout(tmp_path)
    made = cli("new", "--goal", "Add a flag")  # no --workspace: the current directory
    assert made.code == 0, made.err
    (line,) = made.out.splitlines()  # stdout: the task folder, nothing else
    folder = Path(line)
    assert folder == ws / ".agentforge" / "tasks" / "add-a-flag"
    spec = task_yaml(folder)
    assert spec["checks"] == [  # addopts has -q already: a second would hide the counts
        {"name": "tests", "kind": "command", "cmd": ["pytest"], "timeout_s": 120.0}
    ]
    assert spec["allowed_commands"] == ["python", "pytest", "ruff", "mypy", "make"]
    said = made.err.splitlines()
    assert (
        "forgetui: check tests: pytest (the project's test command: pyproject.toml "
        "[tool.pytest.ini_options]); --check-cmd gives another, --no-check none"
    ) in said
    assert (
        "forgetui: allowed commands: python, pytest, ruff, mypy, make (from pyproject.toml, "
        "Makefile)"
    ) in said
    assert any(s.startswith("forgetui: check tests: passing (exit 0: 1 passed") for s in said)

    # the check ran at layout: step 0's verification, before any step
    status = cli("status", ws, "--json").json()
    assert status["step"] == 0 and status["status"] == "ready"
    check = status["verification"]["checks"]["tests"]
    assert check["passing"] is True and "1 passed" in check["details"]
    state = yaml.safe_load((folder / "state.yaml").read_text())
    assert state["verification"]["step"] == 0 and state["verification"]["checked_at"]

    # step 1's context knows it, and carries the workspace's shape
    ctx = cli("context", ws, "--json").json()
    sections = {section["name"]: section for section in ctx["sections"]}
    verification = yaml.safe_load(sections["verification_status"]["text"])
    checks = verification["verification_status"]["checks"]
    assert checks[0].startswith("tests: passing, 1/1 tests") and "not run" not in checks[0]
    shape = yaml.safe_load(sections["current_state"]["text"])["current_state"]["workspace_tree"]
    assert shape == [
        "src/ (demo/)",
        "tests/ (test_demo.py)",
        "Makefile",
        "pyproject.toml",
    ]  # .agentforge and the home forgetui writes to are not the project's
    assert sections["current_state"]["compressions"] == []


def test_a_failing_check_at_layout_is_known_to_step_1(cli: Any, tmp_path: Path) -> None:
    checkout(tmp_path, **{"tests/test_demo.py": "def test_answer():\n    assert 6 * 9 == 42\n"})
    made = cli("new", "--goal", "Fix the answer")
    assert made.code == 0, made.err
    assert "forgetui: check tests: failing (exit 1: 1 failed)" in made.err
    ctx = cli("context", ".", "--json").json()
    text = next(s["text"] for s in ctx["sections"] if s["name"] == "verification_status")
    assert "tests: failing, 0/1 tests" in text and "checked_at_step: 0" in text


def test_no_check_and_no_project_files(cli: Any, tmp_path: Path) -> None:
    checkout(tmp_path / "repo")
    made = cli("new", "--workspace", tmp_path / "repo", "--goal", "Tidy up", "--no-check")
    assert made.code == 0, made.err
    spec = task_yaml(Path(made.out.strip()))
    assert spec["checks"] == [] and "make" in spec["allowed_commands"]
    assert "forgetui: no checks (--no-check); add them to task.yaml's `checks`" in made.err

    (tmp_path / "bare").mkdir()
    (tmp_path / "bare" / "notes.txt").write_text("nothing to build here\n")
    made = cli("new", "--workspace", tmp_path / "bare", "--goal", "Write a poem")
    assert made.code == 0, made.err
    spec = task_yaml(Path(made.out.strip()))
    assert spec["checks"] == []
    assert spec["allowed_commands"] == ["python", "pytest", "ruff"]  # the default, unchanged
    assert "(the default: no project files)" in made.err
    assert "no test command in the project's files" in made.err
    assert "running the checks" not in made.err


def test_given_checks_win_and_their_programs_are_allowed(cli: Any, tmp_path: Path) -> None:
    checkout(tmp_path)
    made = cli("new", "--goal", "g", "--check-cmd", "python -c 'print(1)'", "--check-cmd", "tox")
    assert made.code == 0, made.err
    spec = task_yaml(Path(made.out.strip()))
    assert [check["name"] for check in spec["checks"]] == ["check-1", "check-2"]
    assert spec["checks"][0]["cmd"] == ["python", "-c", "print(1)"]
    assert spec["allowed_commands"][-1] == "tox"
    assert "tox for the checks" in made.err
    assert "forgetui: check check-1: passing (exit 0 1)" in made.err.splitlines()


def test_a_broken_project_file_is_one_line_not_fatal(cli: Any, tmp_path: Path) -> None:
    checkout(tmp_path, **{"pyproject.toml": "[tool.pytest.ini_options\n"})
    made = cli("new", "--goal", "g")
    assert made.code == 0, made.err
    (problem,) = [line for line in made.err.splitlines() if "pyproject.toml: not valid" in line]
    assert problem.endswith("; detection went on without it")
    spec = task_yaml(Path(made.out.strip()))
    assert spec["checks"][0]["cmd"] == ["pytest", "-q"]  # from tests/ instead
    assert "pytest files in tests/" in made.err


def test_bad_input_is_one_line_and_writes_nothing(cli: Any, tmp_path: Path) -> None:
    cases = [
        (("--check-cmd", "pytest -q 'unclosed"), "forgetui: --check-cmd: cannot parse command"),
        (("--check-cmd", "pytest && rm -rf ."), "forgetui: --check-cmd 'pytest && rm -rf .'"),
        (("--workspace", ""), "forgetui: --workspace: empty"),
        (("--workspace", "missing"), "forgetui: --workspace missing: not a directory"),
        (("--id",), "forgetui: new: argument --id: expected one argument"),
        (("--id=../up",), "forgetui: --id: String should match pattern"),
        (("--no-check", "--check-cmd", "pytest"), "forgetui: --no-check and --check-cmd"),
    ]
    for flags, said in cases:
        result = cli("new", "--goal", "g", *flags)
        assert result.code == 2, (flags, result.err)
        assert result.err.startswith(said) and result.err.count("\n") == 1, result.err
        assert result.out == ""
    for goal in ("", "   "):
        result = cli("new", "--goal", goal)
        assert (result.code, result.err) == (
            2,
            "forgetui: --goal: empty; say in one sentence what the task is to achieve\n",
        )
    assert not (tmp_path / ".agentforge").exists()


def test_other_kinds_of_project(tmp_path: Path) -> None:
    """npm and make are proposed, not run here (run_checks=False): what they would run is the
    project's business; what `new` writes is forgetui's."""
    said: list[str] = []
    node = tmp_path / "node"
    node.mkdir()
    (node / "package.json").write_text(json.dumps({"scripts": {"test": "jest"}}))
    folder = create_task(node, "Add a route", run_checks=False, on_notice=said.append)
    assert [check.cmd for check in folder.spec.checks] == [["npm", "test"]]
    assert folder.spec.allowed_commands == ["node", "npm", "npx"]
    proposed = "check tests: npm test (the project's test command: package.json scripts.test)"
    assert proposed in said[1]
    c_project = tmp_path / "c"
    c_project.mkdir()
    (c_project / "Makefile").write_text("CFLAGS := -O2\n\ntest: all\n\t./run_tests\n")
    folder = create_task(c_project, "Fix the build", run_checks=False)
    assert [check.cmd for check in folder.spec.checks] == [["make", "test"]]
    assert folder.spec.allowed_commands == ["make"]
    state = folder.load_state()
    assert state.verification.checked_at is None  # not run: the first step says so
