"""Opening a task with 100,000 records (target: `status --json` under 0.3 s).

Builds a task whose log holds 50,000 steps (an intent and a result each, realistic sizes), then
times `forgetui status --json` and what it needs, TaskFolder.open + load_state + the log's
tail, in a fresh interpreter each run so imports count; then the log reads a step or the TUI
makes, in process. `status` reads no record: its cost is the interpreter, the imports and the
sandbox probe, whatever the log's size. Prints a table and writes it to
bench/results/status.txt; `--steps N` for another size, `--label` names the code measured."""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from forgetui.engine.folder.action_log import ActionLog, encode_record
from forgetui.engine.folder.records import IntentRecord, ResultRecord
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.folder.task_spec import TaskSpec
from forgetui.engine.folder.task_state import CheckResult, Verification

STEPS = 50_000
TARGET_S = 0.3
RUNS = 10
RESULTS = Path(__file__).parent / "results" / "status.txt"

STATUS_SCRIPT = """
import time
t0 = time.perf_counter()
import sys
from pathlib import Path
from forgetui.engine.folder.task_folder import TaskFolder
t1 = time.perf_counter()
folder = TaskFolder.open(Path(sys.argv[1]))
state = folder.load_state()
recent = folder.log.tail(3)
t2 = time.perf_counter()
assert state.step == int(sys.argv[2]) and len(recent) == 3, (state.step, recent)
print(t1 - t0, t2 - t1)
"""

ACTIONS = ("read_file", "write_file", "edit_file", "run_command", "run_check", "load_context")


def _text(rng: random.Random, size: int) -> str:
    words = ("def", "return", "self", "value", "assert", "import", "pytest", "error", "line")
    out: list[str] = []
    length = 0
    while length < size:
        word = rng.choice(words)
        out.append(word + ("\n" if rng.random() < 0.12 else " "))
        length += len(out[-1])
    return "".join(out)[:size]


def build_log(path: Path, steps: int) -> int:
    """Write `steps` intent+result pairs; sizes follow a real run (a raw model answer of a few
    hundred bytes, occasional file contents, capped command output). Returns the file size."""
    rng = random.Random(7)
    with open(path, "wb") as handle:
        for step in range(1, steps + 1):
            action = rng.choice(ACTIONS)
            args: dict[str, object] = {"path": f"src/module_{step % 40}.py"}
            if action in ("write_file", "edit_file"):
                args["content"] = _text(rng, rng.randint(200, 2500))
            if action == "run_command":
                args = {"cmd": "pytest -q tests/test_module.py"}
            raw = json.dumps({"thought": _text(rng, rng.randint(100, 500)), "action": action})
            intent = IntentRecord(
                step=step, at="2025-01-01T00:00:00Z", action=action, args=args,
                model="openai/gpt-4o-mini", raw_response=raw,
                context_tokens=rng.randint(2500, 7800),
                prompt_tokens=rng.randint(2600, 7900), completion_tokens=rng.randint(40, 400),
                cost=round(rng.uniform(0.0004, 0.002), 6), model_ms=rng.uniform(400, 3000),
                context_file=f"artifacts/contexts/step-{step:06d}.yaml",
            )  # fmt: skip
            output = _text(rng, rng.randint(0, 4000)) if action.startswith("run") else None
            result = ResultRecord(
                step=step, at="2025-01-01T00:00:01Z", action=action, args=args,
                result=rng.choice(("success", "success", "success", "failure")),
                summary=f"{action} on step {step}: " + _text(rng, rng.randint(30, 120)),
                output=output, duration_ms=rng.uniform(1, 900),
                files_changed=[str(args["path"])] if action.endswith("_file") else [],
            )  # fmt: skip
            handle.write(encode_record(intent) + encode_record(result))
    return path.stat().st_size


def make_task(root: Path) -> TaskFolder:
    workspace = root / "repo"
    workspace.mkdir()
    spec = TaskSpec(id="bench", goal="Keep the test suite green.", success_criteria=["tests pass"])
    folder = TaskFolder.create(workspace, spec)
    with folder.lock:
        state = folder.load_state()
        state.step = STEPS
        state.status = "paused"
        state.verification = Verification(
            step=STEPS, checks={"tests": CheckResult(passing=True, details="212 passed")}
        )
        folder.save_state(state)
    return folder


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(ordered), p95


def time_calls(call: Callable[[], object], runs: int) -> list[float]:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        samples.append(time.perf_counter() - start)
    return samples


def main() -> None:
    global STEPS
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=STEPS)
    parser.add_argument("--label", default="", help="what code was measured, for the table")
    parser.add_argument(
        "--instructions", action="store_true",
        help="also count the CPU instructions of one `status --json` under valgrind: a figure "
        "a busy machine does not move, for comparing two versions",
    )  # fmt: skip
    options = parser.parse_args()
    STEPS = options.steps
    root = Path(tempfile.mkdtemp(prefix="forgetui-bench-status-"))
    try:
        folder = make_task(root)
        size = build_log(folder.log.path, STEPS)

        walls, imports, reads = [], [], []
        for _ in range(RUNS):
            start = time.perf_counter()
            proc = subprocess.run(
                [sys.executable, "-c", STATUS_SCRIPT, str(root / "repo"), str(STEPS)],
                capture_output=True, text=True, check=True,
            )  # fmt: skip
            walls.append(time.perf_counter() - start)
            imported, read = map(float, proc.stdout.split())
            imports.append(imported)
            reads.append(read)

        cli_walls = []
        for _ in range(RUNS):
            start = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "forgetui", "status", str(root / "repo"), "--json"],
                capture_output=True, text=True, check=True,
            )  # fmt: skip
            cli_walls.append(time.perf_counter() - start)

        log = ActionLog(folder.log.path)
        rng = random.Random(1)
        rows: list[tuple[str, list[float], str]] = [
            ("`forgetui status --json` (the CLI, wall)", cli_walls, f"< {TARGET_S} s"),
            ("open + read in a fresh process (wall, interpreter included)", walls, ""),
            ("  imports (store, pydantic, yaml)", imports, ""),
            ("  open + load_state + log tail(3)", reads, ""),
            ("log.tail(3), results", time_calls(lambda: log.tail(3), 200), ""),
            ("log.tail(10, kinds=intent)", time_calls(lambda: log.tail(10, ("intent",)), 200), ""),
            ("log.last_step_status()", time_calls(log.last_step_status, 200), ""),
            ("log index, first len() (scan, no parse)", [_cold_len(folder.log.path)
                                                          for _ in range(10)], ""),
            ("log.record_at(random), warm index", time_calls(
                lambda: log.record_at(rng.randrange(2 * STEPS)), 500), ""),
            ("log.records(window of 50), warm index", time_calls(
                lambda: _window(log, rng.randrange(2 * STEPS - 50), 50), 100), ""),
            ("log.merged(tail=20)", time_calls(lambda: list(log.merged(tail=20)), 50), ""),
            ("load_state(), cached", time_calls(folder.load_state, 200), ""),
            ("load_state(), fresh folder object", time_calls(
                lambda: TaskFolder.open(folder.path).load_state(), 50), ""),
        ]  # fmt: skip
        lines = [
            f"bench_status: task with {STEPS:,} steps ({2 * STEPS:,} records, "
            f"{size / 1e6:.1f} MB actions.yaml); Python {sys.version.split()[0]}"
            + f"; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
            + (f"; {options.label}" if options.label else ""),
            "",
            f"{'figure':<62} {'p50':>10} {'p95':>10}  {'n':>4}  target",
        ]
        for name, samples, target in rows:
            p50, p95 = percentiles(samples)
            lines.append(
                f"{name:<62} {_fmt(p50):>10} {_fmt(p95):>10}  {len(samples):>4}  {target}".rstrip()
            )
        p50, p95 = percentiles(cli_walls)
        verdict = "met" if p95 < TARGET_S else "MISSED"
        lines += [
            "",
            f"`forgetui status --json`, {2 * STEPS:,} records: p95 {p95:.3f} s, "
            f"target < {TARGET_S} s: {verdict}",
        ]
        if options.instructions:
            lines.append(_instructions(root / "repo"))
        report = "\n".join(lines) + "\n"
        print(report, end="")
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(report)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _instructions(task: Path) -> str:
    """Instructions the `status --json` process runs (valgrind's callgrind; the sandbox probe's
    child process is not counted)."""
    if shutil.which("valgrind") is None:
        return "instructions: valgrind not installed"
    proc = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
         sys.executable, "-m", "forgetui", "status", str(task), "--json"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    found = re.search(r"refs:\s+([\d,]+)", proc.stderr)
    count = found.group(1) if found else "not reported"
    return f"instructions of one `status --json` (callgrind, its own process): {count}"


def _window(log: ActionLog, start: int, size: int) -> None:
    assert len(log.records(start, start + size)) == size


def _cold_len(path: Path) -> float:
    start = time.perf_counter()
    count = len(ActionLog(path))
    elapsed = time.perf_counter() - start
    assert count == 2 * STEPS
    return elapsed


def _fmt(seconds: float) -> str:
    if seconds >= 0.1:
        return f"{seconds:.3f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.0f} µs"


if __name__ == "__main__":
    main()
