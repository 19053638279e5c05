"""A real model behind a real server nobody here wrote: what forgetui guarantees with it.

Gemma 3 270M rarely gets anywhere with a task, so nothing here depends on what it answers:
every call ends with the server's answer (no timeout, no transport failure), the raw answer is
in the log, the system prompt reached the model (by the server's own count of the prompt), and
the run ends in a state the CLI documents, never a traceback. How long steps take is measured
by bench/local_model_table.py, not asserted here."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from forgetui.engine.folder.records import IntentRecord, ResultRecord
from forgetui.engine.folder.task_folder import TaskFolder
from tests.local_model.llama_server import LlamaServer

pytestmark = pytest.mark.local_model

STEPS = 2  # a step, and one compiled from its recorded result
# per model call: a 256-token answer to a 1,500-token prompt took 50-60 s on 2 cores shared
# with other work (30 prompt tokens/s, 15 answer tokens/s), a few seconds on an idle machine
TIMEOUT_S = 180
MAX_OUTPUT_TOKENS = 160
STEP_MARGIN_S = 30  # the step's own work around the call: compile, action, the sample's checks
# llama-cpp-python's server reports no usage on a streamed answer (it ignores stream_options),
# and its own count of the prompt is the evidence that the system prompt arrived: answers
# come whole here (--no-stream). The other flags are docs/local-models.md's for this server
# (Gemma's chat format drops the system message, and ignores tools).
RUN_FLAGS = ["--no-stream", "--system-role", "merge", "--tools", "off"]


def _env(tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "FORGETUI_HOME": str(tmp_path / "home"),
        "NO_COLOR": "1",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",  # the sample's pytest check, without our plugins
    }


def _run_timed(command: list[str], env: dict[str, str], limit_s: float) -> tuple[
    int, list[tuple[float, dict[str, Any]]], str
]:  # fmt: skip
    """Run `forgetui run --json`, stamping each step line with the seconds since the last one."""
    last = time.monotonic()
    proc = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    assert proc.stdout is not None and proc.stderr is not None
    lines: list[tuple[float, dict[str, Any]]] = []
    watchdog = threading.Timer(limit_s, proc.kill)  # a run that hangs fails, not the suite
    watchdog.start()
    try:
        for line in proc.stdout:
            now = time.monotonic()
            lines.append((now - last, json.loads(line)))
            last = now
        err = proc.stderr.read()
        code = proc.wait(timeout=30)
    finally:
        watchdog.cancel()
    # a run the watchdog killed ends with -9, which the callers' exit-code checks refuse
    return code, lines, err


def test_a_real_local_model_runs_bounded_steps(llama_server: LlamaServer, tmp_path: Path) -> None:
    env = _env(tmp_path)
    forgetui = [sys.executable, "-m", "forgetui"]
    init = subprocess.run(
        [*forgetui, "init", "hello_world", "--into", str(tmp_path / "run")],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    task = Path(init.stdout.strip())
    deadline_s = TIMEOUT_S + STEP_MARGIN_S
    code, lines, err = _run_timed(
        [
            *forgetui, "run", str(task),
            "--model", "openai/gemma",
            "--api-base", llama_server.api_base,
            "--max-steps", str(STEPS),
            "--max-output-tokens", str(MAX_OUTPUT_TOKENS),
            "--timeout", str(TIMEOUT_S),
            *RUN_FLAGS,
            "--json",
        ],
        env,
        limit_s=STEPS * deadline_s + 60,
    )  # fmt: skip
    server = f"\nserver log:\n{llama_server.log_tail()}"

    # a clear end: the documented exit code, a final line that says the status, no traceback
    assert "Traceback" not in err, err
    assert code in (0, 3), f"exit {code}: {err}{server}"
    *steps, (_, final) = lines
    assert final["final"] is True and 1 <= len(steps) <= STEPS, lines
    if code == 3:
        assert final["status"] == "escalated" and final["pending_escalation"]["question"], final
    else:
        assert final["status"] != "escalated" and final["pending_escalation"] is None, final
        assert final["status"] == "complete" or len(steps) == STEPS, final

    records = list(TaskFolder.open(task).log.iter_records())
    intents = {r.step: r for r in records if isinstance(r, IntentRecord)}
    results = {r.step: r for r in records if isinstance(r, ResultRecord)}
    for _seconds, line in steps:
        step = line["step"]
        intent, result = intents[step], results[step]
        where = f"step {step}: {intent.model_dump()} {result.model_dump()}{server}"
        # bounded: the call ended by itself, not at its timeout (no transport failure); how
        # long steps take is measured by bench/local_model_table.py, not asserted here
        assert intent.model_ms > 0, where
        assert not result.transport, where  # the server answered: no timeout, no refusal
        # the raw answer is recorded whole, and why it ended
        assert intent.raw_response and not intent.streamed, where
        assert intent.finish_reason in ("stop", "length", "tool_calls"), where
        assert intent.completion_tokens <= MAX_OUTPUT_TOKENS, where
        # the system prompt reached the model: the server counted (nearly) all of the context
        assert intent.context_tokens > 0, where
        assert intent.prompt_tokens >= 0.7 * intent.context_tokens, where


def test_a_streamed_answer_from_the_real_server_is_recorded(
    llama_server: LlamaServer, tmp_path: Path
) -> None:
    """The default: the answer streams (`--stream` echoes it on stderr) and is recorded whole,
    within its deadline, even though this server counts no tokens on a stream."""
    env = _env(tmp_path)
    forgetui = [sys.executable, "-m", "forgetui"]
    init = subprocess.run(
        [*forgetui, "init", "hello_world", "--into", str(tmp_path / "run")],
        capture_output=True, text=True, env=env, check=True,
    )  # fmt: skip
    task = Path(init.stdout.strip())
    code, _lines, err = _run_timed(
        [
            *forgetui, "run", str(task),
            "--model", "openai/gemma",
            "--api-base", llama_server.api_base,
            "--max-steps", "1",
            "--max-output-tokens", "64",
            "--timeout", str(TIMEOUT_S),
            "--system-role", "merge", "--tools", "off",
            "--json", "--stream",
        ],
        env,
        limit_s=TIMEOUT_S + STEP_MARGIN_S + 60,
    )  # fmt: skip
    assert "Traceback" not in err, err
    assert code in (0, 3), err
    intent = next(
        r for r in TaskFolder.open(task).log.iter_records() if isinstance(r, IntentRecord)
    )
    assert intent.streamed and intent.raw_response, intent
    assert intent.raw_response.strip()[:40] in err  # it went by on stderr as it came
    assert 0 < intent.completion_tokens <= 64 + 1, intent  # chunks counted, at the cap
