"""A few steps of a sample driven by a real local model, as a per-step table.

Runs `forgetui run SAMPLE --model openai/gemma --api-base URL --max-steps N --json` in a fresh
copy of the sample, timing each step by when its JSON line arrives, then reads the task's log:
forgetui's own count of the context (`context_tokens`) next to the prompt tokens the server
reported (`prompt_tokens`), how long the model call took, why the answer ended
(`finish_reason`) and what came of it (the action and its result, the parse error, the
escalation). Prints a markdown table and writes it into one section of
bench/results/local_model.md (the other sections are kept).

    python bench/local_model_table.py --api-base http://127.0.0.1:8765/v1 --section after \\
        -- --max-output-tokens 256 --timeout 60

Without --api-base it starts llama.cpp's server itself (tests/local_model/llama_server.py:
FORGETUI_LLAMA_PYTHON or the `make local-model` cache). `--forgetui-path DIR` runs another
checkout of forgetui (PYTHONPATH=DIR), e.g. an older commit's, and `--limit` kills a run
that takes longer (the old code could spend minutes on one step)."""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _shown_path(path: Path) -> str:
    """A checkout as the results file names it: relative to this one, not this machine's."""
    try:
        return path.resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return path.name


RESULTS = ROOT / "bench" / "results" / "local_model.md"
TITLE = (
    "# A real local model: llama.cpp server + Gemma 3 270M (Q4_K_M), per step\n\n"
    "Written by bench/local_model_table.py, one section per run (docs/local-models.md).\n"
)


@dataclass
class Run:
    """What one `forgetui run` did: its step lines with their arrival times, and how it ended."""

    command: list[str]
    started: float
    lines: list[tuple[float, dict[str, Any]]] = field(default_factory=list)
    code: int | None = None  # None: killed at the limit
    ended: float = 0.0
    stderr: str = ""


def forgetui_env(home: Path, forgetui_path: Path | None) -> dict[str, str]:
    """The commands run in `home`'s directory: `python -m` puts the working directory first on
    sys.path, which must not be a checkout other than `forgetui_path`."""
    env = {**os.environ, "FORGETUI_HOME": str(home), "NO_COLOR": "1"}
    env["PYTHONPATH"] = str(forgetui_path) if forgetui_path else ""
    return env


def forgetui(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "forgetui", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=Path(env["FORGETUI_HOME"]).parent,
        timeout=120,
        check=True,
    )
    return done.stdout


def run_steps(env: dict[str, str], args: list[str], limit_s: float) -> Run:
    """`forgetui run ... --json`, stamping each line as it arrives; killed after `limit_s`."""
    command = [sys.executable, "-m", "forgetui", "run", *args]
    run = Run(command=command, started=time.monotonic())
    proc = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=Path(env["FORGETUI_HOME"]).parent,
        start_new_session=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    err: list[str] = []
    reader = threading.Thread(target=lambda: err.extend(proc.stderr or []), daemon=True)
    reader.start()
    timer = threading.Timer(limit_s, lambda: os.killpg(proc.pid, signal.SIGKILL))
    timer.start()
    try:
        for line in proc.stdout:
            with contextlib.suppress(ValueError):
                run.lines.append((time.monotonic(), json.loads(line)))
        code = proc.wait()
    finally:
        timer.cancel()
    run.ended = time.monotonic()
    run.code = None if code == -signal.SIGKILL else code
    reader.join(timeout=5)
    run.stderr = "".join(err)
    return run


def log_records(task: Path) -> Iterator[dict[str, Any]]:
    """actions.yaml's records as written (`--- {json}` lines), whatever forgetui wrote them."""
    for line in (task / "actions.yaml").read_text().splitlines():
        if line.startswith("--- "):
            with contextlib.suppress(ValueError):
                yield json.loads(line[4:])


def server_model(api_base: str) -> str:
    try:
        with urllib.request.urlopen(f"{api_base}/models", timeout=5) as reply:
            return ", ".join(m.get("id", "?") for m in json.load(reply).get("data", []))
    except (OSError, ValueError) as exc:
        return f"unknown ({exc})"


def _cell(text: str, width: int = 110) -> str:
    flat = " ".join(str(text).split()).replace("|", "\\|")
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def what_happened(entry: dict[str, Any] | None, intent: dict[str, Any]) -> str:
    """The parsed action and its result, or the parse error, the model error, the escalation."""
    if entry is None:
        return "no result: the run was killed during this step"
    summary = entry.get("summary", "")
    action = entry.get("action", intent.get("action", "?"))
    return f"`{action}` → {entry.get('result')}: {summary}"


def table(run: Run, task: Path, log_entries: list[dict[str, Any]]) -> list[str]:
    intents = {r["step"]: r for r in log_records(task) if r.get("kind") == "intent"}
    entries = {e["step"]: e for e in log_entries if "action" in e}
    arrivals = {line["step"]: at for at, line in run.lines if not line.get("final")}
    steps = sorted(set(intents) | set(entries))
    rows = [
        "| step | seconds | model s | forgetui tokens | server prompt tokens | server / forgetui"
        " | completion tokens | finish | system role | tools | what happened |",
        "|---:|---:|---:|---:|---:|---:|---:|---|---|---|---|",
    ]
    previous = run.started
    for step in steps:
        intent, entry = intents.get(step, {}), entries.get(step)
        arrived = arrivals.get(step, run.ended)
        ours = int(intent.get("context_tokens") or 0)
        theirs = int(intent.get("prompt_tokens") or 0)
        ratio = f"{theirs / ours:.0%}" if ours and theirs else "—"
        rows.append(
            f"| {step} | {arrived - previous:.1f} | {float(intent.get('model_ms') or 0) / 1000:.1f}"
            f" | {ours} | {theirs or '—'} | {ratio} | {intent.get('completion_tokens') or '—'}"
            f" | {intent.get('finish_reason') or '—'} | {intent.get('system_role') or 'system'}"
            f" | {tools_cell(intent)} | {_cell(what_happened(entry, intent))} |"
        )
        previous = arrived
    return rows


def tools_cell(intent: dict[str, Any]) -> str:
    """Whether tool schemas went with the request, and their tokens in forgetui's count."""
    sent = intent.get("tools_sent")
    if sent is None:
        return "—"
    tokens = intent.get("tool_tokens")
    return "not sent" if not sent else f"sent ({tokens} tok)" if tokens else "sent"


def ending(run: Run) -> list[str]:
    total = run.ended - run.started
    if run.code is None:
        return [f"Killed at the limit after {total:.0f} s (no final line)."]
    final = next((line for _, line in reversed(run.lines) if line.get("final")), None)
    lines = [f"Exit code {run.code} after {total:.1f} s."]
    if final:
        lines[0] += f" Final status `{final.get('status')}` at step {final.get('step')}."
        pending = final.get("pending_escalation")
        if pending:
            lines.append(
                f"Escalation `{pending.get('reason')}`: {_cell(pending.get('question', ''), 400)}"
            )
    if "Traceback" in run.stderr:
        lines.append("**A traceback on stderr:** " + _cell(run.stderr.strip()[-400:], 400))
    elif run.stderr.strip():
        lines.append("stderr: " + _cell(run.stderr.strip(), 400))
    return lines


def raw_answers(task: Path) -> list[str]:
    out = []
    for record in log_records(task):
        if record.get("kind") == "intent":
            raw = record.get("raw_response")
            shown = f"`{_cell(raw, 300)}`" if raw else "(none: no answer arrived)"
            out.append(f"- step {record['step']}: {shown}")
    return out


def write_section(name: str, body: list[str]) -> None:
    """Replace section `## name` of the results file (or add it), keeping the others."""
    text = RESULTS.read_text() if RESULTS.exists() else TITLE
    head, *sections = text.split("\n## ")
    kept = {s.split("\n", 1)[0].strip(): s for s in sections}
    kept[name] = name + "\n\n" + "\n".join(body).rstrip() + "\n"
    # the "before" sections, then the "after" ones, then any other, each in the order written
    order = sorted(
        kept, key=lambda n: 0 if n.startswith("before") else 1 if n.startswith("after") else 2
    )
    RESULTS.write_text(head.rstrip() + "\n" + "".join(f"\n## {kept[n].rstrip()}\n" for n in order))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--api-base", help="a started server (default: start llama.cpp's)")
    parser.add_argument("--sample", default="hello_world")
    parser.add_argument("--model", default="openai/gemma")
    parser.add_argument("--max-steps", type=int, default=3)
    parser.add_argument("--section", default="after", help="the results file's section")
    parser.add_argument("--forgetui-path", type=Path, help="run this checkout (PYTHONPATH)")
    parser.add_argument("--limit", type=float, default=900, help="kill the run after S seconds")
    parser.add_argument("--note", default="", help="a sentence put under the section's title")
    parser.add_argument(
        "--model-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a task.yaml model_options field with no flag, e.g. stream=false (repeatable)",
    )
    parser.add_argument("run_args", nargs="*", help="more `forgetui run` flags, after --")
    options = parser.parse_args()
    with contextlib.ExitStack() as stack:
        api_base = options.api_base or stack.enter_context(own_server())
        report(options, api_base)


@contextlib.contextmanager
def own_server() -> Iterator[str]:
    sys.path.insert(0, str(ROOT))
    from tests.local_model.llama_server import gguf_model, llama_python, running_server

    python = llama_python()
    log = Path(tempfile.mkdtemp(prefix="forgetui-llama-")) / "server.log"
    with running_server(python, gguf_model(python), log) as server:
        print(f"started {server.api_base} (log: {log})", file=sys.stderr)
        yield server.api_base


def report(options: argparse.Namespace, api_base: str) -> None:
    root = Path(tempfile.mkdtemp(prefix="forgetui-local-model-"))
    env = forgetui_env(root / "home", options.forgetui_path)
    task = Path(forgetui(env, "init", options.sample, "--into", str(root / "run")).strip())
    if options.model_option:
        fields = "".join(f"  {o.replace('=', ': ', 1)}\n" for o in options.model_option)
        with (task / "task.yaml").open("a") as spec:
            spec.write("model_options:\n" + fields)
        forgetui(env, "accept-task-change", str(task))
    args = [str(task), "--model", options.model, "--api-base", api_base]
    args += ["--max-steps", str(options.max_steps), "--json", *options.run_args]
    serving = server_model(api_base)  # before the run: a busy server may not answer after it
    run = run_steps(env, args, options.limit)
    entries = [json.loads(x) for x in forgetui(env, "log", str(task), "--json").splitlines() if x]
    code = options.forgetui_path or ROOT
    commit = subprocess.run(
        ["git", "-C", str(code), "log", "-1", "--format=%h %s"], capture_output=True, text=True
    ).stdout.strip()
    imported = subprocess.run(
        [sys.executable, "-c", "import forgetui; print(forgetui.__file__)"],
        capture_output=True,
        text=True,
        env=env,
        cwd=root,
    ).stdout.strip()
    shown = ["forgetui", "run", f"<a copy of {options.sample}>", *args[1:]]
    body = [
        *([options.note, ""] if options.note else []),
        f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC; code: `{_cell(commit, 90)}`"
        f" ({_shown_path(Path(imported).parent)});"
        f" server: `{api_base}` serving `{serving}`; {os.cpu_count()} CPUs.",
        "",
        "`"
        + " ".join(shown)
        + "`"
        + "".join(
            f"; task.yaml `model_options: {o.replace('=', ': ', 1)}`" for o in options.model_option
        ),
        "",
        *table(run, task, entries),
        "",
        *ending(run),
        "",
        "Raw answers (first 300 characters):",
        "",
        *(raw_answers(task) or ["- none recorded"]),
    ]
    print("\n".join(body))
    write_section(options.section, body)
    print(f"\nwrote section '{options.section}' of {RESULTS}", file=sys.stderr)


if __name__ == "__main__":
    main()
