"""The file actions: read_file, list_dir, search, write_file, edit_file.

Reads are checked by the sandbox (`resolve_path`), then walked and opened through
`workspace.files`, so a search sees the files the checks and the context see, and never
through a link swapped in after the check. Writes go through `workspace.safe_write`, which never
follows a link either. Every write is snapshotted before and after, which is what makes
a step reviewable."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from forgetui.engine.actions.outcome import OUTPUT_CAP, ActionEnv, ActionOutcome, Failed
from forgetui.engine.base.compress import numbered_lines, omitted_marker
from forgetui.engine.base.timed_regex import InvalidPattern, PatternTooSlow, TimedPattern
from forgetui.engine.sandbox import TASK_DIR_NAME, cap_text, resolve_path, workspace_relative
from forgetui.engine.workspace.confined_open import open_read
from forgetui.engine.workspace.files import (
    MAX_TEXT_BYTES,
    FileProblem,
    Skipped,
    line_count,
    looks_binary,
    read_text,
    scanned_text,
    skip_reason,
    skipped_note,
    walk_files,
)
from forgetui.engine.workspace.safe_write import WriteTarget, open_write_target

MAX_LIST_ENTRIES = 500
MAX_SEARCH_RESULTS = 100
MAX_SEARCH_FILE_BYTES = 1_000_000
MAX_SCANNED_FILES = 20_000
SEARCH_BUDGET_S = 2.0  # matching time for one search, across all its files


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
    part = ""
    if "max_bytes" in args:
        limit = min(args["max_bytes"], MAX_TEXT_BYTES)
        text, part = _head_text(env.workspace.resolve(), path, rel, limit)
    else:
        try:
            text = read_text(env.workspace.resolve(), path, rel)
        except FileProblem as exc:
            if "too large" in str(exc):
                raise Failed(f"{exc}; read its start with max_bytes") from None
            raise
    lines = text.splitlines()
    if not lines:
        return ActionOutcome("success", f"read {rel} (empty{part})", output="")
    start: int = args.get("start_line", 1)
    if start > len(lines):
        raise Failed(f"start_line {start} is past the end of {rel}{part} ({len(lines)} lines)")
    end = min(args.get("end_line", len(lines)), len(lines))
    output = cap_lines(numbered_lines(lines[start - 1 : end], start), OUTPUT_CAP)
    return ActionOutcome(
        "success", f"read {rel} lines {start}-{end} of {len(lines)}{part}", output=output
    )


def _head_text(root: Path, path: Path, rel: str, limit: int) -> tuple[str, str]:
    """The first `limit` bytes of a file as text, cut after its last whole line when the file
    is longer, and what the summary says of the part read ("" for the whole file)."""
    try:
        fd = open_read(root, path)  # never through a swapped-in link; a FIFO cannot block
    except FileNotFoundError as exc:
        raise FileProblem(f"no such file: {rel}") from exc
    except IsADirectoryError as exc:
        raise FileProblem(f"{rel} is a directory (use list_dir)") from exc
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):  # before fdopen, which refuses a directory itself
        os.close(fd)
        kind = "a directory (use list_dir)" if stat.S_ISDIR(info.st_mode) else "not a file"
        raise FileProblem(f"{rel} is {kind}")
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(limit + 1)
    if looks_binary(data):
        raise FileProblem(f"{rel} is a binary file")
    if len(data) <= limit:
        return data.decode("utf-8", errors="replace"), ""
    data = data[:limit]
    whole = data.rfind(b"\n") + 1
    kept = data[:whole] if whole else data
    return (
        kept.decode("utf-8", errors="replace"),
        f" (the first {len(kept):,} of {info.st_size:,} bytes)",
    )


def _listed_name(
    entry: os.DirEntry[str], dir_fd: int, rel: str, skipped: list[Skipped]
) -> str | None:
    """How list_dir shows an entry ("name/" for a directory), or None for a symlink loop, a
    broken link or an unreadable entry (named in `skipped`)."""
    try:
        if entry.is_symlink():
            os.stat(entry.name, dir_fd=dir_fd)
        return entry.name + ("/" if entry.is_dir() else "")
    except OSError as exc:
        where = f"{rel}/{entry.name}".removeprefix("./")
        try:
            link: str | None = os.readlink(entry.name, dir_fd=dir_fd)
        except OSError:
            link = None
        skipped.append(Skipped(where, skip_reason(exc), link))
        return None


def list_dir(args: dict[str, Any], env: ActionEnv) -> ActionOutcome:
    path = resolve_path(env.workspace, args.get("path") or ".")
    rel = workspace_relative(env.workspace, path)
    try:
        fd = open_read(env.workspace.resolve(), path, directory=True)
    except FileNotFoundError:
        raise Failed(f"no such directory: {rel}") from None
    except NotADirectoryError:
        raise Failed(f"{rel} is a file (use read_file)") from None
    skipped: list[Skipped] = []
    try:
        with os.scandir(fd) as entries:  # looked at through `fd`, never by name again
            listed = [
                _listed_name(entry, fd, rel, skipped)
                for entry in entries
                if entry.name != TASK_DIR_NAME
            ]
    finally:
        os.close(fd)
    names = sorted(name for name in listed if name is not None)
    dirs = sum(name.endswith("/") for name in names)
    shown = names[:MAX_LIST_ENTRIES]
    if len(names) > MAX_LIST_ENTRIES:
        shown.append(f"... and {len(names) - MAX_LIST_ENTRIES} more")
    summary = f"listed {rel}: {dirs} dirs, {len(names) - dirs} files"
    if skipped:
        shown.append(skipped_note(skipped))
        summary += f"; {skipped_note(skipped)}"
    return ActionOutcome("success", summary, output="\n".join(shown))


def search(args: dict[str, Any], env: ActionEnv) -> ActionOutcome:
    try:
        pattern = TimedPattern(args["pattern"], budget_s=SEARCH_BUDGET_S)
    except InvalidPattern as exc:
        raise Failed(f"invalid regex {args['pattern']!r}: {exc}") from exc
    root = env.workspace.resolve()
    top = resolve_path(env.workspace, args.get("path") or ".")
    if not top.exists():
        raise Failed(f"no such path: {workspace_relative(env.workspace, top)}")
    if not (top.is_file() or top.is_dir()):
        raise Failed(f"{workspace_relative(env.workspace, top)} is not a file or a directory")
    skipped: list[Skipped] = []
    candidates = [top] if top.is_file() else walk_files(top, root, skipped)
    hits: list[str] = []
    files_hit = 0
    for scanned, path in enumerate(candidates):
        if scanned >= MAX_SCANNED_FILES:
            break
        rel = workspace_relative(env.workspace, path)
        text = scanned_text(root, path, rel, MAX_SEARCH_FILE_BYTES, skipped)
        if text is None:
            continue
        try:
            found = [
                f"{rel}:{number}: {line.strip()[:200]}"
                for number, line in enumerate(text.splitlines(), 1)
                if pattern.search(line, rel)
            ]
        except PatternTooSlow as exc:
            raise Failed(str(exc)) from exc
        files_hit += bool(found)
        hits.extend(found)
    note = skipped_note(skipped)
    if not hits:
        summary = f"search /{pattern.pattern}/: no matches" + (f"; {note}" if note else "")
        return ActionOutcome("success", summary, output=note)
    shown = hits[:MAX_SEARCH_RESULTS]
    if len(hits) > MAX_SEARCH_RESULTS:
        shown.append(f"... and {len(hits) - MAX_SEARCH_RESULTS} more matches")
    if note:
        shown.append(note)
    summary = f"search /{pattern.pattern}/: {len(hits)} matches in {files_hit} files"
    summary += f"; {note}" if note else ""
    return ActionOutcome("success", summary, output=cap_text("\n".join(shown), OUTPUT_CAP))


def _refuse_oversize(rel: str, text: str, env: ActionEnv) -> None:
    """A write that would leave more than the task's max_write_bytes in the file is refused
    before anything is written: the agent sees why and what to do instead."""
    cap = env.spec.limits.max_write_bytes
    if len(text) <= cap // 4:  # at most 4 bytes a character: no need to encode
        return
    size = len(text.encode("utf-8", errors="surrogatepass"))
    if size > cap:
        raise Failed(
            f"{rel} would be {size:,} bytes, over this task's write cap of {cap:,} bytes "
            "(limits.max_write_bytes in task.yaml); nothing was written. Write a smaller file, "
            "or generate a large one with a command (run_cmd)"
        )


def _read_limit(env: ActionEnv) -> int:
    """How large a file a write may replace: one it wrote itself, under the write cap, can be
    written again (its old content is snapshotted first)."""
    return max(MAX_TEXT_BYTES, env.spec.limits.max_write_bytes)


def _replace_snapshotted(
    target: WriteTarget, before: str | None, after: str, env: ActionEnv
) -> list[str]:
    """Snapshot first, then change: a crash between the two leaves snapshots that tell recovery
    the file may have changed and what it held; the other order would let it say "had not
    changed any file yet" over a file that had. A change that fails takes its snapshots back."""
    snapshots = env.snapshot(target.rel, before, after)
    try:
        target.replace(after)
    except BaseException:
        if env.discard_snapshots is not None:
            env.discard_snapshots(snapshots)
        raise
    return snapshots


def write_file(args: dict[str, Any], env: ActionEnv) -> ActionOutcome:
    content: str = args["content"]
    _refuse_oversize(args["path"], content, env)  # before a missing directory is made
    with open_write_target(env.workspace, args["path"], create_dirs=True) as target:
        rel = target.rel
        before = target.read_text(_read_limit(env))
        if before == content:
            return ActionOutcome("success", f"{rel} unchanged (same content)")
        snapshots = _replace_snapshotted(target, before, content, env)
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
    old: str = args["old"]
    new: str = args["new"]
    _refuse_oversize(args["path"], new, env)  # the file would hold at least `new`
    with open_write_target(env.workspace, args["path"], create_dirs=False) as target:
        rel = target.rel
        before = target.read_text(_read_limit(env))
        if before is None:
            raise Failed(f"no such file: {rel}")
        count = before.count(old)
        if count != 1:
            hint = (
                "copy it exactly from read_file" if count == 0 else "include more surrounding lines"
            )
            raise Failed(
                f"`old` occurs {count} times in {rel}; it must occur exactly once ({hint})"
            )
        if old == new:
            raise Failed("`old` and `new` are the same: nothing to change")
        at = before.index(old)
        after = before[:at] + new + before[at + len(old) :]
        _refuse_oversize(rel, after, env)
        snapshots = _replace_snapshotted(target, before, after, env)
    line = before.count("\n", 0, at) + 1
    removed, added = _lines_changed(before, after, at, len(old), len(new))
    summary = f"edited {rel} at line {line} (-{removed} +{added} lines)"
    return ActionOutcome(
        "success", summary, files_changed=[rel], snapshots=snapshots, changed_workspace=True
    )


def _lines_changed(before: str, after: str, at: int, old_len: int, new_len: int) -> tuple[int, int]:
    """The lines removed and added, as the file's diff counts them: text taken out of the
    middle of a line changes that line (-1 +1), it does not remove one. Compared are only the
    whole lines the edit touches, so a large file costs no more than a small one."""
    from forgetui.engine.base.text_diff import text_diff

    start = before.rfind("\n", 0, at) + 1  # the edited line's start, the same in both texts
    tail = before[at + old_len :]  # what follows the edit, the same in both texts
    ends_line = _at_line_start(before, at + old_len) and _at_line_start(after, at + new_len)
    rest = 0 if ends_line else tail.find("\n") + 1 or len(tail)  # to the end of that line
    was, now = before[start : at + old_len + rest], after[start : at + new_len + rest]
    diff = text_diff(was, now, "", "")
    return diff.removed, diff.added


def _at_line_start(text: str, pos: int) -> bool:
    return pos == 0 or text[pos - 1] == "\n"
