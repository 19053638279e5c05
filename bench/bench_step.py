"""Engine overhead of one step and the flat context of a long run (README.md, Performance).

Runs the long_run sample (300+ steps) with the replay model in process. For each step, the
engine's own time is the wall time of Executor.step() less the model call and the action with
its verification (both recorded per step). Also reports the context tokens after warm-up (step
50: the rolling parts, memory, recent actions, progress and scratchpad, are full) vs step 300,
step 10's for reference, and the largest context. Prints a table and writes
bench/results/step.txt."""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from forgetui.engine.llm import make_model
from forgetui.engine.start.samples import init_sample
from forgetui.engine.step.executor import Executor

RESULTS = Path(__file__).parent / "results" / "step.txt"


WARM = 50  # the step by which the rolling parts of the context are full


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    root = Path(tempfile.mkdtemp(prefix="forgetui-bench-step-"))
    os.environ["FORGETUI_HOME"] = str(root / "home")
    folder = init_sample("long_run", into=root / "run")
    model = make_model("replay", task_dir=folder.path)
    walls: dict[int, float] = {}
    with Executor(folder, model) as ex:
        while folder.load_state().status not in ("complete", "escalated"):
            start = time.perf_counter()
            report = ex.step()
            walls[report.step] = (time.perf_counter() - start) * 1000
    intents = {r.step: r for r in folder.log.iter_records() if r.kind == "intent"}
    results = {r.step: r for r in folder.log.iter_records() if r.kind == "result"}
    overhead = [walls[s] - intents[s].model_ms - results[s].duration_ms for s in walls]
    tokens = {s: intents[s].context_tokens for s in intents}
    spread = abs(tokens[300] - tokens[WARM]) / tokens[WARM] * 100
    lines = [
        f"bench_step: long_run sample, {len(walls)} steps, replay model; Python "
        f"{sys.version.split()[0]}",
        "",
        f"{'figure':<52} {'p50':>9} {'p95':>9} {'max':>9}  target",
        f"{'engine overhead per step (model + tools excluded)':<52} "
        f"{pct(overhead, 0.5):>6.2f} ms {pct(overhead, 0.95):>6.2f} ms {max(overhead):>6.2f} ms"
        "  p95 < 20 ms",
        f"{'whole step wall time (replay model, real tools)':<52} "
        f"{pct(list(walls.values()), 0.5):>6.2f} ms {pct(list(walls.values()), 0.95):>6.2f} ms "
        f"{max(walls.values()):>6.2f} ms",
        "",
        f"context tokens: step {WARM} (warm) {tokens[WARM]:,}, step 300 {tokens[300]:,} "
        f"(differ by {spread:.1f}%, target within 10%); step 10 {tokens[10]:,}",
        f"largest context of any step: {max(tokens.values()):,} (maximum 8,000); mean "
        f"{statistics.mean(tokens.values()):,.0f}",
        f"final status: {folder.load_state().status}",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(text)


if __name__ == "__main__":
    main()
