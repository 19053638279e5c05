"""What a checkout's own files say about it: the programs its commands need (the allow-list a
task made there starts from) and its own test command (the check `forgetui new` proposes when
given none).

Reading is bounded and executes nothing: only the workspace's top level and its tests/ folder
are looked at, each file is read up to a size cap through tomllib, configparser or json, a file
that is a link out of the workspace or not a regular file is not opened, and a file that does
not parse is one line in `problems`, never fatal: detection goes on without it."""

from __future__ import annotations

import configparser
import os
import re
import shlex
import stat
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from forgetui.engine.base.yamlio import load_json

MAX_FILE_BYTES = 512 * 1024
MAX_SCANNED = 500  # entries of the top level or of tests/ looked at for pytest files

# project file -> the programs it calls for, in the order an allow-list lists them
_PYTHON = ("python", "pytest", "ruff", "mypy")
TOOLS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("pyproject.toml", _PYTHON),
    ("setup.cfg", _PYTHON),
    ("tox.ini", _PYTHON),
    ("setup.py", _PYTHON),
    ("pytest.ini", _PYTHON),
    ("package.json", ("node", "npm", "npx")),
    ("Makefile", ("make",)),
    ("makefile", ("make",)),
    ("GNUmakefile", ("make",)),
    ("Cargo.toml", ("cargo",)),
    ("go.mod", ("go",)),
)
TEST_DIRS = ("tests", "test")
_PYTEST_FILE = re.compile(r"(test_.*|.*_test|conftest)\.py")
_MAKE_TEST = re.compile(r"^test\s*:(?![:=])", re.MULTILINE)  # a rule, not `test := value`
_NPM_PLACEHOLDER = "no test specified"  # `npm init`'s scripts.test, which only fails


@dataclass(frozen=True)
class TestCommand:
    """The project's own test command and what said so."""

    __test__ = False  # not a pytest test class

    argv: tuple[str, ...]
    source: str  # "pyproject.toml [tool.pytest.ini_options]"

    @property
    def text(self) -> str:
        return shlex.join(self.argv)


@dataclass(frozen=True)
class ProjectFiles:
    """What the files at a workspace's top level say. `tools` is empty when none of the known
    project files is there (the task keeps the default allow-list)."""

    tools: tuple[str, ...] = ()
    found: tuple[str, ...] = ()  # the project files the tools come from
    test_command: TestCommand | None = None
    problems: tuple[str, ...] = field(default=())  # one line each: a file left out, and why

    @property
    def tools_source(self) -> str:
        """What the tools come from: the project files, else the pytest files found."""
        if self.found:
            return ", ".join(self.found)
        return self.test_command.source if self.test_command else ""


class _Reader:
    """Bounded reads of the workspace's top-level files, noting what could not be read."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace
        self.root = workspace.resolve()
        self.problems: list[str] = []

    def exists(self, name: str) -> bool:
        try:
            mode = os.lstat(self.workspace / name).st_mode
        except OSError:
            return False
        return not stat.S_ISDIR(mode)

    def text(self, name: str) -> str | None:
        """The file's text; None (and a problem noted, unless it is absent) if it cannot be
        read within the rules."""
        path = self.workspace / name
        try:
            if os.path.islink(path) and not path.resolve().is_relative_to(self.root):
                self.problems.append(f"{name}: a link out of the workspace, not read")
                return None
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO must not block the read
        except FileNotFoundError:
            return None
        except OSError as exc:
            self.problems.append(f"{name}: cannot be read ({exc.strerror or exc}), ignored")
            return None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                self.problems.append(f"{name}: not a regular file, ignored")
                return None
            data = os.read(fd, MAX_FILE_BYTES + 1)
        except OSError as exc:
            self.problems.append(f"{name}: cannot be read ({exc.strerror or exc}), ignored")
            return None
        finally:
            os.close(fd)
        if len(data) > MAX_FILE_BYTES:
            self.problems.append(f"{name}: larger than {MAX_FILE_BYTES // 1024} KiB, not read")
            return None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            self.problems.append(f"{name}: not UTF-8 text, ignored")
            return None

    def toml(self, name: str) -> dict[str, Any] | None:
        text = self.text(name)
        if text is None:
            return None
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            self.problems.append(f"{name}: not valid TOML ({exc}), ignored")
            return None

    def json(self, name: str) -> Any:
        text = self.text(name)
        if text is None:
            return None
        try:
            return load_json(text)
        except ValueError as exc:
            self.problems.append(f"{name}: not valid JSON ({exc}), ignored")
            return None

    def ini(self, name: str) -> configparser.ConfigParser | None:
        text = self.text(name)
        if text is None:
            return None
        parser = configparser.ConfigParser(interpolation=None, strict=False)
        try:
            parser.read_string(text, source=name)
        except configparser.Error as exc:  # the line, not its text: it may hold a secret
            errors = getattr(exc, "errors", None)
            line = errors[0][0] if errors else getattr(exc, "lineno", None)
            where = f"line {line}" if line else type(exc).__name__
            self.problems.append(f"{name}: not valid INI ({where}), ignored")
            return None
        return parser


def read_project(workspace: Path) -> ProjectFiles:
    """What `workspace`'s own files say about its tools and its test command."""
    reader = _Reader(workspace)
    found = [name for name, _ in TOOLS if reader.exists(name)]
    tools = [tool for name, programs in TOOLS if name in found for tool in programs]
    test = _test_command(reader, found)
    if test is not None and test.argv[0] not in tools:
        # pytest files in tests/ with no project file: python's tools come with them
        tools += _PYTHON if test.argv[0] == "pytest" else (test.argv[0],)
    return ProjectFiles(
        tools=tuple(dict.fromkeys(tools)),
        found=tuple(found),
        test_command=test,
        problems=tuple(reader.problems),
    )


def _test_command(reader: _Reader, found: list[str]) -> TestCommand | None:
    """The first of: pytest configured, pytest files present, package.json's scripts.test, a
    Makefile's `test` rule. Every file that could tell is read, so each broken one is
    reported."""
    configured = _pytest_config(reader, found)
    npm = _npm_test(reader) if "package.json" in found else None
    makefile = next((name for name in ("GNUmakefile", "makefile", "Makefile") if name in found), "")
    make = _make_test(reader, makefile) if makefile else None
    if configured is not None:
        source, addopts = configured
        return TestCommand(("pytest", *_quiet_once(addopts)), source)
    tests = _pytest_files(reader.workspace)
    if tests:
        return TestCommand(("pytest", "-q"), f"pytest files in {tests}")
    return npm or make


def _pytest_config(reader: _Reader, found: list[str]) -> tuple[str, str] | None:
    """The configuration pytest itself would take, in its order (pytest.ini, pyproject.toml,
    tox.ini, setup.cfg), and its `addopts`. Each is read, so a broken one is reported."""
    configs: list[tuple[str, str] | None] = []
    for name, section in (("pytest.ini", "pytest"), ("pyproject.toml", ""), ("tox.ini", "pytest"),
                          ("setup.cfg", "tool:pytest")):  # fmt: skip
        if name not in found:
            continue
        if name == "pyproject.toml":
            configs.append(_pyproject_pytest(reader.toml(name)))
            continue
        parser = reader.ini(name)
        if parser is not None and parser.has_section(section):
            addopts = parser.get(section, "addopts", fallback="")
            configs.append((name if name == "pytest.ini" else f"{name} [{section}]", addopts))
        elif name == "pytest.ini":  # pytest takes it whatever it holds
            configs.append((name, ""))
    return next((config for config in configs if config is not None), None)


def _pyproject_pytest(data: dict[str, Any] | None) -> tuple[str, str] | None:
    tool = data.get("tool") if isinstance(data, dict) else None
    table = tool.get("pytest") if isinstance(tool, dict) else None
    if not isinstance(table, dict):
        return None
    options = table.get("ini_options")
    name = "pyproject.toml [tool.pytest.ini_options]"
    if not isinstance(options, dict):
        options, name = table, "pyproject.toml [tool.pytest]"
    addopts = options.get("addopts", "")
    return name, " ".join(map(str, addopts)) if isinstance(addopts, list) else str(addopts)


def _quiet_once(addopts: str) -> tuple[str, ...]:
    """The flags that make pytest exactly `-q` given the project's own `addopts`: a second
    `-q` drops the "2 failed, 5 passed" line the check counts tests from."""
    try:
        words = shlex.split(addopts)
    except ValueError:
        words = addopts.split()
    quiet = 0
    for word in words:
        if word in ("--quiet", "--verbose"):
            quiet += 1 if word == "--quiet" else -1
        elif re.fullmatch(r"-q+|-v+", word):
            quiet += (len(word) - 1) * (1 if word[1] == "q" else -1)
    if quiet <= 0:
        return ("-q",)
    return ("-v",) * (quiet - 1)


def _pytest_files(workspace: Path) -> str | None:
    """Where pytest files are (tests/, test/ or the top level), looking at a bounded number of
    entries and following no link."""
    for name in (*TEST_DIRS, ""):
        where = workspace / name if name else workspace
        if name and (where.is_symlink() or not where.is_dir()):
            continue
        if any(_PYTEST_FILE.fullmatch(entry) for entry in _names(where)):
            return f"{name}/" if name else "the top level"
    return None


def _names(directory: Path) -> Iterator[str]:
    try:
        with os.scandir(directory) as entries:
            for count, entry in enumerate(entries):
                if count >= MAX_SCANNED:
                    return
                yield entry.name
    except OSError:
        return


def _npm_test(reader: _Reader) -> TestCommand | None:
    data = reader.json("package.json")
    scripts = data.get("scripts") if isinstance(data, dict) else None
    script = scripts.get("test") if isinstance(scripts, dict) else None
    if not isinstance(script, str) or not script.strip() or _NPM_PLACEHOLDER in script:
        return None
    return TestCommand(("npm", "test"), "package.json scripts.test")


def _make_test(reader: _Reader, name: str) -> TestCommand | None:
    text = reader.text(name)
    if text is None or not _MAKE_TEST.search(text):
        return None
    return TestCommand(("make", "test"), f"{name}: a `test` rule")
