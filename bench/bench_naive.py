"""The counterfactual meter on every bundled sample: tokens forgetui sent per step beside those
a run keeping the whole conversation would have sent (the README's table).

Runs the commands a user would, per sample: `forgetui init NAME`, `forgetui run` (its replay
script; the escalation sample's question answered "French", as its tests do), `forgetui stats
--json`. What `naive` counts is in forgetui/engine/history/stats.py. Prints, per sample, sent
and naive at steps 1, 5, 10, 50, 100 and 300 where the run is that long, and the largest
sent/naive of any step, and writes them to bench/results/naive.txt."""

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
STEPS = (1, 5, 10, 50, 100, 300)
SAMPLES = (
    "hello_world", "fix_violation", "implement_feature", "escalation", "long_run", "real_repo",
)  # fmt: skip
ESCALATED = 3  # `forgetui run`'s exit code when the agent asked the operator


def forgetui(*args: str, env: dict[str, str], ok: tuple[int, ...] = (0,)) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "forgetui", *args], capture_output=True, text=True, env=env
    )
    if done.returncode not in ok:
        raise SystemExit(f"forgetui {' '.join(args)}: exit {done.returncode}\n{done.stderr}")
    return done.stdout


def sample_stats(name: str, root: Path, env: dict[str, str]) -> dict[str, Any]:
    task = forgetui("init", name, "--into", str(root / name), env=env).strip()
    ran = subprocess.run(
        [sys.executable, "-m", "forgetui", "run", task], capture_output=True, text=True, env=env
    )
    if ran.returncode == ESCALATED:
        forgetui("answer", task, "French", env=env)
        forgetui("run", task, env=env)
    elif ran.returncode != 0:
        raise SystemExit(f"forgetui run {name}: exit {ran.returncode}\n{ran.stderr}")
    stats: dict[str, Any] = json.loads(forgetui("stats", task, "--json", env=env))
    return stats


def worst(steps: list[dict[str, int]]) -> dict[str, int]:
    """The step whose sent/naive is the largest."""
    return max(steps, key=lambda row: row["sent"] / row["naive"])


def rows(name: str, stats: dict[str, Any]) -> list[str]:
    by_step = {row["step"]: row for row in stats["steps"]}
    lines = []
    for step in STEPS:
        if step in by_step:
            row = by_step[step]
            lines.append(
                f"| {name} | {step} | {row['sent']:,} | {row['naive']:,} |"
                f" {row['naive'] / row['sent']:.1f}x |"
            )
    top = worst(stats["steps"])
    lines.append(
        f"| {name} | largest sent/naive: step {top['step']} of {len(stats['steps'])} |"
        f" {top['sent']:,} | {top['naive']:,} | {top['sent'] / top['naive']:.3f} |"
    )
    return lines


def main() -> None:
    names = sys.argv[1:] or SAMPLES
    root = Path(tempfile.mkdtemp(prefix="forgetui-bench-naive-"))
    env = {**os.environ, "FORGETUI_HOME": str(root / "home")}
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    table = [
        "| sample | step | forgetui sent | naive (whole conversation) | naive / sent |",
        "|---|---:|---:|---:|---:|",
    ]
    totals = []
    encoding = "?"
    try:
        for name in names:
            stats = sample_stats(name, root, env)
            table += rows(name, stats)
            summary = stats["summary"]
            totals.append(
                f"{name}: {summary['steps']} steps, {summary['sent_total']:,} tokens sent vs"
                f" {summary['naive_total']:,} naive ({summary['ratio_total']}x)"
            )
            encoding = summary["encoding"]
    finally:
        shutil.rmtree(root, ignore_errors=True)
    lines = [
        f"bench_naive: every sample, replay model, counted with {encoding};"
        f" Python {sys.version.split()[0]}",
        "",
        *table,
        "",
        *totals,
    ]
    report = "\n".join(lines) + "\n"
    print(report, end="")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(report)


if __name__ == "__main__":
    main()
