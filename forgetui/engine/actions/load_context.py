"""load_context: keep one item in working memory.

The items are `full_file:PATH`, `related_files` (what the target file imports and what imports
it, found by scanning import lines, not by importing), `test_output` (the first command check's
output), `spec_section:ID` (a heading of the spec or of the task's input files) and
`error_details` (the last error in full). Each becomes a `loaded_context` memory item that
expires, so a loaded file does not crowd every later context."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import Any

from forgetui.engine.actions.files import MAX_SCANNED_FILES, MAX_SEARCH_FILE_BYTES
from forgetui.engine.actions.outcome import SUMMARY_CHARS, ActionEnv, ActionOutcome, Failed
from forgetui.engine.base.compress import one_line
from forgetui.engine.base.yamlio import dump_yaml
from forgetui.engine.checks import verify
from forgetui.engine.folder.memory import DEFAULT_EXPIRY_STEPS, LOAD_KINDS, MemoryItem
from forgetui.engine.sandbox import (
    TASK_DIR_NAME,
    CommandSetup,
    SandboxError,
    resolve_path,
    run_in,
    workspace_relative,
)
from forgetui.engine.workspace.files import (
    Skipped,
    is_text_file,
    line_count,
    read_text,
    scanned_text,
    skipped_note,
    walk_files,
)

MAX_MEMORY_CHARS = 60_000  # a loaded_context item bigger than this would bloat the state files
FORMS = "full_file:PATH, related_files, test_output, spec_section:ID, error_details"


def load_context(args: dict[str, Any], env: ActionEnv) -> ActionOutcome:
    item: str = args["item"].strip()
    kind, _, arg = item.partition(":")
    kind, arg = kind.strip(), arg.strip()
    if kind not in LOAD_KINDS:
        raise Failed(f"unknown context item {item!r}; items: {FORMS}")
    needs_arg = kind in ("full_file", "spec_section")
    if needs_arg != bool(arg):
        raise Failed(f"{kind} {'needs' if needs_arg else 'takes no'} argument; items: {FORMS}")
    if kind == "full_file":
        return _full_file(arg, env)
    if kind == "spec_section":
        return _spec_section(arg, env)
    if kind == "related_files":
        return _related_files(env)
    if kind == "test_output":
        return _test_output(env)
    return _error_details(env)


def _loaded(env: ActionEnv, key: str, content: str, detail: str) -> ActionOutcome:
    if len(content) > MAX_MEMORY_CHARS:
        raise Failed(
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
    summary = one_line(f"loaded {key} ({detail})", SUMMARY_CHARS)
    return ActionOutcome("success", summary, output=content, memory_item=item)


def _full_file(arg: str, env: ActionEnv) -> ActionOutcome:
    path = resolve_path(env.workspace, arg)
    rel = workspace_relative(env.workspace, path)
    text = read_text(env.workspace.resolve(), path, rel)
    return _loaded(env, f"full_file:{rel}", text, f"{line_count(text)} lines")


def _error_details(env: ActionEnv) -> ActionOutcome:
    if not env.last_error:
        raise Failed("no error has been recorded yet")
    return _loaded(env, "error_details", env.last_error, f"{len(env.last_error)} characters")


def _test_output(env: ActionEnv) -> ActionOutcome:
    check = next((check for check in env.spec.checks if check.kind == "command"), None)
    if check is None or check.cmd is None:
        raise Failed("the task has no command check to take test output from")
    setup = CommandSetup.for_task(env.spec, env.workspace)
    result = run_in(setup, check.cmd, check.timeout_s)
    name = os.path.basename(check.cmd[0])
    return _loaded(env, "test_output", result.output, verify.describe_command(result, name))


# ----------------------------------------------------------------------------- related_files


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
        raise Failed("the task names no target file (target_files is empty)")
    root = env.workspace.resolve()
    target_path = resolve_path(env.workspace, env.spec.target_files[0])
    target = workspace_relative(env.workspace, target_path)
    if not target_path.is_file():
        raise Failed(f"the target file {target} does not exist yet")
    skipped: list[Skipped] = []
    texts: dict[str, str] = {}
    for path in walk_files(root, root, skipped):
        if len(texts) >= MAX_SCANNED_FILES:
            break
        if path.suffix == ".py":
            rel = workspace_relative(env.workspace, path)
            text = scanned_text(root, path, rel, MAX_SEARCH_FILE_BYTES, skipped)
            texts[rel] = text if text is not None else ""
    if target not in texts:
        text = scanned_text(root, target_path, target, MAX_SEARCH_FILE_BYTES, skipped)
        texts[target] = text if text is not None else ""
    by_name: dict[str, list[str]] = {}
    for rel in texts:
        dotted = _module_name(rel).split(".")
        for cut in range(len(dotted)):  # src/pkg/mod.py answers to pkg.mod and mod too
            by_name.setdefault(".".join(dotted[cut:]), []).append(rel)

    def resolve(module: str) -> str | None:
        exact = [rel for rel in by_name.get(module, []) if _module_name(rel) == module]
        matches = exact or by_name.get(module, [])
        return matches[0] if len(matches) == 1 or exact else None

    def imports_of(rel: str) -> set[str]:
        found = imported_modules(texts[rel], rel)
        return {hit for module in found if (hit := resolve(module))} - {rel}

    imports = sorted(imports_of(target))
    importers = sorted(rel for rel in texts if rel != target and target in imports_of(rel))
    lines = [
        f"target: {target}",
        f"imports: {', '.join(imports) or '(none in the workspace)'}",
        f"imported by: {', '.join(importers) or '(none)'}",
    ]
    if skipped:
        lines.append(skipped_note(skipped))
    detail = f"{len(imports)} imported, {len(importers)} importing"
    if skipped:
        detail += f"; skipped {len(skipped)}"
    return _loaded(env, "related_files", "\n".join(lines), detail)


# ----------------------------------------------------------------------------- spec_section

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
    """By number ("2.1" for "2.1 add") or by name, ignoring case and punctuation."""
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
        if named:
            yield "spec", read_text(env.workspace.resolve(), named, spec.strip())
        else:
            yield "spec", spec
    inputs = env.workspace / TASK_DIR_NAME / "tasks" / env.spec.id / "artifacts" / "inputs"
    if inputs.is_dir():
        for path in sorted(inputs.rglob("*")):
            if path.is_file() and is_text_file(path, MAX_SEARCH_FILE_BYTES):
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
        raise Failed("the task has no spec or input files with sections")
    listed = ", ".join(available[:20]) + (" ..." if len(available) > 20 else "")
    raise Failed(f"no section {wanted!r} (sections: {listed})")
