"""The operator's shorthand can type an empty argument: an edit that deletes text."""

from __future__ import annotations

import pytest

from forgetui.engine.llm import parse_human


@pytest.mark.parametrize("typed", ["new=", "new=''", 'new=""'])
def test_an_empty_new_deletes_text(typed: str) -> None:
    parsed = parse_human(f"edit_file path=a.py old='x = 1' {typed}")
    assert (parsed.error, parsed.action, parsed.args) == (
        None, "edit_file", {"path": "a.py", "old": "x = 1", "new": ""},
    )  # fmt: skip


def test_an_empty_path_is_still_refused() -> None:
    parsed = parse_human("edit_file path= old=x new=y")
    assert parsed.action is None
    assert parsed.error == "argument 'path' of 'edit_file' must not be empty"
