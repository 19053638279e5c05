"""Parsing a model's answer into one validated action: what the next context shows on failure."""

from __future__ import annotations

import json

import pytest

from forgetui.engine.folder.catalog import ACTIONS, PHASE_ACTIONS, actions_of
from forgetui.engine.llm.parse import (
    EXPECTED_BLOCK,
    parse_text,
    parse_tool_call,
    tool_schemas,
    validate_action,
    validate_object,
)


def test_fenced_yaml_block_with_prose_around_it() -> None:
    answer = (
        "The failing test imports `greet`. Let me look at it.\n\n"
        "```yaml\naction: read_file\nargs:\n  path: src/greet.py\n  start_line: '10'\n```\n"
        "Then I will fix it."
    )
    parsed = parse_text(answer)
    assert parsed.error is None
    assert (parsed.action, parsed.args) == ("read_file", {"path": "src/greet.py", "start_line": 10})


def test_fenced_json_block() -> None:
    answer = '```json\n{"action": "run_cmd", "args": {"cmd": "pytest -q tests"}}\n```'
    parsed = parse_text(answer)
    assert (parsed.action, parsed.args) == ("run_cmd", {"cmd": "pytest -q tests"})


def test_bare_json_object_and_bare_yaml() -> None:
    bare_json = 'Sure: {"action": "list_dir", "args": {"path": "."}} is next.'
    assert parse_text(bare_json).args == {"path": "."}
    bare_yaml = "action: note\nargs:\n  text: the parser lives in cli.py"
    assert parse_text(bare_yaml).args == {"text": "the parser lives in cli.py"}


def test_write_file_content_may_contain_fences() -> None:
    """A README written through write_file has its own fences, indented inside the block."""
    answer = (
        "```yaml\naction: write_file\nargs:\n  path: README.md\n  content: |\n"
        "    # Demo\n    ```python\n    print('hi')\n    ```\n```"
    )
    parsed = parse_text(answer)
    assert parsed.error is None
    assert parsed.args["content"] == "# Demo\n```python\nprint('hi')\n```\n"


def test_arguments_beside_action_are_accepted() -> None:
    assert parse_text("```yaml\naction: search\npattern: def main\n```").args == {
        "pattern": "def main"
    }


def test_other_code_blocks_are_not_actions() -> None:
    answer = "```python\nprint('x')\n```\n```yaml\naction: run_check\n```"
    parsed = parse_text(answer)
    assert (parsed.action, parsed.args, parsed.error) == ("run_check", {}, None)


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ("I think the bug is in cli.py.", "no action block found"),
        ("```yaml\naction: foo\n```", "unknown action 'foo'"),
        ("```yaml\naction: read_file\nargs: {}\n```", "missing required argument(s) 'path'"),
        (
            "```yaml\naction: read_file\nargs: {path: a, colour: red}\n```",
            "unknown argument(s) 'colour' for 'read_file'",
        ),
        ("```yaml\naction: read_file\nargs: {path: a, start_line: ten}\n```", "must be an integer"),
        ("```yaml\naction: read_file\nargs: [a]\n```", "args of 'read_file' must be a mapping"),
        ("```yaml\naction: [unclosed\n```", "the action block does not parse"),
        (
            "```yaml\naction: list_dir\nargs: {path: a}\n```\n"
            "```yaml\naction: note\nargs: {text: b}\n```",
            "found 2 action blocks",
        ),
        ("```yaml\nargs: {path: a}\naction:\n```", "the action name is missing"),
        (
            "```yaml\naction: mark_subtask_complete\nargs: {success: maybe, reason: x}\n```",
            "must be true or false",
        ),
    ],
)
def test_errors_are_clear_sentences(answer: str, message: str) -> None:
    parsed = parse_text(answer)
    assert parsed.action is None
    assert parsed.error is not None and message in parsed.error


@pytest.mark.parametrize(
    "answer",
    [
        "I think the bug is in cli.py.",
        "```yaml\naction: [unclosed\n```",
        "```yaml\naction: list_dir\nargs: {path: a}\n```\n"
        "```yaml\naction: note\nargs: {text: b}\n```",
    ],
)
def test_an_answer_with_nothing_runnable_ends_with_the_expected_form(answer: str) -> None:
    error = parse_text(answer).error
    assert error is not None
    reason, expected = error.split("\n")
    assert reason and expected == EXPECTED_BLOCK


@pytest.mark.parametrize(
    "answer", ["```yaml\naction: foo\n```", "```yaml\naction: read_file\nargs: {}\n```"]
)
def test_a_wrong_name_or_argument_says_the_signature_not_the_form(answer: str) -> None:
    error = parse_text(answer).error
    assert error is not None and "\n" not in error and "expected:" not in error


def test_validate_object_takes_the_tool_call_shapes() -> None:
    shapes = [
        {"action": "read_file", "args": {"path": "a"}},
        {"action": "read_file", "arguments": {"path": "a"}},
        {"name": "read_file", "arguments": '{"path": "a"}'},
        {"type": "function", "function": {"name": "read_file", "arguments": {"path": "a"}}},
        {"tool_calls": [{"function": {"name": "read_file", "arguments": {"path": "a"}}}]},
    ]
    for obj in shapes:
        assert validate_object(obj).args == {"path": "a"}, obj
    assert "the action name is missing" in (validate_object({"path": "a"}).error or "")


def test_coercion_of_obvious_types() -> None:
    ok = validate_action(
        "mark_subtask_complete", {"success": "false", "reason": 42}, tuple(ACTIONS.values())
    )
    assert ok.args == {"success": False, "reason": "42"}
    assert validate_action("run_cmd", {"cmd": ["pytest", "-q", 3]}).args == {
        "cmd": ["pytest", "-q", "3"]
    }
    assert validate_action("escalate", {"question": "which?", "options": "A"}).args == {
        "question": "which?",
        "options": ["A"],
    }
    assert validate_action("read_file", {"path": "a", "end_line": None}).args == {"path": "a"}


def test_action_not_offered_in_this_phase() -> None:
    parsed = validate_action("write_file", {"path": "a", "content": ""}, actions_of("planning"))
    assert parsed.error is not None
    assert "action 'write_file' is not available now" in parsed.error


def test_tool_call_arguments() -> None:
    parsed = parse_tool_call("edit_file", json.dumps({"path": "a", "old": "x", "new": "y"}))
    assert parsed.args == {"path": "a", "old": "x", "new": "y"}
    assert parse_tool_call("run_check", "").args == {}
    bad = parse_tool_call("read_file", '{"path": ')
    assert bad.error is not None and "not valid JSON" in bad.error


def test_tool_schemas_describe_every_offered_action() -> None:
    schemas = tool_schemas(actions_of("execution"))
    by_name = {schema["function"]["name"]: schema["function"] for schema in schemas}
    assert set(by_name) == set(PHASE_ACTIONS["execution"])
    read = by_name["read_file"]["parameters"]
    assert read["required"] == ["path"]
    assert read["properties"]["start_line"] == {
        "type": "integer",
        "description": "first line to read, 1-based",
    }
    assert {"type": "string"} in by_name["run_cmd"]["parameters"]["properties"]["cmd"]["anyOf"]
    assert by_name["escalate"]["parameters"]["properties"]["options"]["type"] == "array"
    json.dumps(schemas)  # what goes over the wire must serialise
