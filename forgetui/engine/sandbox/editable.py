"""An editable install that still points at another checkout.

`pip install -e .` writes the checkout's absolute path into the environment's site-packages. In
a copied or re-cloned workspace that path names the old checkout: the sandbox hides it (under
the home or /tmp) and the project's checks fail to import the project, or they test the other
copy. Found by reading the files as text, bounded: the environment lies in the agent-writable
workspace, so nothing in it is imported or run here, and a huge or binary file only costs a
bounded read."""

from __future__ import annotations

import ast
import contextlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

from forgetui.engine.sandbox.project_env import ProjectEnvironment, find_environment, read_head

_FILE_BYTES = 256 * 1024  # an editable .pth or finder is a few lines; more is not read
_MAX_FILES = 200  # .pth files and finders read in one environment
_MAX_SITE_DIRS = 4  # lib/python3.*/site-packages folders looked in
_MAX_FOUND = 10  # outside paths reported; a hostile .pth may list thousands
_PATHS_PER_FILE = 64  # an editable install names one or two
_PATH_MAX = 4096
# setuptools writes the literal on one line; matching within a line keeps a hostile file linear
_MAPPING = re.compile(rb"^MAPPING[ \t]*(?::[^=\n]*)?=[ \t]*(\{[^}\n]*\})", re.MULTILINE)
IMPORT_FAILURE = re.compile(r"\b(ModuleNotFoundError|ImportError)\b")


@dataclass(frozen=True)
class OutsideEditable:
    """One path an environment's install file adds to the import path, outside the workspace."""

    file: Path  # the .pth or __editable___*_finder.py naming it
    source: Path  # the path it names, as written

    def line(self, workspace: Path, environment: ProjectEnvironment) -> str:
        """One line for the developer: which file, which path, and the command that fixes it."""
        return (
            f"{_shown(self.file, workspace)} installs the project from {self.source}, outside "
            f"the workspace; reinstall it from the workspace: {_pip(workspace, environment)} "
            "install -e ."
        )


def _shown(path: Path, workspace: Path) -> str:
    with contextlib.suppress(ValueError):
        return str(path.relative_to(workspace))
    return str(path)


def _pip(workspace: Path, environment: ProjectEnvironment) -> str:
    bin_dir = environment.bin_dir or environment.python.parent
    return _shown(bin_dir / "pip", workspace)


def _site_dirs(prefix: Path) -> list[Path]:
    found: list[Path] = []
    with contextlib.suppress(OSError):
        for lib in sorted((prefix / "lib").iterdir()):
            if lib.name.startswith("python") and (lib / "site-packages").is_dir():
                found.append(lib / "site-packages")
            if len(found) >= _MAX_SITE_DIRS:
                break
    return found


def _install_files(site: Path) -> list[Path]:
    """The .pth files and setuptools' editable finders in `site`, by name only."""
    found: list[Path] = []
    with contextlib.suppress(OSError), os.scandir(site) as entries:
        for entry in entries:
            name = entry.name
            is_finder = name.startswith("__editable__") and name.endswith("_finder.py")
            if name.endswith(".pth") or is_finder:
                found.append(site / name)
            if len(found) >= _MAX_FILES:
                break
    return sorted(found)


def _pth_paths(data: bytes) -> list[str]:
    """The absolute paths a .pth lists; `import` lines, comments and lines that are not UTF-8
    are passed over."""
    paths: list[str] = []
    for raw in data.splitlines():
        try:
            line = raw.decode("utf-8").strip()
        except UnicodeDecodeError:
            continue
        if line.startswith("/") and len(line) <= _PATH_MAX and "\x00" not in line:
            paths.append(line)
    return paths


def _finder_paths(data: bytes) -> list[str]:
    """The values of a setuptools editable finder's `MAPPING = {...}` literal (package ->
    its source folder), parsed as a literal: the module itself is never imported."""
    match = _MAPPING.search(data)
    if match is None:
        return []
    try:
        mapping = ast.literal_eval(match.group(1).decode("utf-8"))
    except (ValueError, SyntaxError, UnicodeDecodeError, MemoryError, RecursionError):
        return []
    if not isinstance(mapping, dict):
        return []
    return [
        value
        for value in mapping.values()
        if isinstance(value, str) and value.startswith("/") and len(value) <= _PATH_MAX
    ]


def _inside(path: str, roots: list[Path]) -> bool:
    where = Path(os.path.normpath(path))
    places = [where]
    with contextlib.suppress(OSError, RuntimeError):
        places.append(where.resolve())
    return any(place.is_relative_to(root) for place in places for root in roots)


def _roots(*paths: Path) -> list[Path]:
    roots: list[Path] = []
    for root in paths:
        roots.append(root.absolute())
        with contextlib.suppress(OSError, RuntimeError):
            roots.append(root.resolve())
    return roots


def outside_editables(workspace: Path, environment: ProjectEnvironment) -> list[OutsideEditable]:
    """The paths the environment's .pth files and editable finders add that lie outside the
    workspace and outside the environment and its base installation (those are mounted).
    Only an environment inside the workspace is looked at: that is the one copied along with
    the checkout; an active $VIRTUAL_ENV elsewhere may rightly hold other projects' installs."""
    if environment.prefix is None or not _inside(str(environment.prefix), _roots(workspace)):
        return []
    roots = _roots(workspace, environment.prefix, *environment.base)
    found: list[OutsideEditable] = []
    for site in _site_dirs(environment.prefix):
        for file in _install_files(site):
            data = read_head(file, _FILE_BYTES) or b""
            named = _pth_paths(data) if file.suffix == ".pth" else _finder_paths(data)
            for path in list(dict.fromkeys(named))[:_PATHS_PER_FILE]:
                if not _inside(path, roots):
                    found.append(OutsideEditable(file, Path(path)))
                if len(found) >= _MAX_FOUND:
                    return found
    return found


def outside_editable_lines(workspace: Path, environment: ProjectEnvironment) -> list[str]:
    """One line per outside path, for `doctor` and a check that failed to import."""
    return [item.line(workspace, environment) for item in outside_editables(workspace, environment)]


def workspace_environment(workspace: Path) -> ProjectEnvironment:
    """The environment commands in `workspace` would run with, no task naming one: its .venv/
    or venv/, else $VIRTUAL_ENV, else forgetui's own interpreter."""
    return find_environment(workspace.absolute())


def environment_warnings(workspace: Path) -> list[str]:
    """What is wrong with `workspace_environment(workspace)`."""
    return outside_editable_lines(workspace.absolute(), workspace_environment(workspace))
