"""Promotion: a note, a decision or an inbox answer of one task made a project memory entry
that every later task of the workspace sees (workspace/project_memory.py holds the entries).

Each promotion is an operator record in the task's log (op `promote`), naming the entry it made
and what it came from, so the task's history says where the workspace's lesson was learnt. A
finished task may promote: lessons are often clearest at the end, and its working memory is
not changed."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from forgetui.engine.base.clock import now_iso
from forgetui.engine.base.errors import ForgeError
from forgetui.engine.base.yamlio import dump_yaml
from forgetui.engine.folder.records import OperatorRecord
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.operator.inbox import escalation_inbox, find_entry
from forgetui.engine.workspace.project_memory import (
    KINDS,
    Entry,
    Kind,
    add_entry,
    edit_entry,
    kind_of,
    load_project_memory,
    memory_stamp,
    remove_entry,
    workspace_of,
)

PROJECT_KINDS = KINDS
PROMOTABLE = ("note", "decision")
# what a promoted item most likely is, unless the operator says: a note is something learnt,
# a decision (or an answer) is what the operator wants
DEFAULT_KIND: dict[str, Kind] = {"note": "knowledge", "decision": "preference"}


@dataclass(frozen=True)
class ProjectRow:
    """One entry as the front ends list it."""

    id: str
    kind: str
    text: str
    source: str | None

    def to_json(self) -> dict[str, str | None]:
        return {"id": self.id, "kind": self.kind, "text": self.text, "source": self.source}


def project_workspace(path: Path | str) -> Path:
    """The workspace a path names (itself, or the one a task folder lives in)."""
    return workspace_of(Path(path))


def project_rows(workspace: Path, strict: bool = False) -> list[ProjectRow]:
    """The workspace's entries in kind order; a file that does not read is left out, or with
    `strict` raised (file:line: field)."""
    memory = load_project_memory(workspace, strict=strict)
    return [ProjectRow(e.id, e.kind, e.text, e.source) for e in memory.entries]


@dataclass(frozen=True)
class ProjectView:
    """What the workbench's memory pane shows of project memory: the entries, and a line for
    each file left out (a bad hand edit), as the context says it."""

    workspace: Path
    rows: tuple[ProjectRow, ...] = ()
    problems: tuple[str, ...] = ()


_VIEWS: dict[Path, tuple[object, ProjectView]] = {}


def project_view(workspace: Path) -> ProjectView:
    """The pane's view, read again only when a file of the folder changed (the workbench asks
    at every reload)."""
    stamp = memory_stamp(workspace)
    cached = _VIEWS.get(workspace)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    memory = load_project_memory(workspace)
    rows = tuple(ProjectRow(e.id, e.kind, e.text, e.source) for e in memory.entries)
    view = ProjectView(workspace, rows, memory.problems)
    _VIEWS[workspace] = (stamp, view)
    return view


def _kind(kind: str | None, default: Kind) -> Kind:
    return default if kind is None else kind_of(kind)


def promote_to_project(folder: TaskFolder, ref: str, kind: str | None = None) -> str:
    """Working-memory item `ref` (a note or a decision) as a project memory entry."""
    with folder.lock:
        memory = folder.load_memory()
        item = memory.items[memory.find(ref)]
        if item.type not in PROMOTABLE:
            raise ForgeError(
                f"{item.ref} is a {item.type}: only a note or a decision becomes project "
                "memory (add what it taught as a note first)"
            )
        content = item.content
        text = content if isinstance(content, str) else dump_yaml(content)
        step = folder.load_state().step
        where = f"item {item.ref}" + (f" (step {item.step})" if item.step is not None else "")
        entry = add_entry(
            folder.workspace, _kind(kind, DEFAULT_KIND[item.type]), text,
            source=f"task {folder.task_id}, {where}",
        )  # fmt: skip
        _log(folder, step, entry, item.ref)
    return _said(entry)


def promote_answer_to_project(folder: TaskFolder, entry_id: str, kind: str | None = None) -> str:
    """The answer to inbox question `entry_id` (question and answer) as a project memory
    entry; a question not answered yet is refused."""
    with folder.lock:
        entry = find_entry(escalation_inbox(folder), entry_id)
        if why := entry.why_not_promoted():
            raise ForgeError(why)
        made = add_entry(
            folder.workspace, _kind(kind, "preference"), entry.note(),
            source=f"task {folder.task_id}, inbox answer {entry.id} (asked at step {entry.step})",
        )  # fmt: skip
        _log(folder, folder.load_state().step, made, f"inbox {entry.id}")
    return _said(made)


def _log(folder: TaskFolder, step: int, entry: Entry, origin: str) -> None:
    folder.log.append(
        OperatorRecord(
            step=step, at=now_iso(), op="promote", key=entry.id, text=entry.text,
            detail={"from": origin, "kind": entry.kind},
        )
    )  # fmt: skip


def _said(entry: Entry) -> str:
    return f"promoted to project memory as {entry.id} ({entry.kind}): every task here sees it"


def add_project_entry(workspace: Path, kind: str, text: str) -> str:
    """An entry the operator writes directly (no task: nothing is logged)."""
    entry = add_entry(workspace, kind_of(kind), text, source="added by the operator")
    return f"added project memory {entry.id} ({entry.kind})"


def edit_project_entry(workspace: Path, entry_id: str, text: str) -> str:
    entry = edit_entry(workspace, entry_id, text)
    return f"edited project memory {entry.id}"


def remove_project_entry(workspace: Path, entry_id: str) -> str:
    entry = remove_entry(workspace, entry_id)
    return f"removed project memory {entry.id} ({entry.kind}): {entry.text[:60]}"
