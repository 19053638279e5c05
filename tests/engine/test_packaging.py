"""An installed wheel finds its themes/ and sample_tasks/, not only a checkout does."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_wheel_carries_samples_and_themes_and_finds_them(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(tmp_path / "dist"), str(ROOT)],
        check=True, capture_output=True,
    )  # fmt: skip
    (wheel,) = (tmp_path / "dist").glob("forgetui-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "forgetui/_data/sample_tasks/hello_world/task.yaml" in names
    assert "forgetui/_data/sample_tasks/hello_world/replay.yaml" in names
    assert any(n.startswith("forgetui/_data/themes/") for n in names)
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target),
         str(wheel)],
        check=True, capture_output=True,
    )  # fmt: skip
    code = (
        "import forgetui.paths as p, forgetui.engine.start.samples as s;"
        "print(p.data_dir('sample_tasks')); print(s.sample_names())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True,
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(target)},
    ).stdout.splitlines()  # fmt: skip
    assert out[0].startswith(str(target))
    assert "hello_world" in out[1] and "long_run" in out[1]


def _runtime_requirements() -> set[str]:
    """The distributions a plain install (`make run`, `pip install forgetui`) brings."""
    from importlib.metadata import requires

    names = set()
    for line in requires("forgetui") or []:
        if "extra ==" in line:
            continue
        name = line.split(";")[0].strip()
        for stop in "<>=!~[ ":
            name = name.split(stop)[0]
        names.add(name.lower())
    return names


def test_every_program_the_samples_check_with_comes_with_the_plain_install() -> None:
    """The samples' checks run `pytest`: it must be a product dependency, not a test extra,
    or every sample ends escalated after `make run`."""
    import yaml

    needed: dict[str, str] = {}
    for task in sorted((ROOT / "sample_tasks").glob("*/task.yaml")):
        for check in yaml.safe_load(task.read_text()).get("checks", []):
            argv = check.get("cmd") or []
            if argv and argv[0] in ("pytest", "py.test"):
                needed["pytest"] = task.parent.name
            elif len(argv) > 2 and argv[0].startswith("python") and argv[1] == "-m":
                needed[argv[2]] = task.parent.name
    assert needed, "no sample runs a program: this test checks nothing"
    runtime = _runtime_requirements()
    missing = {module: sample for module, sample in needed.items() if module not in runtime}
    assert missing == {}
