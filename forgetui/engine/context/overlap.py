"""What current_state leaves out because another part of the same context already says it.

A whole conversation grows by each answer and each tool output once; a compiled context must
not grow faster, or its early steps cost more than the conversation they replace. So each fact
is said in one place: a result the recent actions show keeps only what their line cannot hold
(its output); progress and the probe leave out the steps the recent actions show, the checks
verification_status lists and the missing files target_files marks; and a target file a
working-memory item shows whole, as it is now, is named there, not shown twice."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from forgetui.engine.base import compress as cz
from forgetui.engine.context.workspace_tree import SKIPPED
from forgetui.engine.folder.memory import MemoryItem
from forgetui.engine.folder.records import ResultRecord
from forgetui.engine.folder.task_state import Probe, Progress, TaskState

RECENT_SHOWN = 3  # the results recent_actions shows (its least compressed variant)
# a recent_actions line keeps a summary to this many characters, an error to ERROR_LIMIT
LINE_SUMMARY_CHARS = 300
_STEP_PREFIX = re.compile(r"(?:step )?(\d+): ")
_WROTE = re.compile(r"(\d+): (?:created|changed) (.+)")
_CHECK_PENDING = re.compile(r"make check '(.+)' pass")
_CHECK_PASSES = re.compile(r"\d+: check '(.+)' passes")


def recent_steps(recent: Sequence[ResultRecord]) -> frozenset[int]:
    """The steps whose results recent_actions shows, a line each."""
    results = [record for record in recent if getattr(record, "kind", "result") == "result"]
    return frozenset(record.step for record in results[-RECENT_SHOWN:])


def named_in(target: str, summary: str) -> bool:
    """Whether `summary` names `target` as a word of its own (a path, a command): the recent
    line then says it once."""
    cut = target.endswith("...")  # a target cut to its first characters
    end = "" if cut else r"(?:$|[\s:,;)])"
    word = re.escape(target.removesuffix("...") if cut else target)
    return re.search(rf"(?:^|\s){word}{end}", summary) is not None


def _step_of(text: str) -> int | None:
    found = _STEP_PREFIX.match(text)
    return int(found.group(1)) if found else None


def memory_content(
    item: MemoryItem, recent: Collection[int], covered: Collection[str] = ()
) -> Any | None:
    """An item's content as current_state shows it. An action result the recent actions show
    keeps only what its line leaves out (its output, a summary or error too long for the
    line); None when nothing is left: the line says it all. An older one says what was done
    on one line (`read_file -> success: read a.py lines 1-9 of 9`) above its output. A
    directory listing reads as one line of names, not a line per name, and none at all when
    the workspace tree shows every name (`covered`: the refs of such listings)."""
    content = item.content
    if item.type != "action_result" or not isinstance(content, dict):
        return content
    kept = {key: value for key, value in content.items() if key not in _LINE_KEYS}
    if item.ref in covered:
        kept.pop("output", None)
    if isinstance(kept.get("output"), str) and content.get("action") == "list_dir":
        kept["output"] = _one_line_listing(kept["output"])
    summary, error = content.get("summary"), content.get("error")
    if item.step not in recent:
        did = f"{content.get('action')} -> {content.get('result')}"
        line = {"summary": f"{did}: {summary}" if summary else did}
        return {**line, **kept, **({"error": error} if error else {})}
    if isinstance(summary, str) and len(summary) > LINE_SUMMARY_CHARS:
        kept["summary"] = summary
    if isinstance(error, str) and len(error) > cz.ERROR_LIMIT:
        kept["error"] = error
    return kept or None


def _one_line_listing(output: str) -> str:
    names = output.split("\n")
    if len(names) < 2 or any(", " in name or not name.strip() for name in names):
        return output
    return ", ".join(names)


_LINE_KEYS = ("action", "result", "summary", "error")


@dataclass(frozen=True)
class ProgressView:
    objective: str | None
    completed: list[str]
    completed_total: int
    pending: list[str]


def progress_view(
    progress: Progress,
    state: TaskState,
    goal: str,
    recent: Collection[int],
    plan_listed: bool,
) -> ProgressView:
    """Progress less what the rest of the context says: the objective when it is the goal
    (task_frame) or the plan marks it current; completed entries of the steps the recent
    actions show and checks verification_status shows passing; pending checks it shows
    failing, and pending subtasks when the whole plan is listed."""
    checks = state.verification.checks
    passing = {name for name, check in checks.items() if check.passing}
    failing = {name for name, check in checks.items() if not check.passing}

    def said(entry: str) -> bool:
        step = _step_of(entry)
        found = _CHECK_PASSES.fullmatch(entry)
        return (step is not None and step in recent) or bool(found and found.group(1) in passing)

    completed = [entry for entry in progress.completed if not said(entry)]
    total = max(
        0,
        max(progress.completed_count, len(progress.completed))
        - (len(progress.completed) - len(completed)),
    )
    subtasks = _subtask_titles(state) if plan_listed else set()
    pending = [
        entry
        for entry in progress.pending
        if not ((m := _CHECK_PENDING.fullmatch(entry)) and m.group(1) in failing)
        and entry not in subtasks
    ]
    plan_marks_it = plan_listed and (state.plan is not None and state.plan.current() is not None)
    objective = None if progress.objective == goal or plan_marks_it else progress.objective
    return ProgressView(objective or None, completed, total, pending)


def _subtask_titles(state: TaskState) -> set[str]:
    plan = state.plan
    if plan is None:
        return set()
    return {sub.title for task in plan.tasks for sub in task.subtasks}


@dataclass(frozen=True)
class ProbeView:
    files_written: list[str]
    files_missing: list[str]
    commands: list[str]
    last_errors: list[str]


def probe_view(
    probe: Probe,
    said: Collection[int],
    completed: Iterable[str],
    shown: Iterable[str],
    marked_missing: Collection[str],
) -> ProbeView:
    """The probe less what the rest says: files that a progress entry shown (`shown`) or of a
    step shown elsewhere (`said`; `completed` is every entry kept) names as written, missing
    files target_files marks missing, and the commands and errors of the steps shown
    elsewhere."""
    entries = [*(e for e in completed if _step_of(e) in said), *shown]
    written = {m.group(2) for entry in entries if (m := _WROTE.fullmatch(entry))}
    commands = [
        f"{run.cmd} -> {'no exit code' if run.exit_code is None else f'exit {run.exit_code}'}"
        f" (step {run.step})"
        for run in probe.recent_commands
        if run.step not in said
    ]
    return ProbeView(
        files_written=[path for path in probe.files_written if path not in written],
        files_missing=[path for path in probe.files_missing if path not in marked_missing],
        commands=commands,
        last_errors=[e for e in probe.last_errors if _step_of(e) not in said],
    )


def missing_targets(files: Iterable[Any]) -> set[str]:
    """The paths target_files marks `status: missing` (its items' attributes)."""
    marked: set[str] = set()
    for el in files:
        attrs: Mapping[str, Any] = dict(el.attrs)
        if attrs.get("status") == "missing" and isinstance(attrs.get("path"), str):
            marked.add(attrs["path"])
    return marked


def whole_reads(items: Sequence[MemoryItem]) -> dict[str, tuple[str, str, bool]]:
    """path -> (the ref of the newest unpinned-or-pinned memory item showing that file whole,
    the text it shows, whether that text is numbered): read_file outputs that read every line,
    and loaded full files. Whether it is the file as it is now is target_files' to compare."""
    found: dict[str, tuple[str, str, bool]] = {}
    for item in items:
        content = item.content
        if item.type == "action_result" and isinstance(content, dict):
            summary, output = content.get("summary"), content.get("output")
            if content.get("action") != "read_file" or not isinstance(output, str):
                continue
            whole = _WHOLE_READ.fullmatch(summary) if isinstance(summary, str) else None
            if whole and whole.group(2) == whole.group(3):
                found[whole.group(1)] = (item.ref, output, True)
        elif (item.key or "").startswith(FULL_FILE) and isinstance(content, str):
            found[(item.key or "").removeprefix(FULL_FILE)] = (item.ref, content, False)
    return found


FULL_FILE = "full_file:"
# read_file's summary of a whole read: "read PATH lines 1-N of N"
_WHOLE_READ = re.compile(r"read (.+) lines 1-(\d+) of (\d+)")


# list_dir's summary: "listed PATH: N dirs, M files"
_LISTED = re.compile(r"listed (.+): \d+ dirs, \d+ files")
_MORE = re.compile(r"\.\.\. (?:and \d+ more|more not read)")


def tree_overlap(
    lines: Sequence[str], items: Sequence[MemoryItem]
) -> tuple[set[str], dict[int, tuple[str, str]]]:
    """Where directory listings in memory and the workspace tree say the same: the refs of
    listings of the workspace's top whose every name the tree shows (their output can go), and
    tree lines (index -> (the listing's ref, the line naming it)) of a directory a listing in
    memory names every entry of, while the tree names only its first few."""
    tops: dict[str, tuple[int, list[str]]] = {}
    for index, line in enumerate(lines):
        name, _, inside = line.partition(" (")
        tops[name.rstrip("/@")] = (index, [c for c in inside.removesuffix(")").split(", ") if c])
    covered: set[str] = set()
    named: dict[int, tuple[str, str]] = {}
    for item in items:
        content = item.content
        if item.type != "action_result" or not isinstance(content, dict):
            continue
        listed = _LISTED.fullmatch(str(content.get("summary", "")))
        output = content.get("output")
        if content.get("action") != "list_dir" or not listed or not isinstance(output, str):
            continue
        names = [name for name in output.split("\n") if name.rstrip("/@") not in SKIPPED]
        where = listed.group(1).strip("/") or "."
        if where == ".":
            if {name.rstrip("/@") for name in names} <= tops.keys():
                covered.add(item.ref)
        elif where in tops:
            index, children = tops[where]
            shown = [child for child in children if not _MORE.fullmatch(child)]
            if not set(shown) <= set(names):
                continue
            if len(shown) == len(children) and set(names) <= set(shown):
                covered.add(item.ref)
            else:
                named[index] = (item.ref, f"{where}/ ({len(names)} entries: memory {item.ref})")
    return covered, named
