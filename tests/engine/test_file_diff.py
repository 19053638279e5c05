"""What a write_file or edit_file step did to its file, as the record detail shows it: a unified
diff from the step's own snapshots, a new file all additions, a long one capped with how many
lines more, a binary or missing snapshot one line saying so."""

from __future__ import annotations

from pathlib import Path

import pytest

from forgetui.engine import api
from forgetui.engine.base.text_diff import MAX_DIFF_LINES, text_diff
from forgetui.engine.folder.records import ResultRecord
from forgetui.engine.folder.task_folder import TaskFolder, step_name
from tests.engine.helpers import act, make_task

LONG = "".join(f"line {n}\n" for n in range(1, 1001))


@pytest.fixture
def written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> TaskFolder:
    """Step 1 makes out.txt, step 2 edits it, step 3 writes a 1,000-line file, step 4 lists."""
    monkeypatch.setenv("FORGETUI_HOME", str(tmp_path / "home"))
    folder = make_task(
        tmp_path,
        [
            act("write_file", path="out.txt", content="alpha\nbeta\ngamma\n"),
            act("edit_file", path="out.txt", old="beta", new="BETA"),
            act("write_file", path="long.txt", content=LONG),
            act("list_dir", path="."),
        ],
    )
    api.run(folder.path, max_steps=4)
    return TaskFolder.open(folder.path)


def detail_of(folder: TaskFolder, step: int) -> api.RecordDetail:
    """The detail of step `step`'s result, as Enter on its log row opens it."""
    for index, record in enumerate(folder.log.iter_records()):
        if isinstance(record, ResultRecord) and record.step == step:
            return api.record_detail(folder, index)
    raise AssertionError(f"no result for step {step}")


def test_a_new_file_is_all_additions(written: TaskFolder) -> None:
    [diff] = detail_of(written, 1).file_diffs
    assert diff.path == "out.txt" and diff.created
    assert diff.heading() == "out.txt (new file, +3 -0)"
    assert diff.diff.lines == (
        "--- a/out.txt", "+++ b/out.txt", "@@ -0,0 +1,3 @@", "+alpha", "+beta", "+gamma",
    )  # fmt: skip


def test_an_edit_shows_the_changed_line_in_its_context(written: TaskFolder) -> None:
    [diff] = detail_of(written, 2).file_diffs
    assert not diff.created and diff.heading() == "out.txt (+1 -1)"
    assert diff.diff.text() == (
        "--- a/out.txt\n+++ b/out.txt\n@@ -1,3 +1,3 @@\n alpha\n-beta\n+BETA\n gamma\n"
    )


def test_a_long_diff_is_capped_with_how_many_more_lines(written: TaskFolder) -> None:
    [diff] = detail_of(written, 3).file_diffs
    shown = diff.diff
    assert len(shown.lines) == MAX_DIFF_LINES and shown.lines[-1] == f"+line {MAX_DIFF_LINES - 3}"
    assert shown.more == 1003 - MAX_DIFF_LINES  # two heads, a hunk head and 1,000 lines
    assert shown.added == 1000 and diff.heading() == "long.txt (new file, +1000 -0)"
    assert shown.text().endswith(f"\n… {shown.more} more lines\n")


def test_a_step_that_wrote_nothing_has_no_diff(written: TaskFolder) -> None:
    assert detail_of(written, 4).file_diffs == ()


def test_a_binary_or_missing_snapshot_is_one_line(written: TaskFolder) -> None:
    snapshots = written.snapshots_dir / step_name(2)
    (snapshots / "out.txt.after").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    [diff] = detail_of(written, 2).file_diffs
    assert diff.diff.note == "out.txt: binary file, no text diff" and diff.diff.lines == ()
    assert diff.diff.text() == "out.txt: binary file, no text diff\n"
    (snapshots / "out.txt.after").unlink()
    [diff] = detail_of(written, 2).file_diffs
    assert diff.diff.note == "no snapshot of out.txt kept at step 2: its change cannot be shown"


def test_texts_too_long_to_compare_say_so_instead_of_stalling() -> None:
    many = "x\n" * 20_001
    diff = text_diff("y\n", many, "a", "b")
    assert diff.lines == () and diff.note == "too long to compare here (1 -> 20,001 lines)"
    assert text_diff("", many, "a", "b").more == 20_004 - MAX_DIFF_LINES  # all additions: quick
    assert text_diff("same\n", "same\n", "a", "b").note == "no change"
