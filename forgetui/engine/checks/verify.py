"""Verification: run a task's checks against the workspace and say what
passes, what changed and at which step, and what regressed."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from forgetui.engine.base.clock import now_iso
from forgetui.engine.base.errors import ForgeError
from forgetui.engine.base.timed_regex import InvalidPattern, PatternTooSlow, TimedPattern
from forgetui.engine.folder.task_spec import Check, TaskSpec
from forgetui.engine.folder.task_state import CheckResult, Verification
from forgetui.engine.sandbox import (
    DEFAULT_OUTPUT_CAP,
    CommandResult,
    CommandSetup,
    ProjectEnvironment,
    SandboxError,
    cap_text,
    redact,
    redaction_note,
    run_in,
    secrets_of,
    workspace_relative,
)
from forgetui.engine.sandbox.editable import IMPORT_FAILURE, outside_editable_lines
from forgetui.engine.workspace.files import (
    Skipped,
    read_bytes,
    skip_reason,
    skipped_note,
    workspace_glob,
)

DETAILS_CAP = 600
MAX_OFFENDERS = 5
_SUMMARY_COUNT = re.compile(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed|deselected)\b")
_SUMMARY_LINE = re.compile(r"(\d+ (passed|failed|errors?|skipped)|no tests ran)\b.* in [\d.]+s\b")
# pytest's wall time ("in 0.52s", "in 65.10s (0:01:05)"): it differs at every run and tells the
# agent nothing it can act on, so identical results would read as changed and cost tokens.
_DURATION = re.compile(r"\s+in [\d.]+s\b(\s*\(\d+:\d+:\d+\))?")

# name -> the full output of each check that ran; the task folder keeps it as an artifact
KeepOutputs = Callable[[dict[str, str]], None]


class UnknownCheckError(ForgeError):
    title = "no such check"


@dataclass(frozen=True)
class PytestSummary:
    line: str  # the summary as pytest printed it, without the ==== rule
    passed: int
    failed: int
    errors: int

    @property
    def total(self) -> int:
        """Tests that ran to a verdict; skipped, xfailed and deselected ones are not counted."""
        return self.passed + self.failed + self.errors


def pytest_summary(output: str) -> PytestSummary | None:
    """The last pytest summary line in `output` ("2 failed, 5 passed in 0.12s"), parsed; its
    `line` without the wall time ("2 failed, 5 passed")."""
    for raw in reversed(output.splitlines()):
        line = raw.strip().strip("=").strip()
        if not _SUMMARY_LINE.search(line):
            continue
        counts: dict[str, int] = {}
        for number, word in _SUMMARY_COUNT.findall(line):
            key = "errors" if word.startswith("error") else word
            counts[key] = counts.get(key, 0) + int(number)
        return PytestSummary(
            line=_DURATION.sub("", line, count=1),
            passed=counts.get("passed", 0),
            failed=counts.get("failed", 0),
            errors=counts.get("errors", 0),
        )
    return None


def describe_command(result: CommandResult, name: str) -> str:
    """One line: "pytest exited 1: 2 failed, 5 passed", or the last output line."""
    if result.timed_out:
        return f"{name} timed out"
    if result.stopped:
        return f"{name} exited {result.exit_code}, {result.stopped}"
    summary = pytest_summary(result.output)
    last = summary.line if summary else _last_line(result.output)
    head = f"{name} exited {result.exit_code}"
    return f"{head}: {last}" if last else head


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return cap_text(lines[-1], 200) if lines else ""


@dataclass(frozen=True)
class Evaluation:
    """One check's verdict, before it is dated against the previous verification."""

    passing: bool
    details: str
    passed: int | None = None
    total: int | None = None
    output: str | None = None  # in full (a command's as the sandbox capped it); else details


def evaluate_command(
    check: Check,
    spec: TaskSpec,
    workspace: Path,
    timeout_s: float | None = None,
    setup: CommandSetup | None = None,
) -> Evaluation:
    assert check.cmd is not None
    limit = timeout_s if timeout_s is not None else check.timeout_s
    try:
        setup = setup or CommandSetup.for_task(spec, workspace)
        result = run_in(setup, check.cmd, timeout_s=limit)
    except SandboxError as exc:
        return Evaluation(False, f"refused: {exc}")
    summary = pytest_summary(result.output)
    if result.timed_out:
        details = f"timed out after {limit:g}s"
    elif result.stopped:
        details = f"exit {result.exit_code}, {result.stopped}"
    elif summary:
        details = f"exit {result.exit_code}: {summary.line}"
    else:
        tail = "\n".join(result.output.rstrip().splitlines()[-5:])
        tail = _relative(tail, workspace, setup.environment.python)
        details = f"exit {result.exit_code}" + (f"\n{tail}" if tail else "")
    if result.redacted:
        details += f" ({redaction_note(result.redacted)})"
    passing = result.exit_code == 0
    hint = "" if passing else _import_hint(result.output, workspace, setup.environment)
    details = cap_text(details, max(DETAILS_CAP - len(hint), DETAILS_CAP // 2)) + hint
    return Evaluation(
        passing=passing,
        details=details,
        passed=summary.passed if summary else None,
        total=summary.total if summary else None,
        output=result.output,
    )


def _import_hint(output: str, workspace: Path, environment: ProjectEnvironment) -> str:
    """Why the project may not import, when the output says an import failed and the
    environment's editable install still names another checkout: otherwise nothing says so."""
    if not IMPORT_FAILURE.search(output):
        return ""
    lines = outside_editable_lines(workspace, environment)
    if not lines:
        return ""
    more = f" (and {len(lines) - 1} more)" if len(lines) > 1 else ""
    return f"\nhint: {lines[0]}{more}"


def _relative(text: str, workspace: Path, python: Path) -> str:
    """`text` with the workspace's own path cut from the paths in it and the interpreter named
    `python`, as the agent calls it (`/home/me/.venv/bin/python: can't open file 'x.py'`): the
    context names files relative to the workspace, and the same failure reads the same wherever
    the checkout and its environment are."""
    text = text.replace(f"{python}: ", "python: ")
    for root in dict.fromkeys((str(workspace.resolve()), str(workspace.absolute()))):
        text = text.replace(root + os.sep, "")
    return text


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _line_text(text: str, offset: int) -> str:
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    return text[start : end if end != -1 else len(text)].strip()[:120]


def _texts_of(pattern: str, workspace: Path) -> tuple[dict[str, str], str]:
    """The text of every file the check's glob matches, and a note on those it could not read."""
    skipped: list[Skipped] = []
    texts: dict[str, str] = {}
    for path in workspace_glob(workspace, pattern, skipped):
        rel = workspace_relative(workspace, path)
        try:
            texts[rel] = read_bytes(workspace.resolve(), path).decode("utf-8", errors="replace")
        except OSError as exc:  # unreadable, or gone since the glob
            skipped.append(Skipped(rel, skip_reason(exc)))
    return texts, skipped_note(skipped)


def evaluate_regex(check: Check, workspace: Path) -> Evaluation:
    assert check.path is not None
    try:
        must = TimedPattern(check.must_match, multiline=True) if check.must_match else None
        must_not = (
            TimedPattern(check.must_not_match, multiline=True) if check.must_not_match else None
        )
    except InvalidPattern as exc:
        return Evaluation(False, f"invalid regex: {exc}")
    texts, note = _texts_of(check.path, workspace)
    if not texts:
        return Evaluation(False, f"no files match {check.path}" + (f"; {note}" if note else ""))
    problems: list[str] = []
    notes: list[str] = []
    in_full: list[str] = []  # the problems again, every offender listed: the full output
    try:  # a pattern that backtracks for ever fails the check instead of hanging it
        if must is not None:
            hit = next(
                ((rel, m) for rel, text in texts.items() if (m := must.search(text, rel))), None
            )
            if hit is None:
                problems.append(
                    f"/{must.pattern}/ matches none of {len(texts)} file(s) in {check.path}"
                )
            else:
                rel, match = hit
                line = _line_of(texts[rel], match.start())
                notes.append(f"/{must.pattern}/ found at {rel}:{line}")
        if must_not is not None:
            offenders = [
                f"{rel}:{_line_of(text, m.start())}: {_line_text(text, m.start())}"
                for rel, text in texts.items()
                for m in must_not.finditer(text, rel)
            ]
            if offenders:
                shown = offenders[:MAX_OFFENDERS]
                if len(offenders) > MAX_OFFENDERS:
                    shown.append(f"... and {len(offenders) - MAX_OFFENDERS} more")
                found = f"/{must_not.pattern}/ must not match, found:\n"
                problems.append(found + "\n".join(shown))
                in_full = [*problems[:-1], found + "\n".join(offenders)]
            else:
                notes.append(f"/{must_not.pattern}/ absent from {len(texts)} file(s)")
    except PatternTooSlow as exc:
        return Evaluation(False, str(exc))
    details = "\n".join(problems) if problems else "; ".join(notes)
    full = "\n".join(in_full) if in_full else "\n".join(problems + notes)
    if note:
        details += ("\n" if "\n" in details else "; ") + note
        full += "\n" + note
    return Evaluation(
        not problems, cap_text(details, DETAILS_CAP), output=cap_text(full, DEFAULT_OUTPUT_CAP)
    )


def evaluate_file_exists(check: Check, workspace: Path) -> Evaluation:
    assert check.path is not None
    skipped: list[Skipped] = []
    files = workspace_glob(workspace, check.path, skipped)
    note = f"; {skipped_note(skipped)}" if skipped else ""
    if files:
        every = [workspace_relative(workspace, path) for path in files]
        more = f" and {len(files) - 3} more" if len(files) > 3 else ""
        listing = cap_text("\n".join([*every, skipped_note(skipped)]).strip(), DEFAULT_OUTPUT_CAP)
        details = cap_text(f"{', '.join(every[:3])}{more} exists{note}", DETAILS_CAP)
        return Evaluation(True, details, output=listing)
    return Evaluation(False, cap_text(f"{check.path} does not exist{note}", DETAILS_CAP))


def evaluate(
    check: Check,
    spec: TaskSpec,
    workspace: Path,
    timeout_s: float | None = None,
    setup: CommandSetup | None = None,
) -> Evaluation:
    if check.kind == "command":  # the sandbox redacted it
        return evaluate_command(check, spec, workspace, timeout_s, setup)
    if check.kind == "regex":
        return _redacted(evaluate_regex(check, workspace))
    return _redacted(evaluate_file_exists(check, workspace))


def _redacted(found: Evaluation) -> Evaluation:
    """A regex check quotes the lines it matched, and a workspace file may hold a key the
    agent wrote there: state.yaml and the next context get it with the values cut."""
    secrets = secrets_of(os.environ)
    details, names = redact(found.details, secrets)
    output, more = redact(found.output, secrets) if found.output else (found.output, [])
    cut = sorted({*names, *more})
    if not cut:
        return found
    return replace(found, details=f"{details} ({redaction_note(cut)})", output=output)


def run_checks(
    spec: TaskSpec,
    workspace: Path,
    previous: Verification,
    step: int,
    only: str | None = None,
    timeout_s: float | None = None,
    keep_outputs: KeepOutputs | None = None,
) -> Verification:
    """Run the task's checks (or only one; the others keep their previous results) and date
    each change: `changed_at_step` moves only when a check's passing flips. state.yaml keeps a
    summary of each; `keep_outputs` is given their full outputs, for the operator."""
    names = [check.name for check in spec.checks]
    if only is not None and only not in names:
        known = ", ".join(names) or "none"
        raise UnknownCheckError(f"no check named {only!r} (checks: {known})")
    results: dict[str, CheckResult] = {}
    regressions: list[str] = []
    outputs: dict[str, str] = {}
    setup = CommandSetup.for_task(spec, workspace)  # one environment for every check
    for check in spec.checks:
        before = previous.checks.get(check.name)
        if only is not None and check.name != only:
            if before is not None:
                results[check.name] = before
            continue
        verdict = evaluate(check, spec, workspace, timeout_s, setup)
        outputs[check.name] = verdict.output if verdict.output is not None else verdict.details
        flipped = before is None or before.passing != verdict.passing
        results[check.name] = CheckResult(
            passing=verdict.passing,
            details=verdict.details,
            passed=verdict.passed,
            total=verdict.total,
            changed_at_step=before.changed_at_step if before and not flipped else step,
        )
        if before is not None and before.passing and not verdict.passing:
            regressions.append(f"{check.name} regressed at step {step}")
    if keep_outputs is not None and outputs:
        keep_outputs(outputs)
    ready = bool(spec.checks) and all(
        (result := results.get(name)) is not None and result.passing for name in names
    )
    return Verification(
        checked_at=now_iso(),
        step=step,
        checks=results,
        ready_for_completion=ready,
        regressions=regressions,
    )
