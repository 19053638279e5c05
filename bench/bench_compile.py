"""Compiling the next context (target: p95 under 10 ms with 10,000 actions logged).

Builds a fix_violation task's inputs: a workspace with a 3,000-line target file, 10,000 result
records (the compiler gets only their tail, as the executor passes it), a full working memory
(a pinned file, test output, a tool result, notes), decisions, a plan, progress and a
scratchpad. Then times compile_context over 200 runs:

- cold: a distinct state every run (step number, a new scratchpad note, progress, the log's
  tail and the memory's newest result move on), as when the executor steps;
- warm: the same inputs every run, as when the TUI refreshes its preview;
- first compile in the process (file read and measured, encodings loaded);
- validate_context, the recount the executor does before sending.

It also checks the context's size stays flat from step 1 to step 10,000 and never passes the
maximum. Prints a table and writes it to bench/results/compile.txt."""

from __future__ import annotations

import gc
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from forgetui.engine.context import ContextInputs, compile_context, validate_context
from forgetui.engine.folder.memory import MemoryItem, WorkingMemory
from forgetui.engine.folder.records import ResultRecord
from forgetui.engine.folder.task_spec import Plan, PlanTask, Subtask, TaskSpec
from forgetui.engine.folder.task_state import (
    CheckResult,
    Decision,
    LoopGuardState,
    Probe,
    Progress,
    TaskState,
    Verification,
)

RECORDS = 10_000
RUNS = 200
TARGET = "cli/commands/spec.py"
RESULTS = Path(__file__).parent / "results" / "compile.txt"
WORDS = (
    "def",
    "return",
    "self",
    "value",
    "assert",
    "import",
    "click",
    "command",
    "help",
    "option",
    "error",
    "line",
    "context",
    "test",
)


def _sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words))


def _source(rng: random.Random, lines: int) -> str:
    out = ["import click", ""]
    while len(out) < lines:
        name = f"command_{len(out)}"
        out += [
            "@click.command()",
            f"@click.option('--{rng.choice(WORDS)}', default={rng.randint(0, 99)})",
            f"def {name}({rng.choice(WORDS)}):",
            f'    """{_sentence(rng, 8)}"""',
            f"    click.echo({rng.choice(WORDS)!r} * {rng.randint(1, 9)})",
            "",
        ]
    return "\n".join(out[:lines]) + "\n"


def _records(rng: random.Random) -> list[ResultRecord]:
    actions = ("read_file", "edit_file", "run_cmd", "run_check", "search", "note")
    records = []
    for step in range(1, RECORDS + 1):
        failed = rng.random() < 0.2
        records.append(
            ResultRecord(
                step=step,
                at="2025-01-01T00:00:00Z",
                action=rng.choice(actions),
                args={"path": TARGET, "old": _sentence(rng, 6), "new": _sentence(rng, 7)},
                result="failure" if failed else "success",
                summary=_sentence(rng, 14),
                error=("Traceback (most recent call last):\n" + _sentence(rng, 120))
                if failed
                else None,
                output=_sentence(rng, 80),
            )
        )
    return records


def _spec() -> TaskSpec:
    return TaskSpec(
        id="fix-help",
        goal="Give every click command in cli/commands a help text",
        task_type="fix_violation",
        success_criteria=["every @click.command has help=", "the CLI tests pass"],
        constraints=["do not change command behaviour", "keep help texts to one sentence"],
        violation=f"{TARGET}: 480 commands declared with @click.command() and no help",
        check_definition={
            "kind": "regex",
            "path": "cli/commands/*.py",
            "must_not_match": "@click.command\\(\\)\\s*\\ndef",
        },
        target_files=[TARGET, "cli/main.py"],
        checks=[
            {"name": "tests", "kind": "command", "cmd": ["pytest", "-q", "tests/test_cli.py"]},
            {
                "name": "help-param",
                "kind": "regex",
                "path": "cli/commands/*.py",
                "must_not_match": "@click.command\\(\\)\\s*\\ndef",
            },
        ],
    )


def _memory(rng: random.Random, step: int) -> WorkingMemory:
    """What the agent has loaded by `step`: nothing at first, a full buffer later."""
    items = [
        MemoryItem(
            type="loaded_context",
            key="full_file:cli/main.py",
            step=2,
            pinned=True,
            content=_source(random.Random(7), 200),
        ),
        MemoryItem(
            type="loaded_context",
            key="test_output",
            step=step - 2,
            expires_after_steps=3,
            content="FAILED tests/test_cli.py::test_help\n" + _sentence(rng, 300),
        ),
        MemoryItem(type="note", step=step - 5, content=_sentence(rng, 30)),
        MemoryItem(
            type="action_result",
            step=step - 1,
            content={
                "action": "edit_file",
                "result": "success",
                "summary": _sentence(rng, 12),
                "output": _sentence(rng, 60),
            },
        ),
        MemoryItem(type="decision", step=3, content="Use the docstring's first line."),
    ]
    return WorkingMemory(max_items=5, items=[item for item in items if (item.step or 0) < step])


def _state(rng: random.Random, step: int) -> TaskState:
    """The state at `step`, grown as a real run grows it: decisions (fixed once made),
    progress, scratchpad notes, the plan's advance."""
    fixed = random.Random(3)
    done = min(step // 400, 11)
    plan = Plan(
        goal="help everywhere",
        tasks=[
            PlanTask(
                title=f"file {t}",
                subtasks=[
                    Subtask(
                        title=f"command group {s}", status="done" if 4 * t + s < done else "pending"
                    )
                    for s in range(4)
                ],
            )
            for t in range(3)
        ],
    )
    decisions = [
        Decision(
            step=3 + 500 * i,
            question=_sentence(fixed, 20),
            answer=_sentence(fixed, 12),
            at="2025-01-01T00:00:00Z",
        )
        for i in range(5)
    ]
    return TaskState(
        task_id="fix-help",
        phase="fix_violation",
        step=step,
        decisions=[decision for decision in decisions if decision.step < step],
        progress=Progress(
            objective="add help to the remaining commands",
            completed=[f"step {i}: {_sentence(rng, 6)}" for i in range(min(step, 40))],
            pending=["run the CLI tests", "check cli/main.py"],
        ),
        scratchpad=[f"step {step - i}: {_sentence(rng, 10)}" for i in range(min(step // 3, 40))],
        plan=plan,
        loop_guard=LoopGuardState(blocked=['read_file{"path": "cli/commands/spec.py"}']),
        probe=Probe(files_written=[TARGET], last_errors=[_sentence(rng, 40)]),
        verification=Verification(
            checked_at="2025-01-01T00:00:00Z",
            step=step,
            checks={
                "tests": CheckResult(passing=False, passed=41, total=43, details="2 failed"),
                "help-param": CheckResult(passing=False, details="12 matches"),
            },
        ),
    )


def _time(calls: list[Callable[[], object]]) -> list[float]:
    samples = []
    gc.collect()
    for call in calls:
        start = time.perf_counter()
        call()
        samples.append(time.perf_counter() - start)
    return samples


def _fmt(seconds: float) -> str:
    return f"{seconds * 1e3:.2f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.0f} µs"


def main() -> None:
    rng = random.Random(20250101)
    root = Path(tempfile.mkdtemp(prefix="bench-compile-"))
    try:
        (root / TARGET).parent.mkdir(parents=True)
        (root / TARGET).write_text(_source(rng, 3000), "utf-8")
        (root / "cli" / "main.py").write_text(_source(rng, 40), "utf-8")
        records = _records(rng)
        spec = _spec()

        def inputs_at(step: int) -> ContextInputs:
            local = random.Random(step)
            return ContextInputs(
                spec=spec,
                state=_state(local, step),
                memory=_memory(local, step),
                recent=records[max(0, step - 3) : step],  # the log's tail, as the executor reads it
                workspace=root,
            )

        steps = [1 + (RECORDS - 1) * run // (RUNS - 1) for run in range(RUNS)]
        cold_inputs = [inputs_at(step) for step in steps]  # built before timing: state loading
        # is the task folder's figure, not the compiler's
        first = _time([lambda: compile_context(cold_inputs[0])])
        cold = _time([partial(compile_context, inputs) for inputs in cold_inputs])
        warm_inputs = inputs_at(RECORDS)
        warm = _time([lambda: compile_context(warm_inputs)] * RUNS)
        contexts = [compile_context(inputs) for inputs in cold_inputs]
        checked = _time(
            [partial(validate_context, c, i) for c, i in zip(contexts, cold_inputs, strict=True)]
        )

        problems = [
            p for c, i in zip(contexts, cold_inputs, strict=True) for p in validate_context(c, i)
        ]
        totals = [ctx.total_tokens for ctx in contexts]
        spread = (max(totals) - min(totals)) / min(totals)
        sections = contexts[-1].sections

        rows = [
            ("compile, cold (a new state every run)", cold, "p95 < 10 ms"),
            ("compile, warm (same inputs: the TUI preview)", warm, ""),
            ("compile, first in the process (file read + measured)", first, ""),
            ("validate_context (recount before sending)", checked, ""),
        ]
        lines = [
            f"bench_compile: {RECORDS:,} result records logged (the compiler gets the tail), "
            f"3,000-line target file, 5 memory items, 5 decisions; Python "
            f"{sys.version.split()[0]}",
            "",
            f"{'figure':<56} {'p50':>9} {'p95':>9} {'max':>9}  {'n':>4}  target",
        ]
        for name, samples, target in rows:
            ordered = sorted(samples)
            p50 = statistics.median(ordered)
            p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
            lines.append(
                f"{name:<56} {_fmt(p50):>9} {_fmt(p95):>9} {_fmt(ordered[-1]):>9}  "
                f"{len(samples):>4}  {target}".rstrip()
            )
        cold_p95 = sorted(cold)[round(0.95 * (len(cold) - 1))]
        lines += [
            "",
            f"context tokens, step 1: {totals[0]:,}; step {RECORDS:,}: {totals[-1]:,}; "
            f"min {min(totals):,}, max {max(totals):,} over {RUNS} steps "
            f"(spread {spread:.1%}, target within 10%)",
            f"largest context: {max(totals):,} tokens, maximum {spec.limits.max_tokens:,}; "
            f"validate_context problems: {len(problems)}",
            "sections at the last step: "
            + ", ".join(f"{s.name} {s.tokens}/{s.budget}" for s in sections),
            "",
            f"compile the next context, {RECORDS:,} actions logged: p95 {_fmt(cold_p95)}, "
            f"target < 10 ms: {'met' if cold_p95 < 0.010 else 'MISSED'}",
        ]
        report = "\n".join(lines) + "\n"
        print(report, end="")
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(report, "utf-8")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
