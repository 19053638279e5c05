"""The agent's actions (DESIGN.md section 6), executed in the sandboxed workspace.

`execute` never raises for anything the model can get wrong: bad arguments and failed reads are
a `failure` outcome, a path or command the sandbox refuses is `refused`, each with a one-line
summary for the log and the error for the next context. The control actions (complete,
escalate, mark_subtask_complete, set_plan) belong to the executor; only their arguments are
checked here (`validate_args`)."""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from forgetui.engine import verify
from forgetui.engine.catalog import ACTIONS
from forgetui.engine.errors import ForgeError
from forgetui.engine.memory import DEFAULT_EXPIRY_STEPS, LOAD_KINDS, MemoryItem
from forgetui.engine.records import ResultKind
from forgetui.engine.sandbox import (
    DEFAULT_OUTPUT_CAP,
    DEFAULT_TIMEOUT_S,
    TASK_DIR_NAME,
    SandboxError,
    cap_text,
    resolve_path,
    run_command,
    split_command,
    workspace_relative,
)
from forgetui.engine.state import CommandRun, Verification
from forgetui.engine.task import Plan, TaskSpec
from forgetui.engine.yamlio import dump_yaml

CONTROL_ACTIONS: tuple[str, ...] = ("complete", "escalate", "mark_subtask_complete", "set_plan")
OUTPUT_CAP = DEFAULT_OUTPUT_CAP  # characters of output kept for the log and the detail view
MAX_FILE_BYTES = 2_000_000  # larger files are not read whole
MAX_MEMORY_CHARS = 60_000  # a loaded_context item bigger than this would bloat the state files
MAX_LIST_ENTRIES = 500
MAX_SEARCH_RESULTS = 100
MAX_SEARCH_FILE_BYTES = 1_000_000
MAX_SCANNED_FILES = 20_000
SUMMARY_CHARS = 160
# Not searched nor scanned for imports, besides hidden directories (.git, .venv, .agentforge).
_SKIPPED_DIRS = frozenset(("__pycache__", "node_modules", "site-packages"))

Snapshot = Callable[[str, str | None, str | None], list[str]]


@dataclass
class ActionEnv:
    workspace: Path
    spec: TaskSpec
    step: int
    snapshot: Snapshot  # (rel_path, before, after) -> artifact paths; the store provides it
    last_error: str | None = None  # for load_context(error_details)
    verification: Verification | None = None  # the previous one, for run_check
    command_timeout_s: float = DEFAULT_TIMEOUT_S


@dataclass(frozen=True)
class ActionOutcome:
    result: ResultKind  # success | failure | refused
    summary: str  # one line for the log
    output: str | None = None
    error: str | None = None
    files_changed: list[str] = field(default_factory=list)
    snapshots: list[str] = field(default_factory=list)
    memory_item: MemoryItem | None = None
    note: str | None = None
    command: CommandRun | None = None
    changed_workspace: bool = False
    verification: Verification | None = None  # run_check: the new verification


class ActionArgsError(ForgeError):
    """Arguments that do not fit the action; recorded as a failed step, shown to the model."""

    title = "invalid action arguments"


class _Failed(ForgeError):
    """An action that ran and could not do what was asked (a missing file, no match)."""


def one_line(text: str, limit: int = SUMMARY_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


# ----------------------------------------------------------------------------- arguments


def _text(name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise ActionArgsError(f"`{name}` must be a string, got {type(value).__name__}")
    return value


def _nonempty(name: str, value: Any) -> str:
    if not _text(name, value).strip():
        raise ActionArgsError(f"`{name}` must not be empty")
    return str(value)


def _line_number(name: str, value: Any) -> int:
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ActionArgsError(f"`{name}` must be a line number (1 or more), got {value!r}")
    return value


def _flag(name: str, value: Any) -> bool:
    if isinstance(value, str) and value.strip().lower() in ("true", "yes", "false", "no"):
        return value.strip().lower() in ("true", "yes")
    if not isinstance(value, bool):
        raise ActionArgsError(f"`{name}` must be true or false, got {value!r}")
    return value


def _strings(name: str, value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ActionArgsError(f"`{name}` must be a list of strings")
    return value


def _command(name: str, value: Any) -> str | list[str]:
    if isinstance(value, str):
        return _nonempty(name, value)
    if isinstance(value, list) and value and all(isinstance(item, str) for item in value):
        return value
    raise ActionArgsError(f"`{name}` must be a command string or a non-empty list of strings")


def _plan(name: str, value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ActionArgsError(f"`{name}` must be a mapping: {{goal, tasks: [{{title, subtasks}}]}}")
    try:
        Plan.model_validate(value)
    except ValidationError as exc:
        problem = exc.errors()[0]
        where = ".".join(str(part) for part in problem["loc"])
        raise ActionArgsError(f"`{name}` is not a valid plan: {where}: {problem['msg']}") from exc
    return value


_COERCE: dict[str, dict[str, Callable[[str, Any], Any]]] = {
    "read_file": {"path": _nonempty, "start_line": _line_number, "end_line": _line_number},
    "list_dir": {"path": _text},
    "search": {"pattern": _nonempty, "path": _text},
    "write_file": {"path": _nonempty, "content": _text},
    "edit_file": {"path": _nonempty, "old": _nonempty, "new": _text},
    "run_cmd": {"cmd": _command},
    "run_check": {"name": _nonempty},
    "load_context": {"item": _nonempty},
    "note": {"text": _nonempty},
    "mark_subtask_complete": {"success": _flag, "reason": _text},
    "complete": {"summary": _nonempty},
    "escalate": {"question": _nonempty, "options": _strings},
    "set_plan": {"plan": _plan},
}


def validate_args(action: str, args: Any) -> dict[str, Any]:
    """The arguments checked against the catalog and normalised ("12" -> 12, "true" -> True);
    a null optional argument counts as absent. Raises ActionArgsError naming the problem."""
    spec = ACTIONS.get(action)
    if spec is None:
        raise ActionArgsError(f"unknown action {action!r}; actions: {', '.join(ACTIONS)}")
    if not isinstance(args, dict):
        raise ActionArgsError(f"{spec.signature}: arguments must be a mapping")
    unknown = sorted(set(args) - set(spec.args))
    if unknown:
        raise ActionArgsError(f"{spec.signature}: unknown argument {unknown[0]!r}")
    missing = [name for name in spec.required if args.get(name) is None]
    if missing:
        raise ActionArgsError(f"{spec.signature}: missing argument {missing[0]!r}")
    coerce = _COERCE[action]
    clean = {name: coerce[name](name, value) for name, value in args.items() if value is not None}
    start, end = clean.get("start_line"), clean.get("end_line")
    if start is not None and end is not None and end < start:
        raise ActionArgsError(f"end_line {end} is before start_line {start}")
    return clean


def action_signature(action: str, args: dict[str, Any]) -> str:
    """The loop guard's identity of an attempt: name plus sorted arguments as canonical JSON."""
    present = {name: value for name, value in args.items() if value is not None}
    canonical = json.dumps(
        present, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str
    )
    return f"{action}({canonical})"


# ----------------------------------------------------------------------------- files


def _read_text(path: Path, rel: str) -> str:
    if not path.exists():
        raise _Failed(f"no such file: {rel}")
    if path.is_dir():
        raise _Failed(f"{rel} is a directory (use list_dir)")
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise _Failed(f"{rel} is too large to read ({size} bytes)")
    data = path.read_bytes()
    if b"\x00" in data[:8192]:
        raise _Failed(f"{rel} is a binary file")
    return data.decode("utf-8", errors="replace")


def _line_count(text: str) -> int:
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def number_lines(lines: list[str], first: int) -> list[str]:
    """`  12| text`: the form read_file shows and edit_file's `old` is copied from."""
    width = max(4, len(str(first + len(lines) - 1)))
    return [f"{number:>{width}}| {line}" for number, line in enumerate(lines, first)]


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
    return "\n".join([*head, f"# ... {omitted} lines omitted ...", *tail])


def walk_files(top: Path, root: Path) -> Iterator[Path]:
    """Files under `top`, sorted, skipping hidden directories (.git, .venv, the task folder),
    caches, and symlinks that lead out of the workspace."""
    for current, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIPPED_DIRS)
        for name in sorted(files):
            path = Path(current, name)
            if path.is_symlink() and not path.resolve().is_relative_to(root):
                continue
            yield path


def _is_text(path: Path) -> bool:
    try:
        if path.stat().st_size > MAX_SEARCH_FILE_BYTES:
            return False
        with path.open("rb") as handle:
            return b"\x00" not in handle.read(8192)
    except OSError:
        return False


# ----------------------------------------------------------------------------- handlers


def _read_file(args: dict[str, Any], env: ActionEnv) -> ActionOutcome:
    path = resolve_path(env.workspace, args["path"])
    rel = workspace_relative(env.workspace, path)
    lines = _read_text(path, rel).splitlines()
    if not lines:
        return ActionOutcome("success", f"read {rel} (empty)", output="")
    start = args.get("start_line", 1)
    if start > len(lines):
        raise _Failed(f"start_line {start} is past the end of {rel} ({len(lines)} lines)")
    end = min(args.get("end_line", len(lines)), len(lines))
    output = cap_lines(number_lines(lines[start - 1 : end], start), OUTPUT_CAP)
    return ActionOutcome(
        "success", f"read {rel} lines {start}-{end} of {len(lines)}", output=output
    )


def _list_dir(args: dict[str, Any], env: ActionEnv) -> ActionOutcome:
    path = resolve_path(env.workspace, args.get("path") or ".")
    rel = workspace_relative(env.workspace, path)
    if not path.exists():
        raise _Failed(f"no such directory: {rel}")
    if not path.is_dir():
        raise _Failed(f"{rel} is a file (use read_file)")
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


def _search(args: dict[str, Any], env: ActionEnv) -> ActionOutcome:
    try:
        pattern = re.compile(args["pattern"])
    except re.error as exc:
        raise _Failed(f"invalid regex {args['pattern']!r}: {exc}") from exc
    root = env.workspace.resolve()
    top = resolve_path(env.workspace, args.get("path") or ".")
    if not top.exists():
        raise _Failed(f"no such path: {workspace_relative(env.workspace, top)}")
    candidates = [top] if top.is_file() else walk_files(top, root)
    hits: list[str] = []
    files_hit = 0
    for scanned, path in enumerate(candidates):
        if scanned >= MAX_SCANNED_FILES:
            break
        if not _is_text(path):
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


def _write_file(args: dict[str, Any], env: ActionEnv) -> ActionOutcome:
    path = resolve_path(env.workspace, args["path"], write=True)
    rel = workspace_relative(env.workspace, path)
    if path.is_dir():
        raise _Failed(f"{rel} is a directory")
    content: str = args["content"]
    before = _read_text(path, rel) if path.exists() else None
    if before == content:
        return ActionOutcome("success", f"{rel} unchanged (same content)")
    snapshots = _write(env, path, before, content)
    lines = _line_count(content)
    created = ", new file" if before is None else ""
    return ActionOutcome(
        "success",
        f"wrote {rel} ({lines} line{'s' if lines != 1 else ''}{created})",
        files_changed=[rel],
        snapshots=snapshots,
        changed_workspace=True,
    )


def _edit_file(args: dict[str, Any], env: ActionEnv) -> ActionOutcome:
    path = resolve_path(env.workspace, args["path"], write=True)
    rel = workspace_relative(env.workspace, path)
    before = _read_text(path, rel)
    old: str = args["old"]
    new: str = args["new"]
    count = before.count(old)
    if count != 1:
        hint = "copy it exactly from read_file" if count == 0 else "include more surrounding lines"
        raise _Failed(f"`old` occurs {count} times in {rel}; it must occur exactly once ({hint})")
    if old == new:
        raise _Failed("`old` and `new` are the same: nothing to change")
    at = before.index(old)
    after = before[:at] + new + before[at + len(old) :]
    snapshots = _write(env, path, before, after)
    line = before.count("\n", 0, at) + 1
    summary = f"edited {rel} at line {line} (-{_line_count(old)} +{_line_count(new)} lines)"
    return ActionOutcome(
        "success", summary, files_changed=[rel], snapshots=snapshots, changed_workspace=True
    )


def _run_cmd(args: dict[str, Any], env: ActionEnv) -> ActionOutcome:
    cmd: str | list[str] = args["cmd"]
    shown = cmd if isinstance(cmd, str) else shlex.join(cmd)
    try:
        name = os.path.basename(split_command(cmd)[0])
        result = run_command(
            cmd, env.workspace, env.spec.allowed_commands, timeout_s=env.command_timeout_s
        )
    except SandboxError as exc:
        return ActionOutcome(
            "refused",
            one_line(f"run_cmd refused: {exc}"),
            error=str(exc),
            command=CommandRun(cmd=shown, exit_code=None, step=env.step),
        )
    error = None
    if result.timed_out:
        error = f"timed out after {env.command_timeout_s:g}s"
    elif result.exit_code != 0:
        error = f"exit code {result.exit_code}"
    return ActionOutcome(
        "success" if result.exit_code == 0 else "failure",
        one_line(verify.describe_command(result, name)),
        output=result.output,
        error=error,
        command=CommandRun(cmd=shown, exit_code=result.exit_code, step=env.step),
        changed_workspace=True,  # a command may write anything; verification decides
    )


def _run_check(args: dict[str, Any], env: ActionEnv) -> ActionOutcome:
    if not env.spec.checks:
        raise _Failed("this task defines no checks")
    previous = env.verification or Verification()
    try:
        result = verify.run_checks(
            env.spec, env.workspace, previous, env.step, only=args.get("name")
        )
    except verify.UnknownCheckError as exc:
        raise _Failed(str(exc)) from exc
    lines = [
        f"{'PASS' if check.passing else 'FAIL'} {name}: {one_line(check.details, 200)}"
        for name, check in result.checks.items()
    ]
    passing = sum(check.passing for check in result.checks.values())
    failing = [name for name, check in result.checks.items() if not check.passing]
    summary = f"checks: {passing}/{len(result.checks)} passing"
    if failing:
        summary += f" (failing: {', '.join(failing)})"
    if result.ready_for_completion:
        summary += ", ready for completion"
    return ActionOutcome("success", one_line(summary), output="\n".join(lines), verification=result)


def _note(args: dict[str, Any], env: ActionEnv) -> ActionOutcome:
    text: str = args["text"].strip()
    return ActionOutcome("success", one_line(f"noted: {text}", 100), note=text)


# ----------------------------------------------------------------------------- load_context


def _loaded(env: ActionEnv, key: str, content: str, detail: str) -> ActionOutcome:
    if len(content) > MAX_MEMORY_CHARS:
        raise _Failed(
            f"{key} is too large to keep in memory ({len(content)} characters); "
            "read the part you need with read_file"
        )
    item = MemoryItem(
        type="loaded_context",
        step=env.step,
        key=key,
        content=content,
        expires_after_steps=DEFAULT_EXPIRY_STEPS,
    )
    return ActionOutcome(
        "success", one_line(f"loaded {key} ({detail})"), output=content, memory_item=item
    )


def _load_full_file(arg: str, env: ActionEnv) -> ActionOutcome:
    path = resolve_path(env.workspace, arg)
    rel = workspace_relative(env.workspace, path)
    text = _read_text(path, rel)
    return _loaded(env, f"full_file:{rel}", text, f"{_line_count(text)} lines")


def _module_name(rel: str) -> str:
    parts = rel.removesuffix(".py").split("/")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+\(?([\w., \t]*)|import[ \t]+([\w., \t]+))",
    re.MULTILINE,
)


def imported_modules(text: str, rel: str) -> set[str]:
    """Absolute dotted names a module's import lines may refer to (`from a import b` gives
    both a and a.b: b may be a submodule)."""
    package = _module_name(rel).split(".")
    if not rel.endswith("__init__.py"):
        package = package[:-1]
    found: set[str] = set()
    for dots, source, names, plain in _IMPORT.findall(text):
        if plain:
            found.update(part.split()[0] for part in plain.split(",") if part.strip())
            continue
        base = source
        if dots:
            kept = package[: len(package) - (len(dots) - 1)] if len(dots) > 1 else package
            base = ".".join([*kept, source] if source else kept)
        if base:
            found.add(base)
        for name in names.split(","):
            if name.strip():
                found.add(f"{base}.{name.split()[0]}" if base else name.split()[0])
    return found


def _related_files(env: ActionEnv) -> ActionOutcome:
    if not env.spec.target_files:
        raise _Failed("the task names no target file (target_files is empty)")
    root = env.workspace.resolve()
    target_path = resolve_path(env.workspace, env.spec.target_files[0])
    target = workspace_relative(env.workspace, target_path)
    if not target_path.is_file():
        raise _Failed(f"the target file {target} does not exist yet")
    files = [
        workspace_relative(env.workspace, path)
        for path in walk_files(root, root)
        if path.suffix == ".py"
    ][:MAX_SCANNED_FILES]
    by_name: dict[str, list[str]] = {}
    for rel in files:
        dotted = _module_name(rel).split(".")
        for cut in range(len(dotted)):  # src/pkg/mod.py answers to pkg.mod and mod too
            by_name.setdefault(".".join(dotted[cut:]), []).append(rel)

    def resolve(module: str) -> str | None:
        exact = [rel for rel in by_name.get(module, []) if _module_name(rel) == module]
        matches = exact or by_name.get(module, [])
        return matches[0] if len(matches) == 1 or exact else None

    def imports_of(rel: str) -> set[str]:
        text = (root / rel).read_text("utf-8", errors="replace")
        return {hit for module in imported_modules(text, rel) if (hit := resolve(module))} - {rel}

    imports = sorted(imports_of(target))
    importers = sorted(rel for rel in files if rel != target and target in imports_of(rel))
    content = "\n".join(
        (
            f"target: {target}",
            f"imports: {', '.join(imports) or '(none in the workspace)'}",
            f"imported by: {', '.join(importers) or '(none)'}",
        )
    )
    detail = f"{len(imports)} imported, {len(importers)} importing"
    return _loaded(env, "related_files", content, detail)


def _test_output(env: ActionEnv) -> ActionOutcome:
    check = next((check for check in env.spec.checks if check.kind == "command"), None)
    if check is None or check.cmd is None:
        raise _Failed("the task has no command check to take test output from")
    result = run_command(check.cmd, env.workspace, env.spec.allowed_commands, check.timeout_s)
    name = os.path.basename(check.cmd[0])
    return _loaded(env, "test_output", result.output, verify.describe_command(result, name))


_HEADING = re.compile(r"(#{1,6})[ \t]+(.+?)[ \t#]*")
_NUMBERED = re.compile(r"(\d+(?:\.\d+)*)\.?[ \t]+(.*)")


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def markdown_sections(text: str) -> list[tuple[str, str]]:
    """(heading, text) for each heading outside code fences; a section runs to the next
    heading of the same or a higher level."""
    lines = text.splitlines()
    heads: list[tuple[int, int, str]] = []  # line index, level, title
    fenced = False
    for index, line in enumerate(lines):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and (match := _HEADING.fullmatch(line)):
            heads.append((index, len(match.group(1)), match.group(2)))
    sections = []
    for position, (index, level, title) in enumerate(heads):
        end = next((i for i, lvl, _ in heads[position + 1 :] if lvl <= level), len(lines))
        sections.append((title, "\n".join(lines[index:end]).rstrip()))
    return sections


def _section_matches(title: str, wanted: str) -> bool:
    numbered = _NUMBERED.fullmatch(title)
    names = {_slug(title)} | ({_slug(numbered.group(2))} if numbered else set())
    if numbered and wanted.strip().rstrip(".") == numbered.group(1):
        return True
    return _slug(wanted) in names


def _spec_documents(env: ActionEnv) -> Iterator[tuple[str, str | dict[str, Any]]]:
    """(source name, text or mapping): the task's `spec` (inline, or a workspace file it
    names), then the files under the task's artifacts/inputs/."""
    spec = env.spec.spec
    if isinstance(spec, dict):
        yield "spec", spec
    elif isinstance(spec, str) and spec.strip():
        named = None
        if "\n" not in spec.strip():
            try:
                candidate = resolve_path(env.workspace, spec.strip())
                named = candidate if candidate.is_file() else None
            except SandboxError:
                named = None
        yield ("spec", _read_text(named, spec.strip())) if named else ("spec", spec)
    inputs = env.workspace / TASK_DIR_NAME / "tasks" / env.spec.id / "artifacts" / "inputs"
    if inputs.is_dir():
        for path in sorted(inputs.rglob("*")):
            if path.is_file() and _is_text(path):
                yield (
                    f"inputs/{path.relative_to(inputs).as_posix()}",
                    path.read_text("utf-8", errors="replace"),
                )


def _spec_section(wanted: str, env: ActionEnv) -> ActionOutcome:
    available: list[str] = []
    for source, document in _spec_documents(env):
        if isinstance(document, dict):
            key = next((k for k in document if _slug(str(k)) == _slug(wanted)), None)
            if key is not None:
                value = document[key]
                text = value if isinstance(value, str) else dump_yaml(value)
                return _loaded(env, f"spec_section:{wanted}", text, f"from {source}")
            available.extend(str(k) for k in document)
            continue
        for title, text in markdown_sections(document):
            if _section_matches(title, wanted):
                return _loaded(env, f"spec_section:{wanted}", text, f"{title!r} from {source}")
            available.append(title)
    if not available:
        raise _Failed("the task has no spec or input files with sections")
    listed = ", ".join(available[:20]) + (" ..." if len(available) > 20 else "")
    raise _Failed(f"no section {wanted!r} (sections: {listed})")


def _error_details(env: ActionEnv) -> ActionOutcome:
    if not env.last_error:
        raise _Failed("no error has been recorded yet")
    return _loaded(env, "error_details", env.last_error, f"{len(env.last_error)} characters")


def _load_context(args: dict[str, Any], env: ActionEnv) -> ActionOutcome:
    item: str = args["item"].strip()
    kind, _, arg = item.partition(":")
    kind, arg = kind.strip(), arg.strip()
    forms = "full_file:PATH, related_files, test_output, spec_section:ID, error_details"
    if kind not in LOAD_KINDS:
        raise _Failed(f"unknown context item {item!r}; items: {forms}")
    needs_arg = kind in ("full_file", "spec_section")
    if needs_arg != bool(arg):
        raise _Failed(f"{kind} {'needs' if needs_arg else 'takes no'} argument; items: {forms}")
    if kind == "full_file":
        return _load_full_file(arg, env)
    if kind == "spec_section":
        return _spec_section(arg, env)
    if kind == "related_files":
        return _related_files(env)
    if kind == "test_output":
        return _test_output(env)
    return _error_details(env)


# ----------------------------------------------------------------------------- dispatch

Handler = Callable[[dict[str, Any], ActionEnv], ActionOutcome]
_HANDLERS: dict[str, Handler] = {
    "read_file": _read_file,
    "list_dir": _list_dir,
    "search": _search,
    "write_file": _write_file,
    "edit_file": _edit_file,
    "run_cmd": _run_cmd,
    "run_check": _run_check,
    "load_context": _load_context,
    "note": _note,
}
WORKSPACE_ACTIONS: tuple[str, ...] = tuple(_HANDLERS)


def _target(args: dict[str, Any]) -> str:
    for name in ("path", "pattern", "item", "name", "cmd"):
        value = args.get(name)
        if value:
            return value if isinstance(value, str) else shlex.join(map(str, value))
    return ""


def execute(action: str, args: dict[str, Any], env: ActionEnv) -> ActionOutcome:
    """Run one workspace action. Never raises for the model's mistakes; raises ValueError if
    handed a control action, which the executor must handle itself."""
    if action in CONTROL_ACTIONS:
        raise ValueError(f"{action} is handled by the executor, not by actions.execute")
    label = one_line(f"{action} {_target(args) if isinstance(args, dict) else ''}".strip(), 80)
    try:
        clean = validate_args(action, args)
        return _HANDLERS[action](clean, env)
    except SandboxError as exc:
        return ActionOutcome("refused", one_line(f"{label} refused: {exc}"), error=str(exc))
    except (ActionArgsError, _Failed) as exc:
        return ActionOutcome("failure", one_line(f"{label}: {exc}"), error=str(exc))
    except OSError as exc:
        error = f"{exc.strerror or exc}" + (f": {exc.filename}" if exc.filename else "")
        return ActionOutcome("failure", one_line(f"{label}: {error}"), error=error)
