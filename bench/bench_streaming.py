"""How soon a model call gives up or stops, and `doctor` against nothing (fake server).

The timings the tests used to assert (they now check only what happened, not how fast). Five runs
of each after a warm-up (litellm's lazy imports). Writes bench/results/streaming.txt.

* trickle: an answer that never ends, 4 characters every 0.1 s, a 1 s timeout (expect 1.0-1.8 s);
* stop, silent server: the operator stops while the server is still silent (30 s away);
  from the stop to the call's return (expect well under 1 s);
* stop, mid-answer: the operator stops a streaming answer; from the stop to the return;
* doctor, nothing listening: `forgetui doctor` against a closed port (expect well under 30 s)."""

from __future__ import annotations

import os
import platform
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).parent / "results" / "streaming.txt"
sys.path.insert(0, str(REPO))

from forgetui.engine.folder.catalog import actions_of  # noqa: E402
from forgetui.engine.llm import LiteLLMModel  # noqa: E402
from forgetui.engine.llm.stream import AnswerStream  # noqa: E402
from tests.fake_openai import FakeOpenAI, slow_reply, stream_reply, text_reply  # noqa: E402

RUNS = 5
MESSAGES = [
    {"role": "system", "content": "You are the agent. One action per answer."},
    {"role": "user", "content": "Goal: make the tests pass.\nLast result: none."},
]
TOOLS = actions_of("execution")
PROSE = "Let me think about what the task needs before I act on it. " * 20
STOP_AFTER_S = 0.3


def model(fake: FakeOpenAI, timeout_s: float) -> LiteLLMModel:
    return LiteLLMModel(
        "openai/gpt-4o-mini", api_base=fake.url, timeout_s=timeout_s, deadline_s=60.0,
        backoff_base_s=0.01, backoff_cap_s=0.05,
    )  # fmt: skip


def trickle(fake: FakeOpenAI) -> float:
    llm = model(fake, timeout_s=1.0)
    fake.queue(stream_reply(PROSE, chunk_delay_s=0.1))
    started = time.perf_counter()
    reply = llm.complete(MESSAGES, TOOLS, AnswerStream())
    took = time.perf_counter() - started
    assert reply.failure_kind == "timeout", reply
    return took


def stopped(fake: FakeOpenAI, *, silent: bool) -> float:
    """Seconds from the operator's stop to the call's return."""
    llm = model(fake, timeout_s=10.0)
    late = slow_reply(30, text_reply("late"))
    fake.queue(late if silent else stream_reply(PROSE, chunk_delay_s=0.02))
    answer = AnswerStream()
    stop_at: list[float] = []

    def stop() -> None:
        stop_at.append(time.perf_counter())
        answer.request_stop()

    threading.Timer(STOP_AFTER_S, stop).start()
    reply = llm.complete(MESSAGES, TOOLS, answer)
    took = time.perf_counter() - stop_at[0]
    assert reply.stopped, reply
    return took


def doctor_nothing_listening(_: FakeOpenAI) -> float:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "forgetui", "doctor", "--model", "openai/gemma", "--api-base", url],
        capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "OPENAI_API_KEY": "sk-bench"},
    )  # fmt: skip
    took = time.perf_counter() - started
    assert done.returncode == 1, done.stderr
    return took


def measure(fake: FakeOpenAI, name: str, run: Callable[[FakeOpenAI], float]) -> str:
    took = [run(fake) for _ in range(RUNS)]
    line = (
        f"{name:>28}: median {statistics.median(took):.2f} s, max {max(took):.2f} s, "
        f"min {min(took):.2f} s ({RUNS} runs)"
    )
    print(line, flush=True)
    return line


def main() -> int:
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench")
    lines = [
        __doc__.splitlines()[0],
        f"{time.strftime('%Y-%m-%d %H:%M %Z')}; {platform.platform()}, {os.cpu_count()} CPUs; "
        f"Python {platform.python_version()}",
        "",
    ]
    fake = FakeOpenAI()
    fake.start()
    try:
        fake.queue(text_reply("```yaml\naction: run_check\n```"))  # warm-up: litellm's imports
        model(fake, timeout_s=10.0).complete(MESSAGES, TOOLS)
        lines.append(measure(fake, "trickle, 1 s timeout", trickle))
        lines.append(measure(fake, "stop, silent server", lambda f: stopped(f, silent=True)))
        lines.append(measure(fake, "stop, mid-answer", lambda f: stopped(f, silent=False)))
        lines.append(measure(fake, "doctor, nothing listening", doctor_nothing_listening))
    finally:
        fake.stop()
    RESULTS.write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
