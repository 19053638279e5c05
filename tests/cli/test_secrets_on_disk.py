"""An agent that goes after the operator's keys through a real headless run: the parent's
/proc environ, every /proc/*/environ, its own environment, a file under $HOME. Afterwards no
byte of the secret is anywhere in the task folder or the workspace (log, memory, contexts,
outputs), in either sandbox mode."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from forgetui.engine.sandbox import sandbox_mode
from tests.engine.helpers import act, make_task

SECRET = "sk-test-0123456789abcdefSECRETVALUE"
ATTEMPTS = [
    # the engine's environment through /proc
    "import os; print(open(f'/proc/{os.getppid()}/environ').read())",
    "import glob\nfor p in glob.glob('/proc/*/environ'):\n"
    "    try: print(open(p).read())\n    except OSError: pass",
    # what the child was given
    "import os; print(dict(os.environ))",
    # a key file in the operator's home
    "import os, pathlib; print(pathlib.Path(os.environ['REAL_HOME_HINT']).joinpath("
    "'.config/keys.txt').read_text())",
]
MODES = ["bwrap", "allow-list"]


@pytest.mark.parametrize("mode", MODES)
def test_no_secret_reaches_the_disk(cli: Any, tmp_path: Path, mode: str) -> None:
    if mode == "bwrap" and sandbox_mode().name != "bwrap":
        pytest.skip(sandbox_mode().reason)
    home = tmp_path / "operator-home"
    (home / ".config").mkdir(parents=True)
    (home / ".config" / "keys.txt").write_text(f"OPENAI_API_KEY={SECRET}\n")
    script = [act("run_cmd", cmd=["python", "-c", code]) for code in ATTEMPTS]
    script.append(act("note", text="done looking"))
    script.append(act("complete", summary="nothing found"))
    folder = make_task(tmp_path, script, checks=[], env_passthrough=["REAL_HOME_HINT"])
    env = {
        "OPENAI_API_KEY": SECRET,
        "MYAPP_AUTH_HEADER": f"Bearer {SECRET}",
        "HOME": str(home),
        "REAL_HOME_HINT": str(home),
        "FORGETUI_SANDBOX": mode,
    }
    done = cli("run", folder.path, "--json", "--until", "escalation", extra_env=env)
    assert done.code == 0, done.err
    assert SECRET not in done.out + done.err
    leaked = [
        str(path)
        for path in (tmp_path / "ws").rglob("*")
        if path.is_file() and SECRET.encode() in path.read_bytes()
    ]
    assert leaked == []
    log = (folder.path / "actions.yaml").read_text()
    assert "redacted" in log or mode == "bwrap"  # allow-list mode: the reads worked, were cut
    # the attempts really ran (not refused): each has a result with output
    assert log.count('"action": "run_cmd"') == 2 * len(ATTEMPTS)
    assert os.environ.get("OPENAI_API_KEY") != SECRET  # the test's own env is untouched
