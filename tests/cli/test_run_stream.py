"""`forgetui run --stream`: the answers on stderr as they arrive, stdout's JSON lines untouched."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import run_on_fake
from tests.fake_openai import stream_reply

FIRST = "I look at the workspace first.\n```yaml\naction: list_dir\nargs: {path: .}\n```"
SECOND = 'Now the test.\n```json\n{"action": "read_file", "args": {"path": "test_hello.py"}}\n```'


def test_stream_prints_each_answer_to_stderr_and_only_json_to_stdout(
    cli, tmp_path: Path, fake_openai
) -> None:
    task = Path(cli("init", "hello_world", "--into", tmp_path / "run").out.strip())
    fake_openai.queue(
        stream_reply(FIRST, chunk_delay_s=0.01), stream_reply(SECOND, chunk_delay_s=0.01)
    )
    result = run_on_fake(cli, task, fake_openai, "--stream", steps=2)
    assert result.code == 0, result.err

    lines = result.out.splitlines()
    assert len(lines) == 3  # a line per step, then the final line: nothing else
    steps = [json.loads(line) for line in lines]
    assert [s.get("action") for s in steps[:2]] == ["list_dir", "read_file"]
    assert steps[-1]["final"] is True
    assert "workspace first" not in result.out and "Now the test" not in result.out
    # each answer whole, in order, each ending its own line
    assert f"{FIRST}\n{SECOND}\n" in result.err
    assert all(body.get("stream") is True for body in fake_openai.requests)
    assert len(fake_openai.streams) == 2 and all(s.complete for s in fake_openai.streams)


def test_without_stream_stderr_has_no_answer(cli, tmp_path: Path, fake_openai) -> None:
    task = Path(cli("init", "hello_world", "--into", tmp_path / "run").out.strip())
    fake_openai.queue(stream_reply(FIRST), stream_reply(SECOND))
    result = run_on_fake(cli, task, fake_openai, steps=2)
    assert result.code == 0, result.err
    assert "workspace first" not in result.err and "Now the test" not in result.err
    assert len(result.json_lines()) == 3
