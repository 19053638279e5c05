"""Compression uses the room it has: a long pinned note is cut by lines to what the budget
leaves, not to the 500 characters every long text is cut to once the section is over budget."""

from __future__ import annotations

from pathlib import Path

import pytest

from forgetui.engine import api
from tests.engine.helpers import act, make_task

pytestmark = pytest.mark.timeout(120)

WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel")


def _note(lines: int, newline: bool) -> str:
    parts = [f"{n:05d} " + " ".join(WORDS[n % 8 :] + WORDS[: n % 8]) for n in range(lines)]
    return ("\n" if newline else " ").join(parts)


@pytest.mark.parametrize("newline", [True, False], ids=["lines", "one-line"])
def test_a_long_pinned_note_fills_the_room_left(tmp_path: Path, newline: bool) -> None:
    folder = make_task(tmp_path, [act("note", text="x")])
    text = _note(900, newline)  # about 16,000 tokens
    ref = api.add_note(folder, text).split(";")[0]
    api.pin(folder, ref, pinned=True)
    section = api.preview_context(folder).section("current_state")
    assert section.tokens <= section.budget
    assert section.tokens > section.budget * 0.8, (section.tokens, section.budget)
    assert "00000 alpha" in section.text and "00899" in section.text  # first and last kept


def test_a_note_that_fits_is_sent_whole_as_written(tmp_path: Path) -> None:
    folder = make_task(tmp_path, [act("note", text="x")])
    text = _note(20, newline=False)  # one line of about 1,000 characters: fits
    api.add_note(folder, text)
    section = api.preview_context(folder).section("current_state")
    assert text in section.text
