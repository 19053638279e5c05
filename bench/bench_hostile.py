"""The slowest state file forgetui still accepts: shapes of state.yaml and
working_memory.yaml just under the size and nesting limits, each timed through a real
`forgetui status` and `forgetui context` in a fresh process, with its peak memory. A file over
a limit is refused at once; these are the worst it has to chew on. Writes
bench/results/hostile.txt."""

from __future__ import annotations

import os
import platform
import resource
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).parent / "results" / "hostile.txt"
sys.path.insert(0, str(REPO))

from forgetui.engine.base.yamlio import MAX_YAML_BYTES, MAX_YAML_DEPTH, MAX_YAML_NODES  # noqa: E402
from forgetui.engine.start.samples import init_sample  # noqa: E402

BUDGET = MAX_YAML_BYTES - 64 * 1024  # leave room for the rest of the file
NODES = MAX_YAML_NODES - 1_000  # the rest of state.yaml holds a few hundred values


def _nested(depth: int) -> object:
    value: object = "x"
    for _ in range(depth):
        value = [value]
    return value


def huge_string(state: dict) -> dict:
    state["scratchpad"] = ["y" * BUDGET]
    return state


def many_items(state: dict) -> dict:
    state["scratchpad"] = [f"n{i}" for i in range(NODES)]
    return state


def many_keys(state: dict) -> dict:
    state["last_result"] = {f"k{i}": i for i in range(NODES // 2)}
    return state


def deepest(state: dict) -> dict:
    # nesting just under the limit, repeated up to the value limit
    depth = MAX_YAML_DEPTH - 8
    state["last_result"] = {"deep": [_nested(depth) for _ in range(NODES // (depth + 1))]}
    return state


def over_the_limit(state: dict) -> dict:
    state["scratchpad"] = ["x"] * (MAX_YAML_NODES * 20)
    return state


SHAPES: dict[str, Callable[[dict], dict]] = {
    "one 16 MB string": huge_string,
    f"{NODES:,} short list items": many_items,
    f"{NODES // 2:,} mapping keys": many_keys,
    f"depth {MAX_YAML_DEPTH - 8} nesting, repeated": deepest,
    f"{MAX_YAML_NODES * 20:,} list items (refused)": over_the_limit,
}


def timed(args: list[str]) -> tuple[float, int, float]:
    """(seconds, exit code, peak RSS MB) of `forgetui ARGS` in a fresh process."""
    started = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        os.execv(sys.executable, [sys.executable, "-m", "forgetui", *args])
    _, status, usage = os.wait4(pid, 0)
    return time.perf_counter() - started, os.waitstatus_to_exitcode(status), usage.ru_maxrss / 1024


def main() -> int:
    lines = [
        __doc__.splitlines()[0],
        f"{time.strftime('%Y-%m-%d %H:%M %Z')}; {platform.platform()}, {os.cpu_count()} CPUs; "
        f"Python {platform.python_version()}; limits: {MAX_YAML_BYTES // (1024 * 1024)} MiB, "
        f"depth {MAX_YAML_DEPTH}, {MAX_YAML_NODES:,} values",
        "",
    ]
    base_s, _, base_rss = timed(["--help"])
    lines.append(f"baseline (forgetui --help): {base_s:.2f} s, {base_rss:.0f} MB")
    with tempfile.TemporaryDirectory(prefix="forgetui-hostile-") as scratch:
        for name, shape in SHAPES.items():
            task = init_sample("hello_world", into=Path(scratch) / name.replace(" ", "_")).path
            state = yaml.safe_load((task / "state.yaml").read_text())
            text = yaml.safe_dump(shape(state), width=100)
            (task / "state.yaml").write_text(text)
            size = len(text.encode()) / (1024 * 1024)
            for command in ("status", "context"):
                seconds, code, rss = timed([command, str(task)])
                lines.append(
                    f"state.yaml {name} ({size:.1f} MiB): {command} {seconds:.2f} s, "
                    f"peak {rss:.0f} MB, exit {code}"
                )
                print(lines[-1], flush=True)
    RESULTS.write_text("\n".join(lines) + "\n")
    print(f"wrote {RESULTS.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))  # a blow-up fails, not the box
    sys.exit(main())
