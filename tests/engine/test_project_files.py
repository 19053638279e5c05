"""What a checkout's own files say: the allow-list a task there starts from and the test command
`forgetui new` proposes. Each kind of project, the precedence between them, and files that are
broken, too large, a FIFO or a link out of the workspace (reported, never fatal, never read)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from forgetui.engine.workspace.project_files import MAX_FILE_BYTES, read_project

PYTHON = ("python", "pytest", "ruff", "mypy")


def write(ws: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = ws / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return ws


@pytest.mark.parametrize(
    ("files", "tools"),
    [
        ({"pyproject.toml": "[project]\nname = 'x'\n"}, PYTHON),
        ({"setup.cfg": "[metadata]\nname = x\n"}, PYTHON),
        ({"tox.ini": "[tox]\nenvlist = py311\n"}, PYTHON),
        ({"package.json": '{"name": "x"}'}, ("node", "npm", "npx")),
        ({"Makefile": "all:\n\techo hi\n"}, ("make",)),
        ({"Cargo.toml": "[package]\nname = 'x'\n"}, ("cargo",)),
        ({"go.mod": "module example.com/x\n"}, ("go",)),
        ({"pyproject.toml": "", "package.json": "{}", "Makefile": ""},
         (*PYTHON, "node", "npm", "npx", "make")),
        ({"README.md": "hello\n"}, ()),
    ],
)  # fmt: skip
def test_tools_come_from_the_project_files(
    tmp_path: Path, files: dict[str, str], tools: tuple[str, ...]
) -> None:
    project = read_project(write(tmp_path, files))
    assert project.tools == tools
    assert project.problems == ()


@pytest.mark.parametrize(
    ("files", "command", "source"),
    [
        ({"pyproject.toml": "[tool.pytest.ini_options]\ntestpaths = ['tests']\n"},
         "pytest -q", "pyproject.toml [tool.pytest.ini_options]"),
        ({"pytest.ini": "[pytest]\n"}, "pytest -q", "pytest.ini"),
        ({"setup.cfg": "[tool:pytest]\ntestpaths = tests\n"},
         "pytest -q", "setup.cfg [tool:pytest]"),
        ({"tox.ini": "[pytest]\naddopts = -ra\n"}, "pytest -q", "tox.ini [pytest]"),
        # pytest's own order: pytest.ini, pyproject.toml, tox.ini, setup.cfg
        ({"setup.cfg": "[tool:pytest]\n", "tox.ini": "[pytest]\n", "pytest.ini": "",
          "pyproject.toml": "[tool.pytest.ini_options]\n"}, "pytest -q", "pytest.ini"),
        ({"setup.cfg": "[tool:pytest]\n", "tox.ini": "[pytest]\n",
          "pyproject.toml": "[tool.pytest.ini_options]\n"},
         "pytest -q", "pyproject.toml [tool.pytest.ini_options]"),
        ({"pyproject.toml": "[project]\nname='x'\n", "tests/test_app.py": "def test(): pass\n"},
         "pytest -q", "pytest files in tests/"),
        ({"package.json": json.dumps({"scripts": {"test": "jest"}})},
         "npm test", "package.json scripts.test"),
        ({"Makefile": "CC := gcc\n\ntest: build\n\t./run-tests\n"},
         "make test", "Makefile: a `test` rule"),
        # pytest first, then npm, then make
        ({"Makefile": "test:\n\tpytest\n", "pytest.ini": "[pytest]\n"}, "pytest -q", "pytest.ini"),
        ({"Makefile": "test:\n\tnpm test\n", "package.json": '{"scripts": {"test": "jest"}}'},
         "npm test", "package.json scripts.test"),
    ],
)  # fmt: skip
def test_the_projects_own_test_command(
    tmp_path: Path, files: dict[str, str], command: str, source: str
) -> None:
    project = read_project(write(tmp_path, files))
    assert project.test_command is not None
    assert (project.test_command.text, project.test_command.source) == (command, source)
    assert project.test_command.argv[0] in project.tools  # its program is allowed


@pytest.mark.parametrize(
    ("addopts", "command"),
    [
        ("'-ra'", "pytest -q"),
        ("'-q'", "pytest"),  # a second -q would drop the summary line the check counts from
        ("['-p', 'no:cacheprovider', '--quiet']", "pytest"),
        ("'-qq --strict-markers'", "pytest -v"),
        ("'-v'", "pytest -q"),
        ("'-q \"unclosed'", "pytest"),
    ],
)
def test_the_command_is_as_quiet_as_minus_q_once(
    tmp_path: Path, addopts: str, command: str
) -> None:
    write(tmp_path, {"pyproject.toml": f"[tool.pytest.ini_options]\naddopts = {addopts}\n"})
    test = read_project(tmp_path).test_command
    assert test is not None and test.text == command


@pytest.mark.parametrize(
    "files",
    [
        {"pyproject.toml": "[project]\nname = 'x'\n"},  # no pytest table, no tests
        {"setup.cfg": "[flake8]\nmax-line-length = 100\n"},
        {"package.json": json.dumps({"scripts": {"test": 'echo "Error: no test specified"'}})},
        {"package.json": json.dumps({"scripts": {"build": "tsc"}})},
        {"Makefile": "test := value\ntests:\n\techo\n"},  # a variable and another rule
        {"tests/helpers.py": "x = 1\n"},  # a tests/ folder without pytest files
    ],
)  # fmt: skip
def test_no_test_command_when_the_files_name_none(tmp_path: Path, files: dict[str, str]) -> None:
    assert read_project(write(tmp_path, files)).test_command is None


def test_pytest_files_without_project_files_bring_python(tmp_path: Path) -> None:
    project = read_project(write(tmp_path, {"test_hello.py": "def test(): pass\n"}))
    assert project.test_command is not None
    assert project.test_command.source == "pytest files in the top level"
    assert project.tools == PYTHON


@pytest.mark.parametrize(
    ("name", "text", "problem"),
    [
        ("pyproject.toml", "[tool.pytest.ini_options\n", "pyproject.toml: not valid TOML"),
        ("package.json", '{"scripts": {"test": "jest"', "package.json: not valid JSON"),
        ("setup.cfg", "no section header\n", "setup.cfg: not valid INI (line 1)"),
        ("tox.ini", "[tox]\nenvlist = py\n  [broken\n= x\n", "tox.ini: not valid INI (line 4)"),
        ("pyproject.toml", b"[tool]\nname = '\xff'\n", "pyproject.toml: not UTF-8 text"),
    ],
)
def test_a_broken_file_is_one_line_and_detection_goes_on(
    tmp_path: Path, name: str, text: str | bytes, problem: str
) -> None:
    write(tmp_path, {"tests/test_x.py": "def test(): pass\n"})
    if isinstance(text, bytes):
        (tmp_path / name).write_bytes(text)
    else:
        (tmp_path / name).write_text(text)
    project = read_project(tmp_path)
    (line,) = project.problems
    assert line.startswith(problem) and "\n" not in line
    assert name in project.found  # the file is still there: its tools stay
    assert project.test_command is not None  # the tests/ folder still says pytest
    assert project.test_command.source == "pytest files in tests/"


def test_files_that_must_not_be_read_are_not(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "pyproject.toml").symlink_to(outside / "pyproject.toml")
    os.mkfifo(ws / "package.json")  # opening it for reading would block without O_NONBLOCK
    (ws / "Makefile").write_text("test:\n" + "#" * MAX_FILE_BYTES)
    project = read_project(ws)
    assert project.problems == (
        "pyproject.toml: a link out of the workspace, not read",
        "package.json: not a regular file, ignored",
        f"Makefile: larger than {MAX_FILE_BYTES // 1024} KiB, not read",
    )
    assert project.test_command is None  # the linked pytest table was not read
    assert project.found == ("pyproject.toml", "package.json", "Makefile")


def test_a_link_inside_the_workspace_is_read(tmp_path: Path) -> None:
    write(tmp_path, {"config/pyproject.toml": "[tool.pytest.ini_options]\n"})
    (tmp_path / "pyproject.toml").symlink_to(tmp_path / "config" / "pyproject.toml")
    project = read_project(tmp_path)
    assert project.problems == ()
    assert project.test_command is not None
    assert project.test_command.source == "pyproject.toml [tool.pytest.ini_options]"
