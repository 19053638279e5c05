"""A real local model with no flags but --model and --api-base: the first run probes the server
(Gemma's chat template has no system role, the server drops tools without a word, its window is
only in an error), keeps what it found and applies it, so the system prompt reaches the model
with the answer streamed, and the step records the server's count of the prompt.

llama-cpp-python's server sends no usage on a stream, so the count is its tokenizer's
(`prompt_tokens_by: tokenize`); that it is within 20% of forgetui's own count of the context is
the evidence that the whole context, system prompt included, went to the model. The server's
own log line of the prompt it evaluated (template included) is printed beside them."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from forgetui.engine.folder.records import IntentRecord, ResultRecord
from forgetui.engine.folder.task_folder import TaskFolder
from tests.local_model.llama_server import LlamaServer

pytestmark = pytest.mark.local_model

# the probe's requests, then one step whose timeout the probe chose from the server's speed;
# on a busy 2-core machine a 1,000-token answer to a 1,200-token prompt took minutes
WATCHDOG_S = 1400
PROMPT_SHARE = 0.2  # the server's count within 20% of forgetui's
# llama-cpp-python's verbose log: the prompt it evaluated, for the report (not asserted)
_EVALUATED = re.compile(r"(\d+) prefix-match hit, remaining (\d+) prompt tokens to eval")


def _env(tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "FORGETUI_HOME": str(tmp_path / "home"),
        "FORGETUI_PROBE": "1",  # the suite turns it off for scripted servers
        "NO_COLOR": "1",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
    }


def _forgetui(
    args: list[str], env: dict[str, str], limit_s: float
) -> subprocess.CompletedProcess[str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "forgetui", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    watchdog = threading.Timer(limit_s, proc.kill)  # a run that hangs fails, not the suite
    watchdog.start()
    try:
        out, err = proc.communicate()
    finally:
        watchdog.cancel()
    return subprocess.CompletedProcess(args, proc.returncode, out, err)


def _evaluated(log: str) -> int | None:
    """The last prompt the server evaluated, by its log (cached prefix + the rest)."""
    found = _EVALUATED.findall(log)
    return int(found[-1][0]) + int(found[-1][1]) if found else None


def test_no_flags_the_probe_delivers_the_system_prompt_while_streaming(
    llama_server: LlamaServer, tmp_path: Path
) -> None:
    env = _env(tmp_path)
    # the user's config, not a flag, caps the answer: a 1,024-token answer takes minutes here
    config = tmp_path / "home" / "config" / "config.yaml"
    config.parent.mkdir(parents=True)
    config.write_text("model_options:\n  max_output_tokens: 160\n")
    init = _forgetui(["init", "hello_world", "--into", str(tmp_path / "run")], env, 120)
    task = Path(init.stdout.strip())
    base = ["--model", "openai/gemma", "--api-base", llama_server.api_base]
    done = _forgetui(["run", str(task), *base, "--max-steps", "1", "--json", "--stream"],
                     env, WATCHDOG_S)  # fmt: skip
    server = f"\nserver log:\n{llama_server.log_tail()}"
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode in (0, 3), f"exit {done.returncode}: {done.stderr}{server}"

    # probed, said in one line, applied and kept for the next run
    [said] = [line for line in done.stderr.splitlines() if line.startswith("forgetui: probed")]
    assert "system prompt merged into the user message" in said and "tools off" in said, said
    cached = json.loads((tmp_path / "home" / "cache" / "servers.json").read_text())
    [entry] = cached["servers"].values()
    assert entry["options"]["system_role"] == "merge" and entry["options"]["tools"] == "off"

    records = list(TaskFolder.open(task).log.iter_records())
    intent = next(r for r in records if isinstance(r, IntentRecord))
    result = next(r for r in records if isinstance(r, ResultRecord))
    where = f"{intent.model_dump()} {result.model_dump()}{server}"
    assert not result.transport, where  # the answer came, within the probe's timeout
    assert intent.streamed and intent.raw_response, where
    assert intent.system_role == "merge" and not intent.tools_sent, where
    # the server's count of what was sent, beside forgetui's own
    assert intent.prompt_tokens_by in ("server", "tokenize"), where
    assert intent.context_tokens > 0, where
    share = abs(intent.prompt_tokens - intent.context_tokens) / intent.context_tokens
    evaluated = _evaluated(llama_server.log.read_text(errors="replace"))
    print(
        f"\nprompt tokens: server {intent.prompt_tokens} ({intent.prompt_tokens_by}),"
        f" forgetui {intent.context_tokens}, server log evaluated {evaluated}"
    )
    assert share <= PROMPT_SHARE, where

    # a second run reads the findings instead of probing
    again = _forgetui(["run", str(task), *base, "--max-steps", "0", "--json"], env, 300)
    assert "Traceback" not in again.stderr, again.stderr
    assert "as probed" in again.stderr and "system prompt merged" in again.stderr, again.stderr
