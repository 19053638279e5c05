"""Crash harness: SIGKILL a headless run at random moments, resume, until it ends.

A 69-step replayed task of mixed actions (write_file, read_file, edit_file, run_cmd `python -c`
writing a file, note, run_check, complete) runs as `forgetui run --json --on-interrupt rerun`
in a subprocess that is SIGKILLed after a random delay, `--kills` times (120), then left to
finish. Checked against a clean, uninterrupted run of the same script: every step has exactly
one intent and one result (`forgetui log --json` and the records), state.yaml's step is the
last step, the workspace equals the clean run's byte for byte (.agentforge aside), no `lock`
and no temporary file is left, and every state file loads. A kill between a command's effect
and its result makes `rerun` run it again, so each command writes a fixed content
(idempotent). Exit 1 on any violation. The logic is tests/engine/crash_harness.py, shared
with the suite's short variant. Prints the figures and writes bench/results/crash.txt."""

from __future__ import annotations

import argparse
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # the harness is in tests/engine, next to the suite's variant

from tests.engine.crash_harness import crash_and_check  # noqa: E402

RESULTS = Path(__file__).parent / "results" / "crash.txt"


def header() -> str:
    def git(*args: str) -> str:
        run = subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True)
        return run.stdout.strip()

    commit = git("rev-parse", "--short", "HEAD") or "unknown"
    dirty = " (uncommitted changes)" if git("status", "--porcelain", "--untracked-files=no") else ""
    return (
        f"{time.strftime('%Y-%m-%d %H:%M %Z')}; commit {commit}{dirty}; {platform.platform()}, "
        f"{os.cpu_count()} CPUs; Python {platform.python_version()}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=120, help="SIGKILLs to survive (120)")
    parser.add_argument("--seed", type=int, help="seed of the kill moments (random if not given)")
    parser.add_argument("--keep", action="store_true", help="keep the task folders afterwards")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1_000_000)
    print(f"bench_crash: seed {seed} (rerun with --seed {seed}), {args.kills} kills")
    root = Path(tempfile.mkdtemp(prefix="forgetui-bench-crash-"))
    report = crash_and_check(root, args.kills, seed, progress=lambda line: print(f"  {line}"))
    lines = [
        f"bench_crash: {report.expected_steps}-step replayed task, SIGKILLed at random moments "
        f"and resumed with `run --on-interrupt rerun` until complete",
        header(),
        "",
        *report.lines(),
        f"rerun: python bench/bench_crash.py --seed {seed} --kills {args.kills}",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(text)
    if report.violations or args.keep:
        print(f"task folders kept in {root}")
    else:
        shutil.rmtree(root, ignore_errors=True)
    return 1 if report.violations else 0


if __name__ == "__main__":
    sys.exit(main())
