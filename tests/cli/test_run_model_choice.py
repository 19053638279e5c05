"""`forgetui run` chooses its model as the workbench does: the flag, else FORGETUI_MODEL, else
the user config's `model`, else task.yaml's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from forgetui.engine import api

pytestmark = pytest.mark.timeout(180)


def _script(path: Path, text: str) -> Path:
    path.write_text(yaml.safe_dump([{"action": "note", "args": {"text": text}}]))
    return path


def _first_note(task: Path) -> str:
    results = [r for r in api.open_task(task).log.iter_records() if r.kind == "intent"]
    return str(results[0].args.get("text"))


@pytest.fixture
def task(cli_in_process: Any, tmp_path: Path) -> Path:
    assert cli_in_process("init", "hello_world", "--into", tmp_path / "ws").code == 0
    return tmp_path / "ws"


def test_run_takes_the_model_from_the_environment(
    cli_in_process: Any, task: Path, tmp_path: Path
) -> None:
    script = _script(tmp_path / "env.yaml", "from the environment")
    done = cli_in_process(
        "run", task, "--max-steps", "1", extra_env={"FORGETUI_MODEL": f"replay:{script}"}
    )
    assert done.code in (0, 1), done.err
    assert _first_note(task) == "from the environment"


def test_run_takes_the_model_from_the_user_config_and_a_flag_wins(
    cli_in_process: Any, task: Path, tmp_path: Path
) -> None:
    config = tmp_path / "home" / "config" / "config.yaml"
    config.parent.mkdir(parents=True, exist_ok=True)
    script = _script(tmp_path / "config.yaml", "from the config")
    config.write_text(yaml.safe_dump({"model": f"replay:{script}"}))
    assert cli_in_process("run", task, "--max-steps", "1").code in (0, 1)
    assert _first_note(task) == "from the config"
    flag = _script(tmp_path / "flag.yaml", "from the flag")
    other = tmp_path / "ws2"
    assert cli_in_process("init", "hello_world", "--into", other).code == 0
    assert cli_in_process("run", other, "--max-steps", "1", "--model", f"replay:{flag}").code in (
        0,
        1,
    )
    assert _first_note(other) == "from the flag"


def test_a_broken_config_is_said_and_the_run_goes_on(
    cli_in_process: Any, task: Path, tmp_path: Path
) -> None:
    config = tmp_path / "home" / "config" / "config.yaml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("model: [unclosed\n")
    done = cli_in_process("run", task, "--max-steps", "1")
    assert done.code in (0, 1) and "config.yaml" in done.err
    assert _first_note(task) != ""  # task.yaml's own model (the sample's replay) ran
