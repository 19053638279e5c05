"""Project memory: what a workspace's tasks taught that outlives any one of them (conventions,
commands that work, lessons from failed approaches, the operator's preferences, knowledge).

It lives in `<workspace>/.agentforge/memory/`, one YAML file per kind, a list of entries a
developer can open and edit by hand (`ProjectEntry` is the format), plus `settings.yaml` for its
share of the context. Working memory dies with its task; this does not, so every task of the
workspace shows it.

The folder is reached from a descriptor of the workspace root, one component at a time without
following a link (confined_open.py): a `.agentforge/memory` that is a symlink, or a file in it
that is one, is refused, never followed, so nothing written here can land outside the
workspace. A write is a temporary file renamed over the old one, under a lock on the folder,
and its text has the operator's secret values cut out first: the files may well be committed."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel

from forgetui.engine.base.clock import now_iso
from forgetui.engine.base.errors import ForgeError, StateFileError
from forgetui.engine.base.yamlio import dump_yaml, parse_yaml, validate_data
from forgetui.engine.sandbox.paths import MEMORY_PARTS
from forgetui.engine.sandbox.redact import SECRET_VALUE, redact, secrets_of
from forgetui.engine.workspace.confined_open import DIR_FLAGS, FILE_FLAGS, PathBlocked, open_dirs
from forgetui.engine.workspace.memory_text import PROBLEM_CHARS, cut, quoted, text_problem
from forgetui.engine.workspace.safe_write import WriteTarget

Kind = Literal["convention", "command", "lesson", "preference", "knowledge"]
KINDS: tuple[Kind, ...] = ("preference", "convention", "command", "lesson", "knowledge")
FILES: dict[Kind, str] = {
    "preference": "preferences.yaml",
    "convention": "conventions.yaml",
    "command": "commands.yaml",
    "lesson": "lessons.yaml",
    "knowledge": "knowledge.yaml",
}
MEMORY_DIR = "/".join(MEMORY_PARTS)
SETTINGS_FILE = "settings.yaml"
DEFAULT_BUDGET = 300  # tokens of current_state the entries may take, unless settings say
MAX_ENTRY_CHARS = 2000  # an entry is a line or a short paragraph, not a document
MAX_ID_CHARS = 40  # `knowledge-` and nine-plus digits: room for any real count
MAX_FILE_BYTES = 256 * 1024
SECRET_MARKER = "[redacted]"


class ProjectMemoryError(ForgeError):
    title = "project memory"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ProjectEntry(_Strict):
    """One entry as its file holds it. `id` is `<kind>-<n>`, unique in the workspace."""

    id: str = Field(max_length=MAX_ID_CHARS, pattern=r"^[a-z]+-[0-9]+$")
    text: str = Field(min_length=1, max_length=MAX_ENTRY_CHARS)
    source: str | None = None  # where it was promoted from: task, step, item
    added_at: str | None = None


class KindFile(RootModel[list[ProjectEntry]]):
    """A kind's file: a YAML list of entries (empty or missing: none)."""


class MemorySettings(_Strict):
    budget_tokens: int = Field(DEFAULT_BUDGET, ge=0, le=20000)  # 0: not shown in context


@dataclass(frozen=True)
class Entry:
    kind: Kind
    id: str
    text: str
    source: str | None = None
    added_at: str | None = None


@dataclass(frozen=True)
class ProjectMemory:
    """What the folder holds: the entries that read, in kind order, and for each file that
    did not, one line saying where and why it is left out."""

    entries: tuple[Entry, ...] = ()
    problems: tuple[str, ...] = ()
    budget_tokens: int = DEFAULT_BUDGET

    def find(self, entry_id: str) -> Entry:
        for entry in self.entries:
            if entry.id == entry_id:
                return entry
        known = ", ".join(entry.id for entry in self.entries) or "none"
        raise ProjectMemoryError(f"no project memory entry {quoted(entry_id)} (entries: {known})")


def kind_of(value: str) -> Kind:
    """`value` as a kind (a plural or any case is taken), else one line listing the kinds."""
    word = value.strip().lower()
    for kind in KINDS:
        if word in (kind, f"{kind}s"):
            return kind
    raise ProjectMemoryError(
        f"unknown project memory kind {quoted(value)}; kinds: {', '.join(KINDS)}"
    )


def workspace_of(path: Path) -> Path:
    """The workspace `path` names: itself, or the one a task folder (or any path under
    .agentforge/) lives in."""
    path = path.expanduser().absolute()
    for parent in (path, *path.parents):
        if parent.name == MEMORY_PARTS[0]:
            return parent.parent
    if not path.is_dir():
        raise ProjectMemoryError(f"{path}: not a workspace folder")
    return path


def scrubbed(text: str) -> str:
    """`text` without the operator's secret values nor anything shaped like a key or a token:
    these files outlive the environment and may be committed."""
    text, _ = redact(text, secrets_of(os.environ))
    return SECRET_VALUE.sub(SECRET_MARKER, text)


# --- reading ---------------------------------------------------------------------------------


@contextlib.contextmanager
def _memory_dir(workspace: Path, create: bool) -> Iterator[int | None]:
    """A descriptor of the memory folder (None: there is none and `create` is false), entered
    from the workspace root without following a link."""
    root_fd = os.open(workspace.resolve(), os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fd = open_dirs(root_fd, MEMORY_PARTS, create=create)
    except PathBlocked as exc:
        if exc.kind == "missing":
            yield None
            return
        where = "/".join(exc.where)
        what = "is not a folder"
        if exc.kind == "symlink":
            what = f"is a symlink (-> {exc.link or '?'})"
        raise ProjectMemoryError(
            f"{where} {what}: project memory is read and written only inside the workspace, "
            "never through a link"
        ) from None
    finally:
        os.close(root_fd)
    try:
        yield fd
    finally:
        os.close(fd)


def _read(dir_fd: int, name: str) -> str | None:
    """A file of the memory folder (None: missing), opened without following a link."""
    shown = f"{MEMORY_DIR}/{name}"
    try:
        fd = os.open(name, FILE_FLAGS, dir_fd=dir_fd)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ProjectMemoryError(
                f"{shown} is a symlink: project memory never follows a link"
            ) from None
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):  # a folder, a pipe, a device put there by hand
        os.close(fd)
        raise ProjectMemoryError(f"{shown} is not a regular file")
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise ProjectMemoryError(f"{shown} is over {MAX_FILE_BYTES // 1024} KiB")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ProjectMemoryError(f"{shown} is not UTF-8 text") from None


def _parse(text: str | None, name: str, model: type[KindFile] | type[MemorySettings]) -> object:
    path = Path(MEMORY_DIR, name)
    data = parse_yaml(text, path) if text else None
    if model is MemorySettings:
        return validate_data(data or {}, MemorySettings, path, text)
    try:
        return validate_data(data or [], KindFile, path, text)
    except StateFileError as exc:
        index, _, field = (exc.field or "").partition(".")
        if not index.isdigit():
            raise
        problem = exc.message.split(f"field '{exc.field}': ", 1)[-1]
        where = f"entry {int(index) + 1}: " + (f"field '{field}': " if field else "")
        raise StateFileError(path, where + problem, line=exc.line) from None


def _kind_entries(dir_fd: int, kind: Kind) -> list[ProjectEntry]:
    """One kind's entries; ProjectMemoryError (or StateFileError: file:line: field) if its
    file does not read, or an id does not belong to the kind."""
    name = FILES[kind]
    text = _read(dir_fd, name)
    loaded = _parse(text, name, KindFile)
    assert isinstance(loaded, KindFile)
    for index, entry in enumerate(loaded.root):
        if not entry.id.startswith(f"{kind}-"):
            raise ProjectMemoryError(
                f"{MEMORY_DIR}/{name}: entry {index + 1}: field 'id': {quoted(entry.id)} must "
                f"start with '{kind}-' in this file"
            )
    return loaded.root


def load_project_memory(workspace: Path, strict: bool = False) -> ProjectMemory:
    """The workspace's project memory. A file that does not read is left out with its one-line
    reason in `problems` (a step must not fail over a hand edit); with `strict`, the first
    problem is raised instead (the CLI's exit 2)."""
    problems: list[str] = []
    entries: list[Entry] = []
    budget = DEFAULT_BUDGET
    try:
        with _memory_dir(workspace, create=False) as dir_fd:
            if dir_fd is None:
                return ProjectMemory()
            try:
                settings = _parse(_read(dir_fd, SETTINGS_FILE), SETTINGS_FILE, MemorySettings)
                assert isinstance(settings, MemorySettings)
                budget = settings.budget_tokens
            except ForgeError as exc:
                if strict:
                    raise
                problems.append(cut(exc.message, PROBLEM_CHARS))
            seen: set[str] = set()
            for kind in KINDS:
                try:
                    found = _kind_entries(dir_fd, kind)
                except ForgeError as exc:
                    if strict:
                        raise
                    problems.append(cut(exc.message, PROBLEM_CHARS))
                    continue
                for raw in found:
                    if raw.id in seen:
                        problem = f"{MEMORY_DIR}/{FILES[kind]}: id {quoted(raw.id)} appears twice"
                        if strict:
                            raise ProjectMemoryError(problem)
                        problems.append(cut(problem, PROBLEM_CHARS))
                        continue
                    seen.add(raw.id)
                    entries.append(Entry(kind, raw.id, raw.text, raw.source, raw.added_at))
    except ProjectMemoryError as exc:  # the folder itself: a link
        if strict:
            raise
        problems.append(cut(exc.message, PROBLEM_CHARS))
    return ProjectMemory(tuple(entries), tuple(problems), budget)


def memory_stamp(workspace: Path) -> tuple[tuple[str, int, int, int], ...]:
    """What changes when a file of the folder does (name, inode, mtime, size): a reader that
    caches what it built from the folder rebuilds only when this changes."""
    folder = workspace.joinpath(*MEMORY_PARTS)
    stamps = []
    for name in (SETTINGS_FILE, *FILES.values()):
        try:
            info = os.lstat(folder / name)
        except OSError:
            continue
        stamps.append((name, info.st_ino, info.st_mtime_ns, info.st_size))
    try:
        info = os.lstat(folder)
        stamps.append(("", info.st_ino, info.st_mtime_ns, stat.S_IFMT(info.st_mode)))
    except OSError:
        pass
    return tuple(stamps)


# --- writing ---------------------------------------------------------------------------------


def _write(workspace: Path, dir_fd: int, kind: Kind, entries: list[ProjectEntry]) -> None:
    name = FILES[kind]
    try:
        existing: os.stat_result | None = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        existing = None
    data = [entry.model_dump(mode="json", exclude_none=True) for entry in entries]
    target = WriteTarget(workspace, f"{MEMORY_DIR}/{name}", dir_fd, name, existing)
    target.replace(dump_yaml(data))


@contextlib.contextmanager
def _locked(workspace: Path) -> Iterator[int]:
    """The memory folder, made if missing, held under an exclusive lock for one change: a
    workbench and a CLI command adding at once both land."""
    with _memory_dir(workspace, create=True) as dir_fd:
        assert dir_fd is not None
        check = os.open(".", DIR_FLAGS, dir_fd=dir_fd)  # the lock is on the folder itself
        try:
            fcntl.flock(check, fcntl.LOCK_EX)
            yield dir_fd
        finally:
            os.close(check)


def add_entry(workspace: Path, kind: Kind, text: str, source: str | None = None) -> Entry:
    """A new entry of `kind` at the end of its file, its text with secrets cut; returns it."""
    text = _entry_text(text, "a project memory entry needs some text")
    with _locked(workspace) as dir_fd:
        load_project_memory(workspace, strict=True)  # ids unique across the files
        current = _kind_entries(dir_fd, kind)
        taken = [int(e.id.rsplit("-", 1)[1]) for e in _all_entries(dir_fd) if e.id.startswith(kind)]
        new_id = f"{kind}-{max(taken, default=0) + 1}"
        if len(new_id) > MAX_ID_CHARS:
            raise ProjectMemoryError(
                f"{MEMORY_DIR}/{FILES[kind]}: no id left for a new {kind} (the highest is "
                f"{kind}-{max(taken)}): renumber the entries by hand"
            )
        entry = ProjectEntry(id=new_id, text=text, source=source, added_at=now_iso())
        _write(workspace, dir_fd, kind, [*current, entry])
    return Entry(kind, entry.id, entry.text, entry.source, entry.added_at)


def _all_entries(dir_fd: int) -> list[ProjectEntry]:
    return [entry for kind in KINDS for entry in _kind_entries(dir_fd, kind)]


def _entry_text(text: str, empty: str) -> str:
    """`text` as an entry holds it (trimmed, secrets cut), or one line saying why it cannot be:
    empty, not UTF-8, a control character, too long."""
    problem = text_problem(text)
    if problem is not None:
        raise ProjectMemoryError(f"project memory text {problem}")
    text = scrubbed(text.strip())
    if not text:
        raise ProjectMemoryError(empty)
    return _fits(text)


def _fits(text: str) -> str:
    if len(text) > MAX_ENTRY_CHARS:
        raise ProjectMemoryError(
            f"a project memory entry holds at most {MAX_ENTRY_CHARS} characters "
            f"(this one has {len(text)}): keep the lesson, not the transcript"
        )
    return text


def _change(workspace: Path, entry_id: str, text: str | None) -> Entry:
    """Replace the text of entry `entry_id` (None: remove it); returns it as it was."""
    with _locked(workspace) as dir_fd:
        old = load_project_memory(workspace, strict=True).find(entry_id)
        current = _kind_entries(dir_fd, old.kind)
        kept: list[ProjectEntry] = []
        for entry in current:
            if entry.id != entry_id:
                kept.append(entry)
            elif text is not None:
                kept.append(entry.model_copy(update={"text": text}))
        _write(workspace, dir_fd, old.kind, kept)
    return old


def edit_entry(workspace: Path, entry_id: str, text: str) -> Entry:
    """Entry `entry_id` with `text` (secrets cut) in place of its text."""
    text = _entry_text(text, "a project memory entry needs some text: remove it instead")
    _change(workspace, entry_id, text)
    return load_project_memory(workspace, strict=True).find(entry_id)


def remove_entry(workspace: Path, entry_id: str) -> Entry:
    """Entry `entry_id` out of its file; returns what it held."""
    return _change(workspace, entry_id, None)
