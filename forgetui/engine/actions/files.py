"""The file actions: read_file, list_dir, search, write_file, edit_file.

Paths go through the sandbox (`resolve_path`) before anything is touched; reads and walks go
through `forgetui.engine.workspace`, so a search sees the files the checks and the context see.
Every write is snapshotted before and after, which is what makes a step reviewable."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from forgetui.engine.actions.outcome import OUTPUT_CAP, ActionEnv, ActionOutcome, Failed
from forgetui.engine.compress import numbered_lines, omitted_marker
from forgetui.engine.sandbox import TASK_DIR_NAME, cap_text, resolve_path, workspace_relative
from forgetui.engine.workspace import is_text_file, line_count, read_text, walk_files

MAX_LIST_ENTRIES = 500
MAX_SEARCH_RESULTS = 100
MAX_SEARCH_FILE_BYTES = 1_000_000
MAX_SCANNED_FILES = 20_000


def cap_lines(lines: list[str], limit: int) -> str:
    """Whole lines up to about `limit` characters: the first and last ones, with the number of
    lines left out in between (the numbers on the kept lines stay true)."""
    text = "\n".join(lines)
    if len(text) <= limit:
        return text
    head: list[str] = []
    tail: list[str] = []
    used = 0
    for line in lines:
        if used + len(line) + 1 > limit // 2:
            break
        head.append(line)
        used += len(line) + 1
    for line in reversed(lines[len(head) :]):
        if used + len(line) + 1 > limit:
            break
        tail.append(line)
        used += len(line) + 1
    tail.reverse()
    omitted = len(lines) - len(head) - len(tail)
    return "\n".join([*head, omitted_marker(omitted), *tail])


def read_file(args: dict[str, Any], env: ActionEnv) -> ActionOutcome:
    path = resolve_path(env.workspace, args["path"])
    rel = workspace_relative(env.workspace, path)
    lines = read_text(path, rel).splitlines()
    if not lines:
        return ActionOutcome("success", f"read {rel} (empty)", output="")
    start: int = args.get("start_line", 1)
    if start > len(lines):
        raise Failed(f"start_line {start} is past the end of {rel} ({len(lines)} lines)")
    end = min(args.get("end_line", len(lines)), len(lines))
    output = cap_lines(numbered_lines(lines[start - 1 : end], start), OUTPUT_CAP)
    return ActionOutcome(
        "success", f"read {rel} lines {start}-{end} of {len(lines)}", output=output
    )


def list_dir(args: dict[str, Any], env: ActionEnv) -> ActionOutcome:
    path = resolve_path(env.workspace, args.get("path") or ".")
    rel = workspace_relative(env.workspace, path)
    if not path.exists():
        raise Failed(f"no such directory: {rel}")
    if not path.is_dir():
        raise Failed(f"{rel} is a file (use read_file)")
    names = sorted(
        entry.name + ("/" if entry.is_dir() else "")
        for entry in os.scandir(path)
        if entry.name != TASK_DIR_NAME
    )
    dirs = sum(name.endswith("/") for name in names)
    shown = names[:MAX_LIST_ENTRIES]
    if len(names) > MAX_LIST_ENTRIES:
        shown.append(f"... and {len(names) - MAX_LIST_ENTRIES} more")
    summary = f"listed {rel}: {dirs} dirs, {len(names) - dirs} files"
    return ActionOutcome("success", summary, output="\n".join(shown))


def search(args: dict[str, Any], env: ActionEnv) -> ActionOutcome:
    try:
        pattern = re.compile(args["pattern"])
    except re.error as exc:
        raise Failed(f"invalid regex {args['pattern']!r}: {exc}") from exc
    root = env.workspace.resolve()
    top = resolve_path(env.workspace, args.get("path") or ".")
    if not top.exists():
        raise Failed(f"no such path: {workspace_relative(env.workspace, top)}")
    candidates = [top] if top.is_file() else walk_files(top, root)
    hits: list[str] = []
    files_hit = 0
    for scanned, path in enumerate(candidates):
        if scanned >= MAX_SCANNED_FILES:
            break
        if not is_text_file(path, MAX_SEARCH_FILE_BYTES):
            continue
        text = path.read_text("utf-8", errors="replace")
        rel = workspace_relative(env.workspace, path)
        found = [
            f"{rel}:{number}: {line.strip()[:200]}"
            for number, line in enumerate(text.splitlines(), 1)
            if pattern.search(line)
        ]
        files_hit += bool(found)
        hits.extend(found)
    if not hits:
        return ActionOutcome("success", f"search /{pattern.pattern}/: no matches", output="")
    shown = hits[:MAX_SEARCH_RESULTS]
    if len(hits) > MAX_SEARCH_RESULTS:
        shown.append(f"... and {len(hits) - MAX_SEARCH_RESULTS} more matches")
    summary = f"search /{pattern.pattern}/: {len(hits)} matches in {files_hit} files"
    return ActionOutcome("success", summary, output=cap_text("\n".join(shown), OUTPUT_CAP))


def _write(env: ActionEnv, path: Path, before: str | None, after: str) -> list[str]:
    """Write `after` and snapshot both sides; returns the snapshot artifact paths."""
    rel = workspace_relative(env.workspace, path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(after, encoding="utf-8", newline="")
    return env.snapshot(rel, before, after)


def write_file(args: dict[str, Any], env: ActionEnv) -> ActionOutcome:
    path = resolve_path(env.workspace, args["path"], write=True)
    rel = workspace_relative(env.workspace, path)
    if path.is_dir():
        raise Failed(f"{rel} is a directory")
    content: str = args["content"]
    before = read_text(path, rel) if path.exists() else None
    if before == content:
        return ActionOutcome("success", f"{rel} unchanged (same content)")
    snapshots = _write(env, path, before, content)
    lines = line_count(content)
    created = ", new file" if before is None else ""
    return ActionOutcome(
        "success",
        f"wrote {rel} ({lines} line{'s' if lines != 1 else ''}{created})",
        files_changed=[rel],
        snapshots=snapshots,
        changed_workspace=True,
    )


def edit_file(args: dict[str, Any], env: ActionEnv) -> ActionOutcome:
    path = resolve_path(env.workspace, args["path"], write=True)
    rel = workspace_relative(env.workspace, path)
    before = read_text(path, rel)
    old: str = args["old"]
    new: str = args["new"]
    count = before.count(old)
    if count != 1:
        hint = "copy it exactly from read_file" if count == 0 else "include more surrounding lines"
        raise Failed(f"`old` occurs {count} times in {rel}; it must occur exactly once ({hint})")
    if old == new:
        raise Failed("`old` and `new` are the same: nothing to change")
    at = before.index(old)
    after = before[:at] + new + before[at + len(old) :]
    snapshots = _write(env, path, before, after)
    line = before.count("\n", 0, at) + 1
    summary = f"edited {rel} at line {line} (-{line_count(old)} +{line_count(new)} lines)"
    return ActionOutcome(
        "success", summary, files_changed=[rel], snapshots=snapshots, changed_workspace=True
    )
