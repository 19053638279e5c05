"""The sandbox mode as the operator meets it: `status --json` names it, FORGETUI_SANDBOX chooses
it, and a mode that cannot run is one line and exit 2."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.engine.sandbox_helpers import BWRAP, NO_BWRAP


def test_status_names_the_forced_mode(cli: Any, hand_task: Path) -> None:
    result = cli("status", hand_task, "--json", extra_env={"FORGETUI_SANDBOX": "allow-list"})
    assert result.code == 0, result.err
    assert result.json()["sandbox"] == "allow-list"


@pytest.mark.skipif(not BWRAP, reason=NO_BWRAP)
def test_status_says_bwrap_where_it_works(cli: Any, hand_task: Path) -> None:
    result = cli("status", hand_task, "--json", extra_env={"FORGETUI_SANDBOX": ""})
    assert result.json()["sandbox"] == "bwrap"


def test_an_unknown_mode_is_bad_input(cli: Any, hand_task: Path) -> None:
    result = cli("status", hand_task, "--json", extra_env={"FORGETUI_SANDBOX": "docker"})
    assert result.code == 2
    assert result.err.strip() == (
        "forgetui: FORGETUI_SANDBOX='docker' is not a sandbox mode (modes: bwrap, allow-list)"
    )


def test_bwrap_asked_for_but_missing_is_bad_input(
    cli: Any, hand_task: Path, tmp_path: Path
) -> None:
    env = {"FORGETUI_SANDBOX": "bwrap", "PATH": str(tmp_path / "no-bwrap-here")}
    result = cli("status", hand_task, "--json", extra_env=env)
    assert result.code == 2
    assert result.err.strip() == (
        "forgetui: FORGETUI_SANDBOX=bwrap, but bwrap not found: "
        "install it with `sudo apt-get install bubblewrap`"
    )
