"""The engine and the headless CLI never import textual, nor litellm until a model is called."""

from __future__ import annotations

import subprocess
import sys

CODE = """
import sys
import forgetui.cli, forgetui.engine.api, forgetui.engine.step.executor, forgetui.engine.step.runner
import forgetui.engine.context, forgetui.engine.llm, forgetui.engine.start.samples
from forgetui.engine.base.tokens import counter_for
counter_for("openai/gpt-4o").count("hello")
print(sorted(m for m in sys.modules if m.split(".")[0] in ("textual", "litellm")))
"""


def test_engine_and_cli_import_neither_textual_nor_litellm() -> None:
    out = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_headless_status_imports_neither(tmp_path) -> None:
    code = (
        "import sys, runpy\n"
        "sys.argv = ['forgetui', 'init', 'hello_world', '--into', sys.argv[1]]\n"
        "from forgetui.cli import main\n"
        "assert main() == 0\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'litellm')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "run")],
        capture_output=True,
        text=True,
        check=True,
        env={"FORGETUI_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin"},
    )
    assert out.stdout.strip().splitlines()[-1] == "[]"
