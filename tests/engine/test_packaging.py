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
        "import forgetui.paths as p, forgetui.engine.samples as s;"
        "print(p.data_dir('sample_tasks')); print(s.sample_names())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True,
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(target)},
    ).stdout.splitlines()  # fmt: skip
    assert out[0].startswith(str(target))
    assert "hello_world" in out[1] and "long_run" in out[1]
