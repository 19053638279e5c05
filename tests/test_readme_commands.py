"""README's command lines are commands a user types: a `|` in one reads as a shell pipe, so
alternatives are written as separate lines or in words."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_no_command_line_in_the_readme_offers_alternatives_with_a_pipe() -> None:
    lines = README.read_text().splitlines()
    commands = [line for line in lines if line.startswith("    forgetui ")]
    assert commands
    with_alternatives = [
        line for line in commands if re.search(r"\[[^]]*\|[^]]*\]", line.split("  #")[0])
    ]
    assert with_alternatives == []
