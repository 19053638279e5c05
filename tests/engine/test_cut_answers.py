"""An answer the server cut at the output cap (finish_reason "length") whose action block
never closed: the action may be half a file or half a command, so it is refused, nothing is
written, and the next context tells the model why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from forgetui.engine.llm.parse import parse_text
from forgetui.engine.step.executor import Executor
from tests.engine.helpers import litellm_at, make_task, replay
from tests.fake_openai import FakeOpenAI, stream_reply, text_reply

HALF_WRITE = (
    "I will write the module.\n"
    "```yaml\n"
    "action: write_file\n"
    "args:\n"
    "  path: half.py\n"
    "  content: |\n"
    "    def first():\n"
    "        return 1\n"
    "\n"
    "    def second(a, b"  # the cap fell here
)
LIST = "```yaml\naction: list_dir\nargs: {path: .}\n```"


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_a_cut_write_writes_nothing_and_the_next_context_says_why(
    tmp_path: Path, fake_openai: FakeOpenAI, stream: bool
) -> None:
    folder = make_task(tmp_path, [])
    reply = stream_reply if stream else text_reply
    fake_openai.queue(reply(HALF_WRITE, finish_reason="length"), reply(LIST))
    with Executor(folder, litellm_at(fake_openai, use_tools=False, stream=stream)) as ex:
        first = ex.step()
        assert first.result == "failure"
        assert not (folder.workspace / "half.py").exists()
        second = ex.step()
    assert second.result == "success"  # the model was asked again and its answer ran
    assert sorted(p.name for p in folder.workspace.iterdir()) == [".agentforge"]
    sent = json.dumps(fake_openai.requests[1]["messages"])
    assert "cut off at the" in sent and "never closed" in sent, sent[-3000:]
    assert "nothing was run or written" in sent
    intent = json.loads((folder.path / "actions.yaml").read_text().splitlines()[0][4:])
    assert (intent["finish_reason"], intent["args"]) == ("length", {})  # no content kept to run


def test_a_cut_answer_whose_block_closed_still_runs(
    tmp_path: Path, fake_openai: FakeOpenAI
) -> None:
    """The cap fell after the block (the model went on talking): the action is whole."""
    folder = make_task(tmp_path, [])
    whole = LIST.replace("list_dir\nargs: {path: .}", "write_file\nargs: {path: a.txt, content: A}")
    fake_openai.queue(text_reply(whole + "\nNext I will check that", finish_reason="length"))
    with Executor(folder, litellm_at(fake_openai, use_tools=False)) as ex:
        assert ex.step().result == "success"
    assert (folder.workspace / "a.txt").read_text() == "A"


CLOSED = "```yaml\naction: read_file\nargs: {path: a.py}\n```\nthen more"
INLINE = "```yaml\naction: read_file\nargs: {path: a.py}```"
UNCLOSED = "```yaml\naction: read_file\nargs:\n  path: a.p"
UNLABELLED = "```\naction: run_cmd\nargs:\n  cmd: rm -rf buil"
TAG = '<tool_call>{"name": "read_file", "arguments": {"path": "a.p"}}'
PROSE = "action: write_file\nargs:\n  path: a.py\n  content: |\n    def f(\n"


@pytest.mark.parametrize(
    ("answer", "refused_when_cut"),
    [(CLOSED, False), (INLINE, False), (UNCLOSED, True), (UNLABELLED, True), (TAG, True),
     (PROSE, True)],
    ids=["closed", "inline-fence", "unclosed", "unlabelled", "tag", "prose"],
)  # fmt: skip
def test_only_a_cut_answer_loses_its_unended_action(answer: str, refused_when_cut: bool) -> None:
    """Not cut ("stop", or a reason not known: a replay script, the operator), an unclosed
    block is read as before: models often stop without the closing fence."""
    for finish in (None, "stop"):
        assert parse_text(answer, finish_reason=finish).action is not None, finish
    cut = parse_text(answer, finish_reason="length")
    if not refused_when_cut:
        assert cut.action is not None and cut.error is None
        return
    assert cut.action is None and cut.args == {}
    assert cut.attempted in ("read_file", "run_cmd", "write_file")
    assert cut.error is not None and "nothing was run or written" in cut.error


def test_an_exported_cut_answer_replays_as_refused(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    """Export-replay keeps the cut: the script's response says `finish_reason: length`, so a
    replay refuses the half write again instead of writing half a file."""
    from forgetui.engine.history.replay_export import export_replay

    (tmp_path / "run").mkdir()
    (tmp_path / "again").mkdir()
    folder = make_task(tmp_path / "run", [])
    fake_openai.queue(text_reply(HALF_WRITE, finish_reason="length"), text_reply(LIST))
    with Executor(folder, litellm_at(fake_openai, use_tools=False)) as ex:
        ex.step()
        ex.step()
    script = yaml.safe_load(export_replay(folder).text)
    assert script[0] == {"text": HALF_WRITE, "finish_reason": "length"}
    again = make_task(tmp_path / "again", script)
    with Executor(again, replay(again)) as ex:
        assert ex.step().result == "failure"
        assert ex.step().result == "success"
    assert not (again.workspace / "half.py").exists()
