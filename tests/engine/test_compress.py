"""The compression strategies of the context table, one by one."""

from __future__ import annotations

import re

import pytest

from forgetui.engine.base import compress as cz
from forgetui.engine.base.tokens import TokenCounter, counter_for


@pytest.fixture(scope="module")
def counter() -> TokenCounter:
    return counter_for(None)


def compress_file(
    text: str, budget: int, counter: TokenCounter, *, start: int = 1, prefix: str = ""
) -> cz.Excerpt:
    """File content with line numbers, cut to `budget` tokens keeping its first and last lines."""
    numbered = cz.number_lines(text, start).split("\n") if text else []
    return cz.fit_lines(cz.measure_lines(numbered, counter, prefix), budget, counter)


def _source(lines: int) -> str:
    return "".join(
        f"def handler_{i}(request):  # route {i}\n" if i % 4 == 0 else f"    return {i} * 2\n"
        for i in range(lines)
    )


# -- line numbers and file content


def test_number_lines_right_aligns_numbers_in_a_column() -> None:
    assert cz.number_lines("import click\n\ndef main():\n    pass\n") == (
        "   1| import click\n   2|\n   3| def main():\n   4|     pass"
    )
    assert cz.number_lines("code", start=12) == "  12| code"
    wide = cz.number_lines("x\n" * 12_000).split("\n")
    assert wide[0] == "    1| x" and wide[-1] == "12000| x"


def test_number_lines_cleans_what_yaml_cannot_carry() -> None:
    assert cz.number_lines("a\r\nb\x07  \r\n") == "   1| a\n   2| b\ufffd"


def test_a_file_that_fits_is_kept_whole(counter: TokenCounter) -> None:
    excerpt = compress_file(_source(20), 1000, counter)
    assert excerpt.omitted == 0
    assert excerpt.text == cz.number_lines(_source(20))
    assert excerpt.tokens == counter.count(excerpt.text + "\n")


def test_a_3000_line_file_keeps_its_first_and_last_lines(counter: TokenCounter) -> None:
    excerpt = compress_file(_source(3000), 800, counter)
    lines = excerpt.text.split("\n")
    assert lines[0] == "   1| def handler_0(request):  # route 0"
    assert lines[-1] == "3000|     return 2999 * 2"
    marker = next(line for line in lines if "omitted" in line)
    match = re.fullmatch(r"# \.\.\. (\d+) lines omitted \.\.\.", marker)
    assert match is not None
    omitted = int(match[1])
    assert omitted == excerpt.omitted == 3000 - (len(lines) - 1)
    # the numbers on either side of the marker show exactly which lines are missing
    before, after = lines[lines.index(marker) - 1], lines[lines.index(marker) + 1]
    assert int(after.split("|")[0]) - int(before.split("|")[0]) - 1 == omitted
    assert excerpt.tokens == counter.count(excerpt.text + "\n") <= 800
    assert excerpt.tokens > 700  # the budget is used, not wasted


@pytest.mark.parametrize("budget", [30, 100, 333, 1500])
def test_excerpts_fit_any_budget_with_indentation(counter: TokenCounter, budget: int) -> None:
    prefix = " " * 8
    excerpt = compress_file(_source(500), budget, counter, prefix=prefix)
    rendered = cz.indent_lines(excerpt.text, prefix) + "\n" if excerpt.text else ""
    assert excerpt.tokens == counter.count(rendered) <= budget


def test_measured_units_add_up_to_the_whole_text(counter: TokenCounter) -> None:
    text = "first\n\n\n/* a comment */\n  indented\n\n// more\nlast"
    measured = cz.measure_lines(text.split("\n"), counter)
    assert measured.total_lines == 8
    assert measured.total_tokens == counter.count(text + "\n")
    assert "\n".join(measured.units) == text


def test_unnumbered_text_is_excerpted_the_same_way(counter: TokenCounter) -> None:
    lines = [f"paragraph {i} of the specification" for i in range(400)]
    excerpt = cz.fit_lines(cz.measure_lines(lines, counter), 200, counter)
    kept = excerpt.text.split("\n")
    assert kept[0] == lines[0] and kept[-1] == lines[-1]
    assert excerpt.tokens <= 200 and excerpt.omitted > 0


def test_a_budget_below_the_marker_keeps_nothing(counter: TokenCounter) -> None:
    assert compress_file(_source(100), 3, counter) == cz.Excerpt("", 0, 100)


# -- recent actions, tool results, errors, lists


def test_recent_actions_drop_to_the_newest_two() -> None:
    assert cz.drop_to([1, 2, 3]) == [2, 3]
    assert cz.drop_to([1, 2, 3], 1) == [3]
    assert cz.drop_to([], 2) == []


def test_tool_results_collapse_to_one_line() -> None:
    result = {"action": "edit_file", "result": "success", "summary": "Added\n  help text"}
    assert cz.one_line(result) == "action: edit_file; result: success; summary: Added help text"
    assert cz.one_line("FAILED tests/a.py\n\n  2 failed, 3 passed  ") == (
        "FAILED tests/a.py 2 failed, 3 passed"
    )
    long = cz.one_line("word " * 200, limit=50)
    assert len(long) <= 50 and long.endswith("...") and "\n" not in long


def test_error_messages_are_cut_to_500_characters() -> None:
    error = "Traceback (most recent call last):\n" + "x" * 1200
    cut = cz.cut_error(error)
    assert cut.startswith(error[:500].rstrip())
    assert cut.endswith(f"[... {len(error) - 500} more characters cut]")
    assert cz.cut_error("short error") == "short error"


def test_lists_keep_the_first_items_and_say_how_many_more() -> None:
    items = [f"item {i}" for i in range(12)]
    assert cz.cap_list(items, 3) == ["item 0", "item 1", "item 2", "... and 9 more"]
    assert cz.cap_list(items, 2, end="last") == ["... and 10 earlier", "item 10", "item 11"]
    assert cz.cap_list(items[:2], 5) == items[:2]


def test_a_window_keeps_the_current_item_in_view() -> None:
    items = [str(i) for i in range(20)]
    assert cz.cap_around(items, 10, 3) == ["... 9 earlier", "9", "10", "11", "... and 8 more"]
    assert cz.cap_around(items, 0, 2) == ["0", "1", "... and 18 more"]
    assert cz.cap_around(items, 19, 2) == ["... 18 earlier", "18", "19"]


# -- the last resort


def test_hard_truncation_meets_any_budget(counter: TokenCounter) -> None:
    text = "The quick brown fox jumps over the lazy dog. " * 200
    for budget in (8, 20, 100, 1000):
        cut = cz.hard_truncate(text, budget, counter)
        assert counter.count(cut) <= budget
        assert cut.endswith(cz.TRUNCATED_MARKER)
    assert cz.hard_truncate(text, 2, counter) == ""
    assert cz.hard_truncate("fits", 10, counter) == "fits"


def test_hard_truncation_never_leaves_half_a_character(counter: TokenCounter) -> None:
    text = "数据验证失败 🚀 " * 300
    cut = cz.hard_truncate(text, 50, counter)
    assert counter.count(cut) <= 50
    assert "\ufffd" not in cut


def test_clean_text_normalises_what_every_rendering_receives() -> None:
    assert cz.clean_text("\n\n  a  \r\nb\x00\tc\u2028d   \n\n") == "  a\nb\ufffd\tc\nd"
    assert cz.split_lines("a\nb\n") == ["a", "b"] and cz.split_lines("") == []


@pytest.mark.parametrize("budget", [40, 120, 400, 1500])
@pytest.mark.parametrize("focus", [(250,), (10, 490), (100, 101, 300, 450)])
def test_excerpts_around_focus_lines_fit_and_count_exactly(
    counter: TokenCounter, budget: int, focus: tuple[int, ...]
) -> None:
    prefix = " " * 8
    lines = cz.number_lines(_source(500)).split("\n")
    excerpt = cz.fit_lines(cz.measure_lines(lines, counter, prefix), budget, counter, focus)
    rendered = cz.indent_lines(excerpt.text, prefix) + "\n" if excerpt.text else ""
    assert excerpt.tokens == counter.count(rendered) <= budget
    if budget >= 120:  # room for the first focus line at least
        assert f"{focus[0]:>4}| " in excerpt.text
    kept = [line for line in excerpt.text.split("\n") if "|" in line]
    assert len(kept) + excerpt.omitted == 500
