"""Answers as real small models write them: real answers parse or say why.

Each answer below is the shape a local model (Gemma 3, Qwen 2.5, Llama 3.x, Mistral, Phi)
actually produced around an action: prose, a wrong fence, JSON for YAML, its chat template's
tool-call syntax as text. What is unambiguous parses; two different readings are an error,
never a pick; an answer with nothing usable says why in one sentence and then, on one line,
the form that works, which the next context shows the model.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from forgetui.engine.api import preview_context
from forgetui.engine.folder.catalog import actions_of
from forgetui.engine.folder.records import IntentRecord, ResultRecord
from forgetui.engine.llm.parse import (
    EXPECTED_BLOCK,
    EXPECTED_TOOL_CALL,
    parse_text,
    parse_tool_call,
)
from forgetui.engine.step.executor import Executor
from tests.engine.helpers import litellm_at, make_task
from tests.fake_openai import FakeOpenAI, text_reply, tool_call_reply

EXECUTION = actions_of("execution")
READ_APP = ("read_file", {"path": "src/app.py"})

# ----------------------------------------------------------------------------- what parses

PARSED = {
    "prose before and after the block": (
        "The test imports `greet` from src/app.py, so I should look at that file first.\n\n"
        "```yaml\naction: read_file\nargs:\n  path: src/app.py\n```\n\n"
        "Once I see it I can fix the import.",
        READ_APP,
    ),
    "yaml in a python fence": (
        "```python\naction: read_file\nargs:\n  path: src/app.py\n```",
        READ_APP,
    ),
    "a text fence": ("```text\naction: read_file\nargs: {path: src/app.py}\n```", READ_APP),
    "an action fence": ("```action\naction: read_file\nargs: {path: src/app.py}\n```", READ_APP),
    "gemma's tool_code fence": (
        '```tool_code\nprint(default_api.read_file(path="src/app.py"))\n```',
        READ_APP,
    ),
    "tilde fences": ("~~~yaml\naction: read_file\nargs:\n  path: src/app.py\n~~~", READ_APP),
    "a fence never closed": (
        "I'll read the file.\n```yaml\naction: read_file\nargs:\n  path: src/app.py\n",
        READ_APP,
    ),
    "closing ticks on the last line": (
        "```yaml\naction: read_file\nargs: {path: src/app.py}```",
        READ_APP,
    ),
    "a block indented in a numbered list": (
        "Plan:\n1. Read the app:\n   ```yaml\n   action: read_file\n   args:\n"
        "     path: src/app.py\n   ```\n2. Then fix it.",
        READ_APP,
    ),
    "a fence opening on a bullet": (
        "- ```yaml\n  action: read_file\n  args:\n    path: src/app.py\n  ```",
        READ_APP,
    ),
    "json in a yaml fence": (
        '```yaml\n{"action": "read_file", "args": {"path": "src/app.py"}}\n```',
        READ_APP,
    ),
    "bare json with prose": (
        'Next step:\n{"action": "read_file", "args": {"path": "src/app.py"}}\nThis shows it.',
        READ_APP,
    ),
    "json with trailing commas": (
        '```json\n{\n  "action": "read_file",\n  "args": {"path": "src/app.py",},\n}\n```',
        READ_APP,
    ),
    "json with single quotes": (
        "{'action': 'read_file', 'args': {'path': 'src/app.py'}}",
        READ_APP,
    ),
    "single-quoted content keeps its escapes": (
        "{'action': 'write_file', 'args': {'path': 'a.py', 'content': 'it\\'s \"x\"\\nend'}}",
        ("write_file", {"path": "a.py", "content": 'it\'s "x"\nend'}),
    ),
    "json content with raw newlines": (
        '```json\n{"action": "write_file", "args": {"path": "a.py", "content": "x = 1\ny = 2\n"}}'
        "\n```",
        ("write_file", {"path": "a.py", "content": "x = 1\ny = 2\n"}),
    ),
    "name and arguments (qwen, llama 3.2)": (
        '{"name": "read_file", "arguments": {"path": "src/app.py"}}',
        READ_APP,
    ),
    "tool and args": (
        '```json\n{"tool": "read_file", "args": {"path": "src/app.py"}}\n```',
        READ_APP,
    ),
    "function and parameters": (
        'Calling: {"function": "read_file", "parameters": {"path": "src/app.py"}}',
        READ_APP,
    ),
    "tool_name and parameters": (
        '{"tool_name": "read_file", "parameters": {"path": "src/app.py"}}',
        READ_APP,
    ),
    "an openai tool_calls item with string arguments": (
        '{"id": "call_0", "type": "function", "function": {"name": "read_file", '
        '"arguments": "{\\"path\\": \\"src/app.py\\"}"}}',
        READ_APP,
    ),
    "hermes / qwen tool_call tags": (
        "I need the file contents.\n<tool_call>\n"
        '{"name": "read_file", "arguments": {"path": "src/app.py"}}\n</tool_call>',
        READ_APP,
    ),
    "a tool_call tag cut before its close": (
        '<tool_call>\n{"name": "read_file", "arguments": {"path": "src/app.py"}}\n',
        READ_APP,
    ),
    "llama 3.1 function tags": ('<function=read_file>{"path": "src/app.py"}</function>', READ_APP),
    "mistral tool calls list": (
        '[TOOL_CALLS] [{"name": "read_file", "arguments": {"path": "src/app.py"}}]',
        READ_APP,
    ),
    "call syntax": ('read_file(path="src/app.py")', READ_APP),
    "call syntax, positional and in prose": (
        'Let me record what I found.\nnote("the bug is in greet()")\n',
        ("note", {"text": "the bug is in greet()"}),
    ),
    "call syntax with json literals": (
        "`read_file(path='src/app.py', end_line=null)`",
        READ_APP,
    ),
    "args as a json string": (
        '{"action": "read_file", "args": "{\\"path\\": \\"src/app.py\\"}"}',
        READ_APP,
    ),
    "react json with a thought": (
        '{"thought": "I should read the app", "action": "read_file", '
        '"action_input": {"path": "src/app.py"}}',
        READ_APP,
    ),
    "unfenced yaml after prose": (
        "I will read the app first.\naction: read_file\nargs:\n  path: src/app.py\n\n"
        "That will show the import.",
        READ_APP,
    ),
    "the same block twice": (
        "```yaml\naction: read_file\nargs: {path: src/app.py}\n```\nTo repeat:\n"
        "```yaml\naction: read_file\nargs: {path: src/app.py}\n```",
        READ_APP,
    ),
    "the same action as yaml and as a tool_call tag": (
        "```yaml\naction: read_file\nargs: {path: src/app.py}\n```\n"
        '<tool_call>{"name": "read_file", "arguments": {"path": "src/app.py"}}</tool_call>',
        READ_APP,
    ),
    "code shown beside the action": (
        "The fix:\n```python\ndef greet(name):\n    return f'hi {name}'\n```\n"
        "```yaml\naction: edit_file\nargs: {path: src/app.py, old: 'hello', new: 'hi'}\n```",
        ("edit_file", {"path": "src/app.py", "old": "hello", "new": "hi"}),
    ),
}


@pytest.mark.parametrize("answer", [case[0] for case in PARSED.values()], ids=list(PARSED))
def test_real_answers_parse(answer: str) -> None:
    expected = next(case[1] for case in PARSED.values() if case[0] == answer)
    parsed = parse_text(answer, EXECUTION)
    assert parsed.error is None, parsed.error
    assert (parsed.action, parsed.args) == expected


@pytest.mark.parametrize(
    "arguments",
    [
        json.dumps(json.dumps({"path": "src/app.py"})),  # a JSON string of a JSON string
        "{'path': 'src/app.py',}",  # written by hand
        {"path": "src/app.py"},  # already decoded by the client
    ],
    ids=["double-encoded", "relaxed", "decoded"],
)
def test_tool_call_arguments_as_servers_send_them(arguments: str | dict[str, str]) -> None:
    parsed = parse_tool_call("read_file", arguments, EXECUTION)
    assert (parsed.action, parsed.args, parsed.error) == (*READ_APP, None)
    namespaced = parse_tool_call("functions.read_file", arguments, EXECUTION)
    assert (namespaced.action, namespaced.args) == READ_APP


# ----------------------------------------------------------------------------- two readings


@pytest.mark.parametrize(
    "answer",
    [
        "```yaml\naction: list_dir\nargs: {path: .}\n```\n"
        "```yaml\naction: note\nargs: {text: b}\n```",
        "```yaml\naction: read_file\nargs: {path: a.py}\n```\n"
        "```yaml\naction: read_file\nargs: {path: b.py}\n```",
        "```yaml\naction: read_file\nargs: {path: a.py}\n```\n"
        '<tool_call>{"name": "list_dir", "arguments": {"path": "."}}</tool_call>',
        'read_file(path="a.py")\nlist_dir(path=".")',
        '[{"name": "list_dir", "arguments": {"path": "."}},'
        ' {"name": "run_check", "arguments": {}}]',
        '```python\nread_file("a.py")\n```\n```yaml\naction: list_dir\nargs: {path: .}\n```',
    ],
    ids=["two blocks", "same action, other args", "block and tag", "two calls", "tool list", "py"],
)
def test_two_different_actions_are_an_error_not_a_pick(answer: str) -> None:
    parsed = parse_text(answer, EXECUTION)
    assert parsed.action is None and parsed.error is not None
    reason, expected = parsed.error.split("\n")
    assert reason.startswith("found 2 action blocks with different actions")
    assert expected == EXPECTED_BLOCK


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (
            "```yaml\naction: list_dir\nargs: {path: .}\naction: note\n```",
            "the action block does not parse: the key 'action' is written twice (line 3)",
        ),
        (
            '{"action": "read_file", "action": "note", "args": {"path": "a"}}',
            "the action block does not parse: the key 'action' is written twice",
        ),
        (
            'read_file("a.py", path="b.py")',
            "argument 'path' of 'read_file' is given twice",
        ),
    ],
)
def test_one_block_with_two_readings_is_an_error(answer: str, reason: str) -> None:
    parsed = parse_text(answer, EXECUTION)
    assert parsed.action is None and parsed.error is not None
    assert parsed.error.startswith(reason)


# ----------------------------------------------------------------------------- nothing usable

UNUSABLE = {
    "prose only": (
        "I think the bug is in the greet function. Let me check the file.",
        "no action block found in the answer",
    ),
    "an action named in prose": (
        "I will use read_file on src/app.py to see the import.",
        "no action block found: read_file is named in prose, not written as a block",
    ),
    "only code": (
        "Here is the fix:\n```python\ndef greet(name):\n    return name\n```",
        "no action block found: the fenced block (python) holds no action",
    ),
    "json cut off": (
        '```json\n{"action": "write_file", "args": {"path": "a.py", "content": "def f(',
        "the action block does not parse: Unterminated string starting at (line 1, column 62)",
    ),
    "yaml that does not load": (
        "```yaml\naction: read_file\nargs: {path: [a.py\n```",
        "the action block does not parse: ",
    ),
    "empty": ("  \n", "the answer is empty"),
}


@pytest.mark.parametrize("answer", [case[0] for case in UNUSABLE.values()], ids=list(UNUSABLE))
def test_nothing_usable_says_why_then_the_expected_form(answer: str) -> None:
    reason = next(case[1] for case in UNUSABLE.values() if case[0] == answer)
    parsed = parse_text(answer, EXECUTION)
    assert parsed.action is None and parsed.attempted is None and parsed.error is not None
    first, second = parsed.error.split("\n")  # one sentence, then one line on the form
    assert first.startswith(reason)
    assert second == EXPECTED_BLOCK
    assert len(parsed.error) <= 320


def test_tool_call_arguments_that_are_not_json_say_the_tool_call_form() -> None:
    parsed = parse_tool_call("read_file", '{"path": "src/app.py"', EXECUTION)
    assert parsed.error is not None
    first, second = parsed.error.split("\n")
    assert first.startswith("the arguments of tool call 'read_file' are not valid JSON:")
    assert second == EXPECTED_TOOL_CALL


def test_an_unknown_action_keeps_its_signature_hint_not_the_form_line() -> None:
    """The form was right and the name wrong: the error lists what is available instead."""
    parsed = parse_text('{"name": "open_file", "arguments": {"path": "a.py"}}', EXECUTION)
    assert parsed.error is not None and "unknown action 'open_file' (available:" in parsed.error
    assert "expected:" not in parsed.error


# ----------------------------------------------------------------------------- bounded


def test_a_large_hostile_answer_is_read_in_bounded_time() -> None:
    """Each part alone is quadratic or worse for a naive reader (re-scanning every `{` or `"`,
    retrying every fence, loading nested JSON recursively); together they are ~100 KB."""
    size = 100_000
    parts = [
        '{"a": "' + '\\"' * (size // 8) + "\\",  # an unclosed escaped string
        "{'a': '" + "\\'" * (size // 8),
        '{"a":' * (size // 40),  # JSON nested past the recursion limit
        "[" * (size // 16),
        "```\n" * (size // 32),  # fences opening and closing empty blocks
        "a." * (size // 32) + "read_file(" + "(" * 100,  # a call head that never ends
        "<tool_call>" * (size // 100),
        "action: note\n" * 100,
    ]
    hostile = "\n".join(parts)
    assert len(hostile) > 90_000
    parsed = parse_text(hostile, EXECUTION)
    assert parsed.action is None and parsed.error is not None
    assert parsed.error.endswith(EXPECTED_BLOCK)
    # and a real action after the noise is still found, once
    answer = "x" * size + "\n```yaml\naction: run_check\n```\n" + "```\n" * (size // 40)
    assert parse_text(answer, EXECUTION).action == "run_check"


# ----------------------------------------------------------------------------- a real step


def test_a_failed_parse_shows_its_reason_and_the_form_in_the_next_context(
    tmp_path: Path, fake_openai: FakeOpenAI
) -> None:
    answer = "I think the greet function is wrong; I will look at src/app.py next."
    folder = make_task(tmp_path, [])
    fake_openai.queue(text_reply(answer))
    with Executor(folder, litellm_at(fake_openai, use_tools=False)) as executor:
        report = executor.step()
    assert (report.action, report.result) == (None, "failure")
    intent, result = folder.log.records(0, 2)
    assert isinstance(intent, IntentRecord) and isinstance(result, ResultRecord)
    assert intent.raw_response == answer  # recorded as it came
    assert result.error is not None and result.error.endswith(EXPECTED_BLOCK)

    ctx = preview_context(folder)
    user = ctx.messages[-1]["content"]
    reason = "no action block found in the answer"
    assert reason in user
    assert EXPECTED_BLOCK in user
    [last] = [line for line in user.splitlines() if line.lstrip().startswith('- "step 1:')]
    assert f"{reason}; {EXPECTED_BLOCK}" in last  # the last result, whole, said once
    assert last.count(reason) == 1


def test_real_answer_forms_run_as_steps(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    """A Hermes-tag answer and a double-encoded tool call, through litellm and the executor."""
    folder = make_task(tmp_path, [])
    (folder.workspace / "notes.txt").write_text("remember me\n")
    fake_openai.queue(
        text_reply(
            'Sure.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "notes.txt"}}'
            "\n</tool_call>"
        ),
        tool_call_reply(
            ("write_file", json.dumps(json.dumps({"path": "out.txt", "content": "hi"})))
        ),
    )
    with Executor(folder, litellm_at(fake_openai, use_tools=False)) as executor:
        first = executor.step()
        second = executor.step()
    assert (first.action, first.result) == ("read_file", "success")
    assert (second.action, second.result) == ("write_file", "success")
    assert (folder.workspace / "out.txt").read_text() == "hi"
