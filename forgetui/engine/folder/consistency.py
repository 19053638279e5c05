"""What every writer checks when it takes the task lock (TaskFolder, before it repairs
anything or recovers from a crash): that state.yaml, working_memory.yaml and actions.yaml load
and describe the same last step.
integrity/recovery.py repairs what a crash can leave; whatever else is found here was done by
a hand or a damaged disk, so it stops the writer with an error naming the files and
`forgetui repair`.

Checked, and why this much (a 10,000-step log of 25 MB, measured):
- state.yaml and working_memory.yaml load, validate and are not empty;
- actions.yaml is a regular file and every complete line has a record's shape, `--- {` ... `}`:
  the index scan notes that as it finds the line starts (~20 ms for the whole log), so garbage
  anywhere is caught;
- its last TAIL_DECODED lines parse and validate: the records the next steps read (recent
  results, the loop guard's intents, load_context's look back for a failure). Parsing every line
  would cost ~0.3 s per 10,000 steps at every open, for lines no step reads again; `log` names
  such a line itself and `forgetui repair` parses them all;
- the step: state.yaml's `step` is the step of the log's last result, or one more when
  state.yaml holds that step's result (a crash between saving state.yaml and appending to the
  log, which recovery completes). A log with no result and a state.yaml without `last_result`
  is a hand-written start (one may begin at step 8) and passes;
- no symlink on the way to the task folder, in it or among its artifacts folders."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

from forgetui.engine.base.errors import ForgeError, StateFileError
from forgetui.engine.base.yamlio import read_text, safe_load
from forgetui.engine.folder.action_log import BadLine
from forgetui.engine.folder.layout import LOG_FILE, MEMORY_FILE, STATE_FILE
from forgetui.engine.folder.memory import WorkingMemory
from forgetui.engine.folder.records import ResultRecord
from forgetui.engine.folder.task_state import TaskState

if TYPE_CHECKING:  # the folder runs this check whenever it takes its lock
    from forgetui.engine.folder.task_folder import TaskFolder

TAIL_DECODED = 200


class TaskFilesDisagree(ForgeError):
    """state.yaml and actions.yaml describe different last steps."""

    title = "task files disagree"


@dataclass
class Survey:
    """What the three files hold, and what is wrong with them."""

    state: TaskState | None = None
    memory: WorkingMemory | None = None
    errors: dict[str, StateFileError] = field(default_factory=dict)  # file name -> why
    empty: set[str] = field(default_factory=set)  # state files with no content
    bad_lines: list[BadLine] = field(default_factory=list)
    torn: tuple[int, int, str] | None = None  # an unfinished last line: offset, bytes, reason
    last_result: ResultRecord | None = None  # the log's, bad lines passed over
    mismatch: str | None = None  # state.yaml's step against the log's

    @property
    def log_step(self) -> int:
        return self.last_result.step if self.last_result is not None else 0


def survey(folder: TaskFolder, decoded: int | None = TAIL_DECODED) -> Survey:
    """Read the three files without changing anything. `decoded`: how many of the log's last
    lines to parse (None: all)."""
    found = Survey()
    try:
        found.state = folder.load_state()
    except StateFileError as exc:
        found.errors[STATE_FILE] = exc
        if _holds_nothing(folder.path / STATE_FILE):
            found.empty.add(STATE_FILE)
    try:
        found.memory = folder.load_memory()
    except StateFileError as exc:
        found.errors[MEMORY_FILE] = exc
        if _holds_nothing(folder.path / MEMORY_FILE):
            found.empty.add(MEMORY_FILE)
    try:
        found.torn = folder.log.torn_tail()
        found.bad_lines = folder.log.bad_lines(decoded)
        if found.torn is not None:  # the torn line goes to actions.yaml.torn, not with these
            found.bad_lines = [bad for bad in found.bad_lines if bad.offset != found.torn[0]]
        skip = {bad.offset for bad in found.bad_lines}
        if found.torn is not None:
            skip.add(found.torn[0])
        last = folder.log.last_of_kind("result", skip)
    except StateFileError as exc:
        found.errors[LOG_FILE] = exc
        return found
    found.last_result = last if isinstance(last, ResultRecord) else None
    if found.state is not None:
        found.mismatch = step_mismatch(found.state, found.last_result)
    return found


def step_mismatch(state: TaskState, last_result: ResultRecord | None) -> str | None:
    """How state.yaml's step disagrees with the log's last result, or None if it does not."""
    logged = last_result.step if last_result is not None else 0
    if state.step == logged:
        return None
    saved = state.last_result or {}
    if state.step == logged + 1 and saved.get("step") == state.step:
        return None  # a crash before the log append: recovery appends state.yaml's result
    if last_result is None and state.last_result is None:
        return None  # a hand-written state.yaml over an empty log
    has = f"'s last result is step {logged}" if last_result is not None else " has no result"
    return f"state.yaml says step {state.step} but actions.yaml{has}"


def check(folder: TaskFolder) -> None:
    """Raise the first problem a writer must not go past: a state file that does not load, a
    line of the log that is not a record, state.yaml's step against the log's."""
    _refuse_links(folder)
    found = survey(folder)
    for name in (STATE_FILE, MEMORY_FILE, LOG_FILE):
        if name in found.errors:
            raise found.errors[name]
    task = shlex.quote(str(folder.path))
    if found.bad_lines:
        first = found.bad_lines[0]
        more = len(found.bad_lines) - 1
        others = f" (and {more} more bad line{'s' if more > 1 else ''})" if more else ""
        raise StateFileError(
            folder.log.path,
            f"{first.problem}{others}; run `forgetui repair {task}` to see the fix",
            line=first.line,
        )
    if found.mismatch is not None:
        raise TaskFilesDisagree(
            f"{folder.path}: {found.mismatch}; run `forgetui repair {task}` to see the fix"
        )


def _refuse_links(folder: TaskFolder) -> None:
    """No symlink on the way from the workspace to the task folder, in it, or among its
    artifacts folders: a writer appends and writes there by name, so a link (a cloned repository
    shipping `.agentforge/`, a command that made one) would carry its writes outside."""
    chain: list[Path] = []
    if folder.path.is_relative_to(folder.workspace):
        here = folder.workspace
        for part in folder.path.relative_to(folder.workspace).parts:
            here = here / part
            chain.append(here)
    else:
        chain.append(folder.path)
    entries = [*chain, *_children(folder.path), *_children(folder.path / "artifacts")]
    for path in entries:
        if path.is_symlink():
            raise ForgeError(
                f"{path}: a symlink in the task's folder; forgetui writes only its own files"
                " there: replace it with the file or folder it should be"
            )


def _children(path: Path) -> list[Path]:
    if path.is_symlink() or not path.is_dir():
        return []
    try:
        return list(path.iterdir())
    except OSError:
        return []


def _holds_nothing(path: Path) -> bool:
    """A regular file with no YAML document in it (0 bytes, blanks or comments)."""
    try:
        return safe_load(read_text(path)) is None
    except (ForgeError, OSError, yaml.YAMLError):
        return False
