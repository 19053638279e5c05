"""A developer's checkout as pip and `python -m venv` leave it, built offline in a few hundred
milliseconds: a `.venv` made without pip, the project installed editable (a .pth into src/ and
a dist-info), and its tools copied from forgetui's environment file by file, as their RECORD
lists them, with console scripts whose shebang is the venv's own python."""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from collections.abc import Iterable, Mapping
from pathlib import Path

from packaging.requirements import Requirement

# a pip-made console script, byte for byte but for the entry point
_SCRIPT = """#!{python}
# -*- coding: utf-8 -*-
import re
import sys
from {module} import {attr}
if __name__ == '__main__':
    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])
    sys.exit({call}())
"""


def make_venv(path: Path) -> Path:
    """`python -m venv --without-pip PATH` from forgetui's interpreter; returns its python.
    The new venv sees none of forgetui's packages: it is based on the base interpreter."""
    venv.EnvBuilder(with_pip=False, symlinks=os.name != "nt", clear=True).create(path)
    return venv_python(path)


def venv_python(path: Path) -> Path:
    return path / "bin" / "python"


def site_packages(path: Path) -> Path:
    rel = Path(sysconfig.get_path("purelib")).relative_to(sys.prefix)
    return path / rel


def _dist_info(
    venv_dir: Path, name: str, version: str, files: Iterable[str], extra: Mapping[str, str]
) -> None:
    info = site_packages(venv_dir) / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    (info / "WHEEL").write_text("Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\n")
    (info / "INSTALLER").write_text("pip\n")
    for filename, text in extra.items():
        (info / filename).write_text(text)
    own = [f"{info.name}/{entry}" for entry in ("METADATA", "WHEEL", "INSTALLER", *extra)]
    (info / "RECORD").write_text(
        "".join(f"{entry},,\n" for entry in [*files, *own, f"{info.name}/RECORD"])
    )


def install_editable(venv_dir: Path, name: str, version: str, src: Path) -> None:
    """`pip install -e .` of a src-layout project: a .pth naming src/ and a dist-info saying
    where the project lives."""
    pth = f"__editable__.{name}-{version}.pth"
    (site_packages(venv_dir) / pth).write_text(f"{src.resolve()}\n")
    url = {"url": src.resolve().parent.as_uri(), "dir_info": {"editable": True}}
    _dist_info(venv_dir, name, version, [pth], {"direct_url.json": json.dumps(url)})


def install_package(venv_dir: Path, name: str, version: str, modules: Mapping[str, str]) -> None:
    """A built wheel of `name` installed: its modules (relative path -> text) in site-packages
    and its dist-info."""
    root = site_packages(venv_dir)
    for rel, text in modules.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    _dist_info(venv_dir, name, version, modules, {})


def _needs(dist: importlib.metadata.Distribution) -> list[str]:
    """The distributions `dist` requires on this interpreter (no extras)."""
    found = []
    for line in dist.requires or []:
        req = Requirement(line)
        if req.marker is None or req.marker.evaluate({"extra": ""}):
            found.append(req.name)
    return found


def copy_distributions(venv_dir: Path, names: Iterable[str]) -> list[str]:
    """Copy the installed distributions `names` and what they require from forgetui's
    environment into the venv, file by file as each RECORD lists them (compiled files too:
    same interpreter, same mtimes, so they stay valid, as pip's would), and write their console
    scripts for the venv's python. Returns what was copied."""
    root = site_packages(venv_dir)
    todo, done = list(names), []
    while todo:
        dist = importlib.metadata.distribution(todo.pop())
        name = dist.metadata["Name"]
        if name in done:
            continue
        done.append(name)
        todo += _needs(dist)
        for file in dist.files or []:
            if file.parts[0] == "..":
                continue  # scripts are written below, for this venv's python
            source = Path(str(dist.locate_file(file)))
            if source.is_file():
                (root / file).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, root / file)
        for entry in dist.entry_points.select(group="console_scripts"):
            write_console_script(venv_dir, entry.name, entry.value)
    return done


def write_console_script(venv_dir: Path, name: str, target: str) -> Path:
    """bin/NAME running `module:function` with the venv's python, as pip writes it."""
    module, _, call = target.partition(":")
    attr = call.split(".")[0]
    python = venv_python(venv_dir)
    script = venv_dir / "bin" / name
    script.write_text(_SCRIPT.format(python=python, module=module, attr=attr, call=call))
    script.chmod(0o755)
    return script


def imports(python: Path | str, module: str, env: Mapping[str, str] | None = None) -> str | None:
    """Where `python` imports `module` from, or None if it cannot: run in a clean directory,
    so the current one proves nothing."""
    proc = subprocess.run(
        [str(python), "-c", f"import {module}; print({module}.__file__)"],
        capture_output=True,
        text=True,
        cwd="/",
        env={"PATH": os.environ.get("PATH", ""), **(env or {})},
        timeout=60,
    )
    return proc.stdout.strip() if proc.returncode == 0 else None


def git_checkout(path: Path) -> bool:
    """`git init` + one commit of everything not ignored, if git is installed."""
    git = shutil.which("git")
    if git is None:
        return False
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "dev",
        "GIT_AUTHOR_EMAIL": "dev@example.com",
        "GIT_COMMITTER_NAME": "dev",
        "GIT_COMMITTER_EMAIL": "dev@example.com",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "initial"]):
        subprocess.run([git, *args], cwd=path, env=env, check=True, capture_output=True)
    return True
