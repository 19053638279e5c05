"""Ctrl+C in a headless `forgetui run` on a terminal: the live status line ("step 4: model
human") is erased before "forgetui: interrupted", not left above the shell's prompt."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from forgetui.cli import main, render
from forgetui.engine import api
from forgetui.engine.api import StepEvent
from forgetui.engine.start.samples import init_sample

ERASE = re.compile(r"\r|\x1b\[2K|\x1b\[\d*[AK]")


def last_visible_line(written: str) -> str:
    """What a terminal shows on the cursor's line at the end: the text after the last line
    break, carriage return or line erase."""
    return ERASE.split(written.rsplit("\n", 1)[-1])[-1]


def test_an_interrupted_run_leaves_no_status_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FORGETUI_HOME", str(tmp_path / "home"))
    task = init_sample("hello_world", into=tmp_path / "ws").path
    screen = io.StringIO()
    terminal = Console(file=screen, force_terminal=True, width=80)
    monkeypatch.setattr(render, "_CONSOLE", [terminal])

    def interrupted_run(*_args: Any, on_event: Any, **_kwargs: Any) -> None:
        on_event(StepEvent(4, "model", "human"))
        raise KeyboardInterrupt

    monkeypatch.setattr(api, "run", interrupted_run)
    assert main(["run", str(task), "--model", "human"]) == 130
    assert "step 4: model human" in screen.getvalue()  # the status line was up
    assert capsys.readouterr().err.endswith("forgetui: interrupted\n")
    assert "step 4" not in last_visible_line(screen.getvalue())
