"""An edit_file's summary counts lines as the file's diff does: text removed inside a line
changes that line (-1 +1); it removes no line."""

from __future__ import annotations

from pathlib import Path

import pytest

from forgetui.engine.actions.files import edit_file
from forgetui.engine.base.text_diff import text_diff

from .test_actions import SnapshotRecorder, make_env


@pytest.mark.parametrize(
    ("text", "old", "new", "counts"),
    [
        ("x = 1  # tmp\ny = 2\n", "  # tmp", "", "(-1 +1 lines)"),
        ("a\ntmp\nb\n", "tmp\n", "", "(-1 +0 lines)"),
        ("a\nb\nc\n", "b\n", "b\nB\n", "(-0 +1 lines)"),
        ("a\nb\nc\n", "a\nb\n", "a\nc2\n", "(-1 +1 lines)"),
    ],
)
def test_the_summary_counts_what_the_diff_shows(
    tmp_path: Path, text: str, old: str, new: str, counts: str
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    env = make_env(workspace, SnapshotRecorder(tmp_path / "artifacts"))
    (workspace / "edited.py").write_text(text)
    outcome = edit_file({"path": "edited.py", "old": old, "new": new}, env)
    assert outcome.result == "success" and outcome.summary.endswith(counts)
    diff = text_diff(text, (workspace / "edited.py").read_text(), "a", "b")
    assert counts == f"(-{diff.removed} +{diff.added} lines)"
