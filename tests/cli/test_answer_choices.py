"""`forgetui answer` to a question with fixed options: a synonym picks its option, anything
else is one line naming the options, exit 2, and nothing changed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.cli.stepped_sample import files_of
from tests.engine.test_closed_choices import asked_to_confirm


def test_approve_accepts_and_a_non_option_is_refused(cli_in_process: Any, tmp_path: Path) -> None:
    folder = asked_to_confirm(tmp_path / "refused")
    before = files_of(folder.path)
    refused = cli_in_process("answer", folder.path, "maybe later")
    assert refused.code == 2 and refused.out == ""
    assert refused.err.count("\n") == 1 and "accept, keep working" in refused.err
    assert files_of(folder.path) == before

    folder = asked_to_confirm(tmp_path / "accepted")
    done = cli_in_process("answer", folder.path, "approve")
    assert done.code == 0, done.err
    status = cli_in_process("status", folder.path, "--json")
    assert '"status": "complete"' in status.out
