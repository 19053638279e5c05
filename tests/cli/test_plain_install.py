"""Every bundled sample reaches a verified finish with nothing but the plain install: the
packages only the test extras bring cannot be imported, here or in the checks' own pytest."""

from __future__ import annotations

import tomllib
from pathlib import Path

from tests.cli.conftest import ROOT

# import names of what only `pip install -e '.[test]'` brings
_EXTRA_MODULES = {
    "pytest-textual-snapshot": "pytest_textual_snapshot",
    "hypothesis": "hypothesis",
    "import-linter": "importlinter",
    "ruff": "ruff",
    "mypy": "mypy",
    "types-PyYAML": "yaml-stubs",
    "hatchling": "hatchling",
    "pytest-xdist": "xdist",
    "pytest-timeout": "pytest_timeout",
}

SITECUSTOMIZE = """
import sys
from importlib.abc import MetaPathFinder

HIDDEN = {hidden!r}

class HideTestExtras(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in HIDDEN:
            raise ModuleNotFoundError(f"No module named {{name!r}} (not in the plain install)")
        return None

sys.meta_path.insert(0, HideTestExtras())
"""


def _hidden() -> set[str]:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = {
        line.split(">")[0].split("=")[0].split("<")[0].strip()
        for line in extras["optional-dependencies"]["test"]
    }
    runtime = {
        line.split(">")[0].split("=")[0].split("<")[0].strip() for line in extras["dependencies"]
    }
    assert not names & runtime
    assert names <= set(_EXTRA_MODULES), (
        f"teach this test the import name of {names - set(_EXTRA_MODULES)}"
    )
    return {_EXTRA_MODULES[name] for name in names}


def test_every_sample_finishes_from_the_plain_install(cli, tmp_path: Path) -> None:
    site = tmp_path / "plain-install"
    site.mkdir()
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE.format(hidden=sorted(_hidden())))
    env = {"PYTHONPATH": str(site)}
    probe = cli("run", "--help", extra_env=env)
    assert probe.code == 0, probe.err
    finished = {}
    for sample in sorted(
        p.name for p in (ROOT / "sample_tasks").iterdir() if (p / "task.yaml").is_file()
    ):
        task = Path(cli("init", sample, "--into", tmp_path / sample).out.strip())
        result = cli("run", task, "--json", extra_env=env, timeout=600)
        if result.code == 3 and result.json_lines()[-1]["pending_escalation"]["reason"] == "agent":
            assert cli("answer", task, "French", extra_env=env).code == 0  # the escalation sample
            result = cli("run", task, "--json", extra_env=env, timeout=600)
        final = result.json_lines()[-1]
        finished[sample] = (final["status"], final["verification"]["ready_for_completion"])
    assert finished == {sample: ("complete", True) for sample in finished}
    assert len(finished) == 6
