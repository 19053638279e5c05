"""`forgetui status`: each check on one line, cut to the terminal, its details shown as the
workspace's text (a regex's brackets are not markup)."""

from __future__ import annotations

import pytest

from forgetui.cli import render
from forgetui.cli.commands.status import print_status

DETAILS = "/# tmp[0-9]/ found at src/package/a_module_with_a_rather_long_name.py:12"


def test_a_long_check_detail_stays_on_the_checks_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    monkeypatch.setattr(render, "_CONSOLE", [])  # a console made for this terminal width
    checks = {
        "no-tmp-comment-left": {"passing": False, "details": DETAILS},
        "short": {"passing": True, "details": "/x[y]z/ matches\nnothing else"},
    }
    print_status({
        "task_id": "t", "status": "ready", "phase": "execution", "step": 1,
        "verification": {"checks": checks, "ready_for_completion": False},
    })  # fmt: skip
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith("  fail no-tmp-comment-left: /# tmp[0-9]/ found at src/")
    assert lines[1].endswith("…") and len(lines[1]) <= 60
    assert lines[2] == "  pass short: /x[y]z/ matches nothing else"
    assert lines[3].startswith("  ready for completion")
