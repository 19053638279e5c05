"""The operator as the model: shorthand, fenced blocks, and closed input."""

from __future__ import annotations

import io

import pytest

from forgetui.engine.folder.catalog import actions_of
from forgetui.engine.llm import HumanModel, parse_human
from forgetui.engine.llm.human import read_stdin

TOOLS = actions_of("execution")
MESSAGES = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]


def test_shorthand_with_quoting_and_coercion() -> None:
    parsed = parse_human('edit_file path=src/app.py old="x = 1" new="x = 2"')
    assert (parsed.action, parsed.args) == (
        "edit_file",
        {"path": "src/app.py", "old": "x = 1", "new": "x = 2"},
    )
    assert parse_human("read_file path=a.py start_line=3").args == {"path": "a.py", "start_line": 3}
    assert parse_human('escalate question=Which? options="[yes, no]"').args == {
        "question": "Which?",
        "options": ["yes", "no"],
    }
    assert parse_human("run_check").args == {}


def test_fenced_and_json_forms_are_accepted() -> None:
    assert parse_human("```yaml\naction: note\nargs: {text: hi}\n```").args == {"text": "hi"}
    assert parse_human('{"action": "list_dir", "args": {"path": "."}}').action == "list_dir"


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("", "empty input"),
        ("read_file a.py", "expected key=value, got 'a.py'"),
        ("rm path=a", "unknown action 'rm'"),
        ('note text="unclosed', "could not split the input"),
        ("read_file start_line=2", "missing required argument(s) 'path'"),
    ],
)
def test_mistakes_are_explained(typed: str, message: str) -> None:
    parsed = parse_human(typed)
    assert parsed.action is None and parsed.error is not None and message in parsed.error


def test_model_asks_the_operator_with_the_offered_actions() -> None:
    prompts: list[str] = []

    def operator(prompt: str) -> str:
        prompts.append(prompt)
        return "list_dir path=src"

    reply = HumanModel(operator).complete(MESSAGES, actions_of("planning"))
    assert (reply.action, reply.args, reply.model, reply.raw) == (
        "list_dir", {"path": "src"}, "human", "list_dir path=src",
    )  # fmt: skip
    assert "read_file(path, start_line?, end_line?, max_bytes?)" in prompts[0]
    assert "write_file" not in prompts[0]  # not offered while planning


def test_closed_input_is_a_transport_failure() -> None:
    def closed(prompt: str) -> str:
        raise EOFError

    reply = HumanModel(closed).complete(MESSAGES, TOOLS)
    assert (reply.transport_failed, reply.error) == (True, "operator input closed")


def test_stdin_reads_a_whole_fenced_block(monkeypatch: pytest.MonkeyPatch) -> None:
    typed = "```yaml\naction: write_file\nargs:\n  path: a.txt\n  content: hi\n```\nextra\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(typed))
    monkeypatch.setattr("sys.stderr", io.StringIO())
    assert parse_human(read_stdin("action> ")).args == {"path": "a.txt", "content": "hi"}
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    with pytest.raises(EOFError):
        read_stdin("action> ")
