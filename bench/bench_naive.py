"""The counterfactual meter on the long_run sample: tokens forgetui sent per step beside those a
run keeping the whole conversation would have sent (the README's table).

Runs the commands a user would: `forgetui init long_run`, `forgetui run` (the sample's replay
script, 303 steps), `forgetui stats --json`. What `naive` counts is in
forgetui/engine/history/stats.py. Prints the table at steps 1, 5, 10, 100, 300 and writes it to
bench/results/naive.txt."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).parent / "results" / "naive.txt"
STEPS = (1, 5, 10, 100, 300)


def forgetui(*args: str, env: dict[str, str]) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "forgetui", *args], capture_output=True, text=True, env=env
    )
    if done.returncode != 0:
        raise SystemExit(f"forgetui {' '.join(args)}: exit {done.returncode}\n{done.stderr}")
    return done.stdout


def table(stats: dict[str, Any]) -> list[str]:
    by_step = {row["step"]: row for row in stats["steps"]}
    lines = [
        "| step | forgetui sent | naive (whole conversation) | naive / sent |",
        "|---:|---:|---:|---:|",
    ]
    for step in STEPS:
        row = by_step[step]
        lines.append(
            f"| {step} | {row['sent']:,} | {row['naive']:,} | {row['naive'] / row['sent']:.1f}x |"
        )
    return lines


def main() -> None:
    root = Path(tempfile.mkdtemp(prefix="forgetui-bench-naive-"))
    env = {**os.environ, "FORGETUI_HOME": str(root / "home")}
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    try:
        task = forgetui("init", "long_run", "--into", str(root / "run"), env=env).strip()
        forgetui("run", task, env=env)
        stats = json.loads(forgetui("stats", task, "--json", env=env))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    summary = stats["summary"]
    lines = [
        f"bench_naive: long_run sample, {summary['steps']} steps, replay model, counted with"
        f" {summary['encoding']}; Python {sys.version.split()[0]}",
        "",
        *table(stats),
        "",
        f"all {summary['steps']} steps: {summary['sent_total']:,} tokens sent vs"
        f" {summary['naive_total']:,} naive ({summary['ratio_total']}x); largest context sent"
        f" {summary['sent_max']:,}; a whole-conversation run passes the"
        f" {summary['cap']:,}-token cap at step {summary['naive_over_cap_from']}",
    ]
    report = "\n".join(lines) + "\n"
    print(report, end="")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(report)


if __name__ == "__main__":
    main()
