"""SIGKILL a headless run at random moments, resume it until it finishes, and compare the result
with a clean run of the same script. bench/bench_crash.py runs it with 120 kills;
tests/engine/test_crash_resume.py with a few, so the suite keeps the proof.

It lives in tests/ and the bench imports it, not the other way round: the suite is what CI
runs, so it must not depend on a bench script, and the bench only adds the figures.

A kill between a command's side effect and its result record is answered by `--on-interrupt
rerun` by running the command again, so every run_cmd here writes a fixed content: running it
twice leaves the same bytes. An edit_file re-run after its edit landed is refused (`old` no
longer occurs) and leaves the file as it was; such steps are counted, not treated as faults.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from forgetui.engine.folder.records import IntentRecord, OperatorRecord, ResultRecord
from forgetui.engine.folder.task_folder import TaskFolder
from tests.engine.helpers import act, make_task

TASK_DIR = ".agentforge"
# What a write interrupted between its temporary file and its rename leaves behind.
TEMP_PATTERNS = ("*.tmp", ".lock.*", ".*.new")
# The kills aimed at a resumed run's startup rather than at its steps.
STARTUP_SHARE = 0.2


def crash_script(groups: int = 13) -> list[dict[str, Any]]:
    """5 steps a group (write, read, edit, command, note), a run_check every 4th group, then
    complete: 69 steps for 13 groups."""
    script: list[dict[str, Any]] = []
    for i in range(groups):
        path = f"src/m{i:02d}.txt"
        code = (
            "import pathlib; out = pathlib.Path('out'); out.mkdir(exist_ok=True); "
            f"(out / 'c{i:02d}.txt').write_text('command {i}\\n')"
        )
        script += [
            act("write_file", path=path, content=f"module {i}\nstatus: draft\n"),
            act("read_file", path=path),
            # `new` never contains `old`: an edit re-run after it landed is refused, not doubled
            act("edit_file", path=path, old="status: draft\n", new=f"status: final {i}\n"),
            act("run_cmd", cmd=["python", "-c", code]),  # fixed content: idempotent
            act("note", text=f"m{i:02d} done ({i + 1}/{groups})"),
        ]
        if i % 4 == 3:
            script.append(act("run_check"))
    script.append(act("complete", summary=f"{groups} modules final, {groups} command outputs"))
    return script


def make_crash_task(root: Path, groups: int = 13) -> TaskFolder:
    """The task in `root`/ws; its checks pass only once the last group has run."""
    last = groups - 1
    root.mkdir(parents=True, exist_ok=True)
    finals = (
        "import pathlib, sys; "
        f"sys.exit(0 if all('final' in pathlib.Path(f'src/m{{i:02d}}.txt').read_text() "
        f"for i in range({groups})) else 1)"
    )
    return make_task(
        root,
        crash_script(groups),
        goal="Write, edit and run a command for each module",
        checks=[
            {"name": "last-output", "kind": "file_exists", "path": f"out/c{last:02d}.txt"},
            {"name": "all-final", "kind": "command", "cmd": ["python", "-c", finals]},
        ],
        limits={"max_steps": 4 * groups * 6},
    )


def _env(home: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONUNBUFFERED": "1", "FORGETUI_HOME": str(home)}


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "forgetui", *args]


@dataclass
class Timing:
    """Of the clean run: when its first step was printed, and the mean step after it."""

    wall_s: float
    startup_s: float
    step_s: float


def reference_run(folder: TaskFolder, home: Path) -> Timing:
    """Run the task once, uninterrupted, timing the step lines as they are printed."""
    started = time.monotonic()
    proc = subprocess.Popen(
        _cli("run", str(folder.path), "--json"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(home),
    )
    assert proc.stdout is not None
    stamps = [time.monotonic() - started for line in proc.stdout if line.startswith('{"step"')]
    _out, err = proc.communicate(timeout=600)
    wall = time.monotonic() - started
    if proc.returncode != 0 or not stamps:
        raise RuntimeError(f"the clean run failed (exit {proc.returncode}): {err.strip()}")
    step = (stamps[-1] - stamps[0]) / max(1, len(stamps) - 1)
    return Timing(wall, max(0.05, stamps[0] - step), max(0.005, step))


@dataclass
class CrashReport:
    seed: int
    planned: int
    kills: int = 0  # processes SIGKILLed mid-run
    kills_before_a_step: int = 0  # of those, before the run printed its first step
    resumes: int = 0  # runs started after the first
    steps: int = 0
    expected_steps: int = 0
    wall_s: float = 0.0
    reference_s: float = 0.0
    reruns: int = 0  # interrupted steps re-run by `--on-interrupt rerun`
    refused_reruns: list[int] = field(default_factory=list)  # edits re-run after they landed
    torn_records: int = 0  # torn last lines moved to actions.yaml.torn
    violations: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        return [
            f"kills survived: {self.kills} of {self.planned} planned (seed {self.seed}); "
            f"{self.kills_before_a_step} before the killed run printed a step (in its startup, "
            f"lock, recovery or first step)",
            f"resumes: {self.resumes}",
            f"steps: {self.steps} (clean run: {self.expected_steps})",
            f"wall time: {self.wall_s:.1f} s with kills; clean run {self.reference_s:.1f} s",
            f"interrupted steps re-run (--on-interrupt rerun): {self.reruns}",
            f"steps re-run after a kill whose result differs from the clean run: "
            f"{len(self.refused_reruns)} (edit_file already applied, refused: "
            f"{', '.join(map(str, self.refused_reruns)) or 'none'})",
            f"torn last records moved aside on resume: {self.torn_records}",
            f"violations: {len(self.violations)}",
            *(f"  VIOLATION: {v}" for v in self.violations),
        ]


class _StepClock(threading.Thread):
    """Reads a run's JSON lines and notes when each step line arrived."""

    def __init__(self, proc: subprocess.Popen[str], started: float) -> None:
        super().__init__(daemon=True)
        self.proc = proc
        self.started = started
        self.stamps: list[float] = []

    def run(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.startswith('{"step"'):
                self.stamps.append(time.monotonic() - self.started)


def run_with_kills(
    folder: TaskFolder,
    home: Path,
    timing: Timing,
    kills: int,
    seed: int,
    total: int,
    progress: Callable[[str], None] | None = None,
) -> CrashReport:
    """Start `run --on-interrupt rerun`, SIGKILL it after a random delay, repeat until `kills`
    kills are spent, then let the last run finish.

    A fifth of the kills land in the startup (imports, lock, recovery, the re-run of the
    interrupted step); the rest a random number of steps past it, up to twice what keeps the
    run on schedule (k/kills of the way through by kill k), so kills land all along it (model
    call, action, recording) and are all spent before it ends. The startup is re-estimated
    from every run that printed a step."""
    rng = random.Random(seed)
    report = CrashReport(seed=seed, planned=kills)
    startup = timing.startup_s
    started = time.monotonic()
    errors = folder.workspace.parent / "run.stderr"
    runs = 0
    while runs < kills + 20:
        state = folder.load_state()
        if state.status == "complete":
            break
        left_kills = kills - report.kills
        delay: float | None = None
        if left_kills > 0 and rng.random() < STARTUP_SHARE:
            delay = rng.uniform(0.3, 1.0) * startup  # imports, lock, recovery, the re-run
        elif left_kills > 0:
            # steady progress: by kill k the run should be about k/kills of the way through
            due = 0.95 * total * (report.kills + 1) / kills - state.step
            delay = startup + rng.uniform(0, 2 * max(0.5, due)) * timing.step_s
        with errors.open("w") as stderr:
            launched = time.monotonic()
            proc = subprocess.Popen(
                _cli("run", str(folder.path), "--json", "--on-interrupt", "rerun"),
                stdout=subprocess.PIPE,
                stderr=stderr,
                text=True,
                env=_env(home),
            )
            clock = _StepClock(proc, launched)
            clock.start()
            runs += 1
            killed = False
            try:
                proc.wait(timeout=delay if delay is not None else 600)
            except subprocess.TimeoutExpired:
                proc.send_signal(signal.SIGKILL)
                killed = delay is not None
                proc.wait()
            clock.join(timeout=10)
        if clock.stamps:
            startup = 0.8 * startup + 0.2 * max(0.05, clock.stamps[0] - timing.step_s)
        if killed and proc.returncode == -signal.SIGKILL:
            report.kills += 1
            report.kills_before_a_step += not clock.stamps
            if progress is not None and report.kills % 10 == 0:
                progress(f"{report.kills} kills, at step {folder.load_state().step}/{total}")
        elif proc.returncode != 0:
            last = errors.read_text().strip().splitlines()[-1:] or ["no output"]
            report.violations.append(f"run {runs} exited {proc.returncode}: {last[0]}")
            break
    report.resumes = runs - 1
    report.wall_s = time.monotonic() - started
    return report


def _files(workspace: Path) -> dict[str, bytes]:
    """Every file under the workspace but the task folders, by relative path."""
    found: dict[str, bytes] = {}
    for path in sorted(workspace.rglob("*")):
        rel = path.relative_to(workspace)
        if rel.parts[0] == TASK_DIR or path.is_dir():
            continue
        found[rel.as_posix()] = path.read_bytes()
    return found


def check_run(folder: TaskFolder, reference: TaskFolder, home: Path, report: CrashReport) -> None:
    """Everything a crash must not break, as violations on the report."""
    bad = report.violations
    ref_results = {r.step: r for r in reference.log.iter_records() if isinstance(r, ResultRecord)}
    report.expected_steps = len(ref_results)
    expected = list(range(1, report.expected_steps + 1))

    # the log, as `forgetui log --json` shows it
    shown = subprocess.run(
        _cli("log", str(folder.path), "--json"),
        capture_output=True,
        text=True,
        env=_env(home),
        timeout=120,
    )
    if shown.returncode != 0:
        bad.append(f"`forgetui log --json` exited {shown.returncode}: {shown.stderr.strip()}")
    entries = [json.loads(line) for line in shown.stdout.splitlines() if line.strip()]
    steps = [e for e in entries if "operator" not in e]
    if [e["step"] for e in steps] != expected:
        bad.append(f"log --json steps are not 1..{len(expected)} once each: {_odd(steps)}")
    interrupted = [e["step"] for e in steps if e["result"] == "interrupted"]
    if interrupted:
        bad.append(f"log --json steps without a result: {interrupted}")

    # the records themselves: one intent and one result per step
    records = list(folder.log.iter_records())
    intents = Counter(r.step for r in records if isinstance(r, IntentRecord))
    results = Counter(r.step for r in records if isinstance(r, ResultRecord))
    for kind, counts in (("intent", intents), ("result", results)):
        wrong = {s: n for s, n in counts.items() if n != 1}
        if sorted(counts) != expected or wrong:
            missing = sorted(set(expected) - set(counts))
            bad.append(f"{kind} records: missing steps {missing}, repeated {wrong}")
    report.steps = max(results, default=0)
    report.reruns = sum(1 for r in records if isinstance(r, OperatorRecord) and r.op == "rerun")
    for record in records:
        if isinstance(record, ResultRecord) and record.step in ref_results:
            ref = ref_results[record.step]
            if (record.result, record.action) == (ref.result, ref.action):
                continue
            if record.action == "edit_file" and "occurs 0 times" in record.summary:
                report.refused_reruns.append(record.step)
            else:
                bad.append(
                    f"step {record.step} {record.action}: {record.result} ({record.summary}), "
                    f"clean run: {ref.result}"
                )

    # state.yaml and every state file load, in process and through the CLI
    status = subprocess.run(
        _cli("status", str(folder.path), "--json"),
        capture_output=True,
        text=True,
        env=_env(home),
        timeout=120,
    )
    if status.returncode != 0:
        bad.append(f"`forgetui status` exited {status.returncode}: {status.stderr.strip()}")
    try:
        opened = TaskFolder.open(folder.path)
        state = opened.load_state()
        opened.load_memory()
        if state.step != report.expected_steps or state.status != "complete":
            bad.append(f"state.yaml: step {state.step}, status {state.status}")
    except Exception as exc:
        bad.append(f"a state file does not load: {type(exc).__name__}: {exc}")

    # the workspace equals the clean run's, byte for byte
    got, want = _files(folder.workspace), _files(reference.workspace)
    for rel in sorted(set(got) | set(want)):
        if rel not in got:
            bad.append(f"workspace: {rel} missing (the clean run has it)")
        elif rel not in want:
            bad.append(f"workspace: {rel} is extra (the clean run has none)")
        elif got[rel] != want[rel]:
            bad.append(f"workspace: {rel} differs from the clean run's")

    # nothing left behind
    if (folder.path / "lock").exists():
        bad.append(f"{folder.path / 'lock'} left behind")
    left = {path for pattern in TEMP_PATTERNS for path in folder.workspace.rglob(pattern)}
    for path in sorted(left):
        bad.append(f"temporary file left: {path.relative_to(folder.workspace)}")
    torn = folder.path / "actions.yaml.torn"
    if torn.exists():
        report.torn_records = sum(
            1 for line in torn.read_bytes().splitlines() if line.startswith(b"# ")
        )


def _odd(steps: list[dict[str, Any]]) -> str:
    counts = Counter(e["step"] for e in steps)
    repeated = {s: n for s, n in counts.items() if n > 1}
    top = max(counts, default=0)
    missing = [s for s in range(1, top + 1) if s not in counts]
    return f"{len(steps)} entries, repeated {repeated}, missing {missing}"


def crash_and_check(
    root: Path,
    kills: int,
    seed: int,
    groups: int = 13,
    progress: Callable[[str], None] | None = None,
) -> CrashReport:
    """The whole harness: a clean reference run, the killed run, the comparison."""
    home = root / "home"
    reference = make_crash_task(root / "reference", groups)
    timing = reference_run(reference, home)
    if progress is not None:
        progress(
            f"clean run: {timing.wall_s:.1f} s, first step at {timing.startup_s:.2f} s, "
            f"{timing.step_s * 1000:.0f} ms a step"
        )
    folder = make_crash_task(root / "crashed", groups)
    report = run_with_kills(folder, home, timing, kills, seed, len(crash_script(groups)), progress)
    report.reference_s = timing.wall_s
    check_run(folder, reference, home, report)
    return report
