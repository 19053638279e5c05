"""The workbench's figures (README.md, Performance), measured on the real app in a real terminal.

Each run starts `forgetui` in a child process on a pseudo-terminal of 160x48, the way a user
does. The child is the real CLI with one probe added: after every frame the app writes to the
terminal it notes the time (CLOCK_MONOTONIC, shared by both processes) and what changed (first
frame, action log cursor, action log row count). This process types keys into the terminal,
appends to the task's log as another process would, and reads the child's RSS from /proc.

- cold start, side by side with a bare Textual app (Header, one Static, Footer) started the
  same way in the same run, the two alternating: spawn to the first frame, to the frame showing
  the task (its header, frame and log), and to the complete view (the context counted); tiktoken
  and litellm must not be imported at the first frame. Also `forgetui` on a fresh sample copy,
  whose checks run once before the workbench starts.
- key press to repaint: an arrow key written to the terminal until the frame showing the moved
  cursor is written, idle and while the long_run sample steps back to back; the latter also at
  Textual's default frame rate (the workbench sets its own), the two alternating
- a new action visible: a record appended to actions.yaml (by this process, holding the task
  lock like a headless run) until the frame showing it
- in step with the run: while long_run steps back to back in the workbench, each record's
  arrival in actions.yaml (polled every millisecond) until the frame whose action log holds it,
  and how many records the screen was behind the file at each frame
- memory: the child's RSS on a 10,000-record task minus on a 100-record task

forgetui's bytecode is compiled first, as an installed copy's is (`compiled`): with
PYTHONDONTWRITEBYTECODE set, every start would otherwise compile again each module edited since.

Prints a table and writes it to bench/results/tui.txt, with the machine's load (uptime) before
and after. `--quick` runs fewer repetitions and `--only` some parts, for iterating; neither
writes the results file."""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import platform
import pty
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).parent))

from bench_status import build_log

from forgetui.engine.base.clock import now_iso
from forgetui.engine.base.yamlio import atomic_write_text, dump_model
from forgetui.engine.folder.records import OperatorRecord
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.start.samples import init_sample
from forgetui.paths import data_dir
from forgetui.tui.launch import FRAME_RATE

RESULTS = Path(__file__).parent / "results" / "tui.txt"
COLS, ROWS = 160, 48
UP, DOWN, HOME = b"\x1b[A", b"\x1b[B", b"\x1b[H"
COLD_RUNS = 5
RUNNING_ROUNDS = 2  # sessions of keys while running, each at both frame rates
TEXTUAL_DEFAULT_FPS = 60
KEYS = 60
APPENDS = 30
LAG_SECONDS = 6.0
PARTS = ("cold", "idle", "in_flight", "running", "lag", "visible", "memory")
QUICK = {"COLD_RUNS": 3, "KEYS": 20, "APPENDS": 10, "LAG_SECONDS": 5.0, "RUNNING_ROUNDS": 1}

# The child: the real CLI, plus a probe on App._display (called once per frame written).
CHILD = r"""
import json, os, sys, time
events = open(os.environ["BENCH_EVENTS"], "a", buffering=1)

def emit(**data):
    data["t"] = time.perf_counter()
    events.write(json.dumps(data) + "\n")

from forgetui.tui.early_start import start_early

start_early(sys.argv[1:])  # first, as the `forgetui` command's entry does
from forgetui.tui import launch

# The probe goes on when the launcher builds the app: importing the app here, first, would
# import Textual before the launcher starts what it starts before Textual.
real_make_app = launch.make_app

def make_app(*args, **kwargs):
    global ForgeApp, LogView, real_display
    from forgetui.tui.app import ForgeApp
    from forgetui.tui.panes.action_log import LogView

    if ForgeApp._display is not display:
        real_display = ForgeApp._display
        ForgeApp._display = display
    return real_make_app(*args, **kwargs)

launch.make_app = make_app
seen = {"first": True, "cursor": None, "count": None, "frame": False, "snapshot": False}

def display(self, screen, renderable):
    real_display(self, screen, renderable)
    if renderable is None or self._batch_count:  # a frame held back is not written
        return
    if seen["first"]:
        seen["first"] = False
        emit(event="first_paint", litellm="litellm" in sys.modules,
             tiktoken="tiktoken" in sys.modules)
    try:
        view = self.workbench.query_one(LogView)
    except Exception:
        return
    snapshot = self.workbench.snapshot
    if not seen["frame"] and snapshot is not None:
        seen["frame"] = True
        emit(event="frame")
    if not seen["snapshot"] and snapshot is not None and not getattr(snapshot, "loading", False):
        seen["snapshot"] = True
        emit(event="ready")
    if view.cursor != seen["cursor"]:
        seen["cursor"] = view.cursor
        emit(event="cursor", cursor=view.cursor)
    if view.records != seen["count"]:  # records in the log (the view's rows fold steps)
        seen["count"] = view.records
        emit(event="count", count=view.records)

from forgetui.cli import main
sys.exit(main(sys.argv[1:]))
"""

# The yardstick: a bare Textual app (Header, one Static, Footer), probed the same way.
BARE = r"""
import json, os, sys, time
events = open(os.environ["BENCH_EVENTS"], "a", buffering=1)
from textual.app import App
from textual.widgets import Footer, Header, Static

class Bare(App):
    BINDINGS = [("q", "quit", "Quit")]

    def compose(self):
        yield Header()
        yield Static("a bare Textual app")
        yield Footer()

    def _display(self, screen, renderable):
        super()._display(screen, renderable)
        if renderable is not None and not getattr(self, "painted", False):
            self.painted = True
            events.write(json.dumps({"event": "first_paint", "t": time.perf_counter()}) + "\n")

Bare().run()
"""


STARTED: list[Child] = []  # stopped at the end, whatever failed: none is left running


def stop_all() -> None:
    """Kill every child still running (a part that failed midway left it), with its engine:
    a workbench whose terminal is gone is not told so (no SIGHUP in its own session) and
    Textual's input thread then spins on the closed terminal."""
    for child in STARTED:
        if child.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.proc.pid, signal.SIGKILL)
            child.proc.wait()


@dataclass
class Child:
    """`forgetui ARGS` on a pseudo-terminal, with the probe's events."""

    args: list[str]
    home: Path
    code: str = CHILD
    cwd: Path | None = None
    env: dict[str, str] = field(default_factory=dict)  # beyond this process's environment
    events_path: Path = field(init=False)
    spawned: float = field(init=False)
    proc: subprocess.Popen[bytes] = field(init=False)
    master: int = field(init=False)

    def start(self) -> Child:
        self.events_path = Path(tempfile.mktemp(suffix=".jsonl", dir=self.home))
        self.events_path.touch()
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
        env = {
            **os.environ, "TERM": "xterm-256color", "FORGETUI_HOME": str(self.home),
            "FORGETUI_CLOCK": "0", "BENCH_EVENTS": str(self.events_path),
            "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        }  # fmt: skip
        env.pop("FORGETUI_CONFIG", None)
        env.pop("TEXTUAL_FPS", None)  # the workbench's own frame rate, unless asked otherwise
        env.update(self.env)
        self.spawned = time.perf_counter()
        self.proc = subprocess.Popen(
            [sys.executable, "-c", self.code, *self.args],
            stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True, cwd=self.cwd,
        )  # fmt: skip
        os.close(slave)
        self.master = master
        STARTED.append(self)
        threading.Thread(target=self._drain, daemon=True).start()
        return self

    def _drain(self) -> None:
        """Read the terminal's output so the child never blocks writing it."""
        while True:
            try:
                if not os.read(self.master, 65536):
                    return
            except OSError:
                return

    def events(self) -> list[dict[str, Any]]:
        """The probe's events so far, reading only what was added since the last call: this is
        polled every few milliseconds, and parsing the whole file each time would take CPU
        from the app being measured (two cores)."""
        seen: list[dict[str, Any]] = self.__dict__.setdefault("_seen", [])
        with self.events_path.open("rb") as handle:
            handle.seek(self.__dict__.get("_read", 0))
            chunk = handle.read()
        complete = chunk.rfind(b"\n") + 1
        self.__dict__["_read"] = self.__dict__.get("_read", 0) + complete
        seen += [json.loads(line) for line in chunk[:complete].splitlines()]
        return seen

    def wait_for(self, check: Callable[[dict[str, Any]], bool], after: float = 0.0,
                 timeout: float = 30.0) -> dict[str, Any]:  # fmt: skip
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            for event in self.events():
                if float(event["t"]) >= after and check(event):
                    return event
            time.sleep(0.002)
        raise TimeoutError(f"no event in {timeout}s after {after}")

    def press(self, key: bytes) -> float:
        at = time.perf_counter()
        os.write(self.master, key)
        return at

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        raise RuntimeError("no VmRSS")

    def quit(self) -> None:
        try:
            os.write(self.master, b"q")
            self.proc.wait(timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        os.close(self.master)


def matching(kind: str, **fields: object) -> Callable[[dict[str, Any]], bool]:
    """A probe event of this kind with these field values."""

    def check(event: dict[str, Any]) -> bool:
        return event["event"] == kind and all(event.get(k) == v for k, v in fields.items())

    return check


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(ordered), p95


def task_with_records(root: Path, steps: int) -> Path:
    """The hello_world sample with `steps` steps in its log, and state.yaml at the last of
    them, as a run that far leaves it (every writer checks the two agree before it writes)."""
    folder = init_sample("hello_world", into=root / f"log{steps}")
    build_log(folder.path / "actions.yaml", steps)
    state = folder.load_state().model_copy(update={"step": steps})
    atomic_write_text(folder.path / "state.yaml", dump_model(state))
    return folder.path


@dataclass
class ColdStart:
    """Seconds from spawn, per run: each list in the order the runs were made."""

    bare: list[float] = field(default_factory=list)
    paint: list[float] = field(default_factory=list)
    frame: list[float] = field(default_factory=list)
    ready: list[float] = field(default_factory=list)
    sample_paint: list[float] = field(default_factory=list)
    sample_ready: list[float] = field(default_factory=list)
    heavy: set[str] = field(default_factory=set)  # imported at the first frame (should be none)


def _start_once(args: list[str], home: Path, cold: ColdStart, cwd: Path | None = None) -> None:
    child = Child(args, home, cwd=cwd).start()
    first = child.wait_for(lambda e: e["event"] == "first_paint")
    frame = child.wait_for(lambda e: e["event"] == "frame")
    full = child.wait_for(lambda e: e["event"] == "ready")
    child.quit()
    cold.heavy |= {name for name in ("litellm", "tiktoken") if first.get(name)}
    if cwd is not None:
        cold.sample_paint.append(float(first["t"]) - child.spawned)
        cold.sample_ready.append(float(full["t"]) - child.spawned)
        return
    cold.paint.append(float(first["t"]) - child.spawned)
    cold.frame.append(float(frame["t"]) - child.spawned)
    cold.ready.append(float(full["t"]) - child.spawned)


def cold_start(home: Path, task: Path) -> ColdStart:
    """The bare app and `forgetui open TASK` alternating (so the machine's load falls on both
    alike), then `forgetui` alone: a fresh hello_world copy, as a first-time user sees it."""
    cold = ColdStart()
    for _ in range(COLD_RUNS):
        bare = Child([], home, code=BARE).start()
        cold.bare.append(float(bare.wait_for(matching("first_paint"))["t"]) - bare.spawned)
        bare.quit()
        _start_once(["open", str(task)], home, cold)
    empty = home.parent / "not_a_workspace"  # `forgetui` here opens the sample, not a list
    empty.mkdir(exist_ok=True)
    for _ in range(max(1, COLD_RUNS // 2)):
        _start_once([], home, cold, cwd=empty)
    return cold


def key_latencies(child: Child, count: int) -> list[float]:
    """Arrow keys on the action log (focused at start), from its first row so new rows do not
    move the cursor; each until the frame showing the moved cursor."""
    at = child.press(HOME)
    child.wait_for(lambda e: e["event"] == "cursor" and e["cursor"] == 0, after=at)
    time.sleep(0.2)
    samples = []
    for index in range(count):
        key, expected = (DOWN, 1) if index % 2 == 0 else (UP, 0)
        at = child.press(key)
        event = child.wait_for(matching("cursor", cursor=expected), after=at)
        samples.append(float(event["t"]) - at)
        time.sleep(0.03)  # a person does not type faster than this
    return samples


def idle_keys(home: Path, task: Path) -> list[float]:
    child = Child(["open", str(task)], home).start()
    child.wait_for(lambda e: e["event"] == "ready")
    time.sleep(1.0)
    try:
        return key_latencies(child, KEYS)
    finally:
        child.quit()


def keys_during_a_step(home: Path, root: Path) -> list[float]:
    """One step in flight that waits (as a model call does): a command sleeping in the
    sandbox. The executor thread waits on it; the UI should not notice."""
    sample = root / "slow_step"
    shutil.copytree(data_dir("sample_tasks") / "hello_world", sample)
    sleep = ["python", "-c", "import time; time.sleep(20)"]
    script = [{"action": "list_dir", "args": {"path": "."}},
              {"action": "run_cmd", "args": {"cmd": sleep}}]  # fmt: skip
    (sample / "replay.yaml").write_text(yaml.safe_dump(script))
    child = Child(["open", str(sample)], home).start()
    child.wait_for(lambda e: e["event"] == "ready")
    time.sleep(0.5)
    at = child.press(b"s")
    child.wait_for(lambda e: e["event"] == "count" and e["count"] == 2, after=at)
    time.sleep(0.5)
    child.press(b"s")
    time.sleep(1.0)  # the command is running now
    try:
        return key_latencies(child, KEYS)
    finally:
        child.proc.kill()
        child.proc.wait()
        os.close(child.master)


def keys_while_running(home: Path, frame_rate: int | None = None) -> tuple[list[float], int]:
    """long_run stepping back to back (space), arrow keys meanwhile; at the workbench's own
    frame rate, or at `frame_rate` (Textual's TEXTUAL_FPS)."""
    env = {"TEXTUAL_FPS": str(frame_rate)} if frame_rate else {}
    child = Child(["open", "long_run"], home, env=env).start()
    child.wait_for(lambda e: e["event"] == "ready")
    time.sleep(0.5)
    child.press(b" ")
    child.wait_for(lambda e: e["event"] == "count" and int(e["count"]) >= 6)
    try:
        samples = key_latencies(child, KEYS)
        steps = max(int(e["count"]) for e in child.events() if e["event"] == "count")
        return samples, steps // 2
    finally:
        child.press(b" ")
        child.quit()


def record_times(log: Path, stop: threading.Event) -> list[tuple[float, int]]:
    """(time, records in the file) at each change, polled every millisecond (one record a
    line)."""
    seen: list[tuple[float, int]] = []
    offset = count = 0
    while not stop.is_set():
        size = log.stat().st_size if log.exists() else 0
        if size > offset:
            with log.open("rb") as handle:
                handle.seek(offset)
                chunk = handle.read(size - offset)
            complete = chunk.rfind(b"\n") + 1
            if complete:
                count += chunk[:complete].count(b"\n")
                offset += complete
                seen.append((time.perf_counter(), count))
        time.sleep(0.001)
    return seen


def lag_while_running(home: Path) -> tuple[list[float], int, int]:
    """long_run stepping back to back for a few seconds: per record, file to frame; and the
    most records the screen was behind the file at any moment."""
    child = Child(["open", "long_run"], home).start()
    child.wait_for(lambda e: e["event"] == "ready")
    time.sleep(0.5)
    logs = (home / "runs").glob("*/.agentforge/tasks/long_run/actions.yaml")
    log = max(logs, key=lambda path: path.stat().st_mtime)
    stop = threading.Event()
    seen: list[tuple[float, int]] = []
    poller = threading.Thread(target=lambda: seen.extend(record_times(log, stop)), daemon=True)
    poller.start()
    start = child.press(b" ")
    time.sleep(LAG_SECONDS)
    child.press(b" ")
    time.sleep(1.5)  # the step in flight lands and the screen catches up
    stop.set()
    poller.join()
    child.quit()
    frames = [(float(e["t"]), int(e["count"])) for e in child.events()
              if e["event"] == "count" and float(e["t"]) >= start]  # fmt: skip
    lags: list[float] = []
    shown_at = 0
    for at, count in seen:
        while shown_at < len(frames) and (frames[shown_at][0] < at or frames[shown_at][1] < count):
            shown_at += 1
        if shown_at < len(frames):
            lags.append(frames[shown_at][0] - at)
    behind, frame = 0, 0
    base = frames[0][1] if frames else 0
    for at, count in seen:  # just before the screen caught up with each new record
        while frame < len(frames) and frames[frame][0] <= at:
            frame += 1
        shown = frames[frame - 1][1] if frame else base
        behind = max(behind, count - shown)
    records = seen[-1][1] - seen[0][1] if seen else 0
    return lags, behind, records


def new_action_visible(home: Path, task: Path) -> list[float]:
    """Another process's records (this one, holding the lock) showing up in the workbench."""
    child = Child(["open", str(task)], home).start()
    child.wait_for(lambda e: e["event"] == "ready")
    time.sleep(1.0)
    folder = TaskFolder.open(task)
    folder.acquire("bench writer")
    samples = []
    try:
        time.sleep(0.5)  # the workbench notices the lock and goes read-only
        count = len(folder.log)
        for index in range(APPENDS):
            at = time.perf_counter()
            folder.log.append(OperatorRecord(step=0, at=now_iso(), op="note", text=f"n{index}"))
            count += 1
            event = child.wait_for(matching("count", count=count), after=at)
            samples.append(float(event["t"]) - at)
            time.sleep(0.1)
    finally:
        folder.release()
        child.quit()
    return samples


def memory(home: Path, small: Path, big: Path) -> tuple[float, float]:
    rss = []
    for task in (small, big):
        child = Child(["open", str(task)], home).start()
        child.wait_for(lambda e: e["event"] == "ready")
        time.sleep(2.0)
        rss.append(child.rss_mb())
        child.quit()
    return rss[0], rss[1]


def ms(value: float) -> str:
    return f"{value * 1000:.1f} ms"


def load() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


Row = tuple[str, str, str, str, str]


def seconds_row(name: str, samples: list[float], target: str = "") -> Row:
    p50, p95 = percentiles(samples)
    return (name, f"{p50:.3f} s", f"{p95:.3f} s", str(len(samples)), target)


def ms_row(name: str, samples: list[float], target: str = "") -> Row:
    if not samples:
        return (name, "-", "-", "0", f"{target} (nothing measured)".strip())
    p50, p95 = percentiles(samples)
    return (name, ms(p50), ms(p95), str(len(samples)), target)


def cold_rows(cold: ColdStart) -> list[Row]:
    bare = statistics.median(cold.bare)
    ratio = statistics.median(cold.ready) / bare
    frame_ratio = statistics.median(cold.frame) / bare
    return [
        seconds_row("a bare Textual app: first paint", cold.bare, "the yardstick"),
        seconds_row("`forgetui open TASK`: first paint", cold.paint),
        seconds_row(
            "  ... the task on screen (frame, log)",
            cold.frame,
            f"{frame_ratio:.1f}x the bare app (p50)",
        ),
        seconds_row(
            "  ... the complete view (context counted)",
            cold.ready,
            f"{ratio:.1f}x the bare app (p50); target <= 2x",
        ),
        seconds_row(
            "`forgetui` (a fresh sample copy): first paint",
            cold.sample_paint,
            "its checks run first",
        ),
        seconds_row("  ... the complete view", cold.sample_ready),
    ]


def compiled() -> None:
    """forgetui's bytecode up to date, as in an installed copy (pip compiles it; a first run
    writes it). With PYTHONDONTWRITEBYTECODE set, as on this machine, every module edited since
    its .pyc was written would be compiled again at each start measured: a tenth of a second or
    more that no user's start spends, and the bare app's never does (Textual's is installed)."""
    import compileall

    import forgetui

    compileall.compile_dir(Path(forgetui.__file__).parent, quiet=1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="The workbench's figures.")
    parser.add_argument("--quick", action="store_true", help="fewer repetitions, for iterating")
    parser.add_argument("--only", help=f"comma-separated parts: {','.join(PARTS)}")
    args = parser.parse_args(argv)
    parts = set(args.only.split(",")) if args.only else set(PARTS)
    unknown = parts - set(PARTS)
    if unknown:
        parser.error(f"--only: no part {', '.join(sorted(unknown))} (parts: {', '.join(PARTS)})")
    if args.quick:
        globals().update(QUICK)
    compiled()
    load_before = load()
    root = Path(tempfile.mkdtemp(prefix="forgetui-bench-tui-"))
    home = root / "home"
    home.mkdir()
    rows: list[Row] = []
    heavy: set[str] = set()
    steps_run = 0
    try:
        small = task_with_records(root, 50)
        if "cold" in parts:
            cold = cold_start(home, small)
            heavy = cold.heavy
            rows += cold_rows(cold)
        if "idle" in parts:
            rows.append(ms_row("key press to repaint, idle", idle_keys(home, small),
                               "p95 < 33 ms"))  # fmt: skip
        if "in_flight" in parts:
            rows.append(ms_row("key press to repaint, a step in flight",
                               keys_during_a_step(home, root), "p95 < 33 ms"))  # fmt: skip
        if "running" in parts:  # alternating with Textual's default frame rate, the yardstick
            running: list[float] = []
            default_rate: list[float] = []
            for _ in range(RUNNING_ROUNDS):
                samples, steps = keys_while_running(home)
                running += samples
                steps_run += steps
                default_rate += keys_while_running(home, TEXTUAL_DEFAULT_FPS)[0]
            rows.append(ms_row("  ... steps back to back (long_run replay)", running,
                               f"p95 < 33 ms; {FRAME_RATE} frames/s"))  # fmt: skip
            rows.append(ms_row("  ... the same at Textual's default frame rate", default_rate,
                               f"{TEXTUAL_DEFAULT_FPS} frames/s, alternating"))  # fmt: skip
        if "lag" in parts:
            lags, behind, lag_records = lag_while_running(home)
            rows.append(ms_row("a step's record to its row on screen, running", lags,
                               f"max {ms(max(lags, default=0))}; {lag_records} rec."))  # fmt: skip
            rows.append(("  ... most records the screen was behind", str(behind), "", "",
                         "at most 1"))  # fmt: skip
        if "visible" in parts:
            rows.append(ms_row("new action visible after it is written",
                               new_action_visible(home, small), "p95 < 150 ms"))  # fmt: skip
        if "memory" in parts:
            big = task_with_records(root, 5_000)
            rss_small, rss_big = memory(home, small, big)
            rows.append(("RSS, 100-record task", f"{rss_small:.1f} MB", "", "1", ""))
            rows.append(("RSS, 10,000-record task", f"{rss_big:.1f} MB", "", "1", ""))
            rows.append(("RSS growth 100 -> 10,000 records", f"{rss_big - rss_small:.1f} MB",
                         "", "", "< 20 MB"))  # fmt: skip
    finally:
        stop_all()
        shutil.rmtree(root, ignore_errors=True)

    imported = ", ".join(sorted(heavy)) or "neither"
    head = (
        f"bench_tui: the workbench in a {COLS}x{ROWS} pseudo-terminal; Python "
        f"{platform.python_version()}, {os.cpu_count()} CPUs; litellm or tiktoken imported at "
        f"the first paint: {imported}; {steps_run} long_run steps ran during the running keys"
        f"{'; --quick' if args.quick else ''}\n"
        f"load before: {load_before}\nload after:  {load()}"
    )
    lines = [head, "", f"{'figure':<48}{'p50':>10}{'p95':>10}{'n':>6}  target"]
    lines += [f"{a:<48}{b:>10}{c:>10}{d:>6}  {e}".rstrip() for a, b, c, d, e in rows]
    text = "\n".join(lines) + "\n"
    print(text)
    if parts == set(PARTS) and not args.quick:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(text)
    return 1 if heavy else 0


if __name__ == "__main__":
    raise SystemExit(main())
