"""What the sandbox costs a command: `python -c pass` through `run_command`, in
bubblewrap mode and in allow-list mode, 30 runs each after a warm-up. Writes
bench/results/sandbox.txt."""

from __future__ import annotations

import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).parent / "results" / "sandbox.txt"
sys.path.insert(0, str(REPO))

from forgetui.engine.sandbox import MODE_VARIABLE, run_command, sandbox_mode  # noqa: E402

RUNS = 30


def timings(mode: str, workspace: Path) -> list[float]:
    os.environ[MODE_VARIABLE] = mode
    run_command(["python", "-c", "pass"], workspace, ("python",))  # warm-up (and the probe)
    took = []
    for _ in range(RUNS):
        started = time.perf_counter()
        result = run_command(["python", "-c", "pass"], workspace, ("python",))
        took.append((time.perf_counter() - started) * 1000)
        assert result.exit_code == 0 and result.sandbox == mode, result
    return took


def main() -> int:
    lines = [
        __doc__.splitlines()[0],
        f"{time.strftime('%Y-%m-%d %H:%M %Z')}; {platform.platform()}, {os.cpu_count()} CPUs; "
        f"Python {platform.python_version()}",
        "",
    ]
    modes = ["allow-list"]
    os.environ.pop(MODE_VARIABLE, None)
    if sandbox_mode().name == "bwrap":
        modes.insert(0, "bwrap")
    else:
        lines.append(f"bwrap: not measured ({sandbox_mode().reason})")
    with tempfile.TemporaryDirectory(prefix="forgetui-sandbox-") as scratch:
        for mode in modes:
            took = timings(mode, Path(scratch))
            p95 = statistics.quantiles(took, n=20)[-1]
            lines.append(
                f"{mode:>10}: median {statistics.median(took):.1f} ms, p95 {p95:.1f} ms, "
                f"min {min(took):.1f} ms ({RUNS} runs)"
            )
            print(lines[-1], flush=True)
    RESULTS.write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
