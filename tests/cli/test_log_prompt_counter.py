"""`forgetui log --json` says who counted each step's prompt tokens (`prompt_tokens_by`), as
the intent record keeps it: the server's usage, its tokenizer, or neither (forgetui's own)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from forgetui.engine.llm import LiteLLMModel
from forgetui.engine.step.executor import Executor
from tests.engine.helpers import make_task
from tests.fake_openai import FakeOpenAI, stream_reply

ACTION = "```yaml\naction: list_dir\nargs:\n  path: .\n```"
USAGE = {"prompt_tokens": 812, "completion_tokens": 17}


def test_log_json_says_who_counted_the_prompt(
    tmp_path: Path,
    fake_openai: FakeOpenAI,
    cli_in_process: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-log-counter")
    fake_openai.queue(stream_reply(ACTION, usage=USAGE))  # the server's usage
    fake_openai.queue(replace(stream_reply(ACTION, usage=USAGE), stream_usage=False))  # none
    folder = make_task(tmp_path, [], checks=[])
    model = LiteLLMModel("openai/gpt-4o-mini", api_base=fake_openai.url, timeout_s=10.0)
    with Executor(folder, model) as executor:
        executor.step()
        executor.step()
    rows = cli_in_process("log", folder.path, "--json").json_lines()
    steps = [row for row in rows if "action" in row]
    assert [(row["prompt_tokens"], row["prompt_tokens_by"]) for row in steps] == [
        (812, "server"),
        (0, "forgetui"),
    ]
