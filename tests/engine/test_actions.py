"""The agent's workspace actions: each one's happy path, its failures, and the sandbox's refusals
as outcomes (never exceptions)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from forgetui.engine.actions import (
    CONTROL_ACTIONS,
    WORKSPACE_ACTIONS,
    ActionArgsError,
    ActionEnv,
    ActionOutcome,
    action_signature,
    execute,
    imported_modules,
    markdown_sections,
    validate_args,
)
from forgetui.engine.folder.catalog import ACTIONS
from forgetui.engine.folder.task_spec import TaskSpec
from forgetui.engine.llm.parse import validate_action

SPEC_TEXT = """\
# Mathx

## 1. Overview
A tiny maths package.

## 2. Functions
### 2.1 add
add(a, b) returns the sum.

```
# not a heading
```

## 3. Errors
Raise ValueError on bad input.
"""


class SnapshotRecorder:
    """Stands in for TaskFolder.snapshot: writes each before/after pair under tmp and remembers
    calls."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.calls: list[tuple[str, str | None, str | None]] = []

    def __call__(self, rel: str, before: str | None, after: str | None) -> list[str]:
        self.calls.append((rel, before, after))
        written = []
        for side, text in (("before", before), ("after", after)):
            if text is not None:
                name = f"snapshots/{len(self.calls):03d}-{side}-{rel.replace('/', '__')}"
                (self.folder / name).parent.mkdir(parents=True, exist_ok=True)
                (self.folder / name).write_text(text)
                written.append(name)
        return written


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "mathx").mkdir(parents=True)
    (root / "mathx" / "__init__.py").write_text("from .core import add\n")
    (root / "mathx" / "core.py").write_text(
        "from mathx import util\n\n\ndef add(a, b):\n    return util.check(a) + b\n"
    )
    (root / "mathx" / "util.py").write_text("def check(x):\n    return x\n")
    (root / "tests").mkdir()
    (root / "tests" / "test_core.py").write_text(
        "from mathx.core import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
    )
    (root / "README.md").write_text("hello\n")
    (root / "docs").mkdir()
    (root / "docs" / "spec.md").write_text(SPEC_TEXT)
    (root / ".agentforge" / "tasks" / "t1").mkdir(parents=True)
    (root / ".agentforge" / "tasks" / "t1" / "state.yaml").write_text("step: 0\n")
    (tmp_path / "outside.txt").write_text("secret\n")
    return root


@pytest.fixture
def snapshots(tmp_path: Path) -> SnapshotRecorder:
    return SnapshotRecorder(tmp_path / "artifacts")


def make_env(workspace: Path, snapshots: SnapshotRecorder, **spec: Any) -> ActionEnv:
    fields = {"id": "t1", "goal": "make add work", **spec}
    return ActionEnv(
        workspace=workspace,
        spec=TaskSpec.model_validate(fields),
        step=7,
        snapshot=snapshots,
    )


@pytest.fixture
def env(workspace: Path, snapshots: SnapshotRecorder) -> ActionEnv:
    return make_env(
        workspace,
        snapshots,
        target_files=["mathx/core.py"],
        checks=[
            {"name": "tests", "kind": "command", "cmd": ["pytest", "-q", "-p", "no:cacheprovider"]}
        ],
    )


@pytest.fixture
def fast_child_pytest(monkeypatch: pytest.MonkeyPatch) -> None:
    """A child pytest without this venv's plugins (hypothesis alone costs ~1.5 s to import)."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


def assert_one_line(outcome: ActionOutcome) -> None:
    assert outcome.summary and "\n" not in outcome.summary


# ----------------------------------------------------------------------------- catalog


def test_every_catalog_action_is_executed_here_or_by_the_executor() -> None:
    assert set(WORKSPACE_ACTIONS) | set(CONTROL_ACTIONS) == set(ACTIONS)
    assert not set(WORKSPACE_ACTIONS) & set(CONTROL_ACTIONS)


def test_control_actions_are_not_executed_here(env: ActionEnv) -> None:
    with pytest.raises(ValueError, match="handled by the executor"):
        execute("complete", {"summary": "done"}, env)


# ----------------------------------------------------------------------------- read_file


def test_read_file_numbers_lines(env: ActionEnv) -> None:
    outcome = execute("read_file", {"path": "mathx/core.py"}, env)
    assert outcome.result == "success"
    lines = outcome.output.splitlines() if outcome.output else []
    assert lines[0] == "   1| from mathx import util"
    assert lines[3] == "   4| def add(a, b):"
    assert outcome.summary == "read mathx/core.py lines 1-5 of 5"
    assert not outcome.changed_workspace


def test_read_file_range_is_clamped_to_the_file(env: ActionEnv) -> None:
    outcome = execute(
        "read_file", {"path": "mathx/core.py", "start_line": "4", "end_line": 99}, env
    )
    assert outcome.output == "   4| def add(a, b):\n   5|     return util.check(a) + b"
    assert outcome.summary == "read mathx/core.py lines 4-5 of 5"


def test_read_file_start_past_the_end_fails(env: ActionEnv) -> None:
    outcome = execute("read_file", {"path": "mathx/core.py", "start_line": 50}, env)
    assert outcome.result == "failure"
    assert outcome.error == "start_line 50 is past the end of mathx/core.py (5 lines)"


def test_read_file_missing_file_fails_clearly(env: ActionEnv) -> None:
    outcome = execute("read_file", {"path": "mathx/nope.py"}, env)
    assert outcome.result == "failure"
    assert outcome.error == "no such file: mathx/nope.py"
    assert_one_line(outcome)


def test_read_file_of_a_directory_or_binary_fails(env: ActionEnv, workspace: Path) -> None:
    assert "is a directory" in (execute("read_file", {"path": "mathx"}, env).error or "")
    (workspace / "blob.bin").write_bytes(b"\x00\x01\x02")
    assert "binary" in (execute("read_file", {"path": "blob.bin"}, env).error or "")


def test_read_file_caps_huge_files_keeping_line_numbers(env: ActionEnv, workspace: Path) -> None:
    (workspace / "big.py").write_text("".join(f"value_{i} = {i}\n" for i in range(1, 5001)))
    output = execute("read_file", {"path": "big.py"}, env).output or ""
    assert len(output) < 25_000
    assert output.splitlines()[0] == "   1| value_1 = 1"
    assert output.splitlines()[-1] == "5000| value_5000 = 5000"
    assert "lines omitted" in output


@pytest.mark.parametrize("path", ["../outside.txt", "/etc/passwd"])
def test_read_file_outside_is_refused(env: ActionEnv, path: str) -> None:
    outcome = execute("read_file", {"path": path}, env)
    assert outcome.result == "refused"
    assert outcome.error and "workspace" in outcome.error
    assert outcome.output is None
    assert_one_line(outcome)


def test_read_file_through_a_symlink_out_is_refused(env: ActionEnv, workspace: Path) -> None:
    (workspace / "peek").symlink_to(workspace.parent, target_is_directory=True)
    outcome = execute("read_file", {"path": "peek/outside.txt"}, env)
    assert outcome.result == "refused"
    assert "symlink" in (outcome.error or "")


# ----------------------------------------------------------------------------- list_dir, search


def test_list_dir_sorted_with_dirs_marked_and_task_folder_hidden(env: ActionEnv) -> None:
    outcome = execute("list_dir", {"path": "."}, env)
    assert outcome.result == "success"
    assert outcome.output == "README.md\ndocs/\nmathx/\ntests/"
    assert outcome.summary == "listed .: 3 dirs, 1 files"


def test_list_dir_failures(env: ActionEnv) -> None:
    assert execute("list_dir", {"path": "nope"}, env).error == "no such directory: nope"
    assert (
        execute("list_dir", {"path": "README.md"}, env).error
        == "README.md is a file (use read_file)"
    )
    assert execute("list_dir", {"path": ".."}, env).result == "refused"


def test_search_gives_path_line_identifiers(env: ActionEnv) -> None:
    outcome = execute("search", {"pattern": r"def \w+\("}, env)
    assert outcome.result == "success"
    assert outcome.output == (
        "mathx/core.py:4: def add(a, b):\n"
        "mathx/util.py:1: def check(x):\n"
        "tests/test_core.py:4: def test_add():"
    )
    assert outcome.summary == r"search /def \w+\(/: 3 matches in 3 files"


def test_search_within_a_path_and_without_matches(env: ActionEnv) -> None:
    scoped = execute("search", {"pattern": "import", "path": "tests"}, env)
    assert scoped.output == "tests/test_core.py:1: from mathx.core import add"
    none = execute("search", {"pattern": "zzz_not_here"}, env)
    assert none.result == "success" and "no matches" in none.summary


def test_search_skips_the_task_folder_and_caps_results(env: ActionEnv, workspace: Path) -> None:
    (workspace / "many.txt").write_text("hit\n" * 150)
    outcome = execute("search", {"pattern": "hit|step"}, env)
    lines = (outcome.output or "").splitlines()
    assert len(lines) == 101
    assert lines[-1] == "... and 50 more matches"
    assert not any(".agentforge" in line for line in lines)


def test_search_does_not_follow_a_directory_link_and_says_so(
    env: ActionEnv, workspace: Path
) -> None:
    (workspace / "alias").symlink_to("mathx", target_is_directory=True)
    outcome = execute("search", {"pattern": "def check"}, env)
    assert outcome.output == (
        "mathx/util.py:1: def check(x):\n"
        "skipped 1 entry: alias -> mathx (link to a directory; walks do not follow directory links)"
    )
    assert outcome.summary.startswith("search /def check/: 1 matches in 1 files; skipped 1 entry")


def test_search_with_a_bad_regex_fails(env: ActionEnv) -> None:
    outcome = execute("search", {"pattern": "(unclosed"}, env)
    assert outcome.result == "failure"
    assert "invalid regex" in (outcome.error or "")


# ----------------------------------------------------------------------------- writes


def test_write_file_creates_with_snapshots(
    env: ActionEnv, workspace: Path, snapshots: SnapshotRecorder
) -> None:
    outcome = execute("write_file", {"path": "pkg/hello.py", "content": "a\nb\nc\n"}, env)
    assert outcome.result == "success"
    assert outcome.summary == "wrote pkg/hello.py (3 lines, new file)"
    assert (workspace / "pkg" / "hello.py").read_text() == "a\nb\nc\n"
    assert outcome.files_changed == ["pkg/hello.py"]
    assert outcome.changed_workspace
    assert snapshots.calls == [("pkg/hello.py", None, "a\nb\nc\n")]
    assert outcome.snapshots == ["snapshots/001-after-pkg__hello.py"]
    assert (snapshots.folder / outcome.snapshots[0]).read_text() == "a\nb\nc\n"


def test_write_file_replacing_snapshots_before_and_after(
    env: ActionEnv, snapshots: SnapshotRecorder
) -> None:
    outcome = execute("write_file", {"path": "README.md", "content": "bye\n"}, env)
    assert outcome.summary == "wrote README.md (1 line)"
    assert snapshots.calls == [("README.md", "hello\n", "bye\n")]
    assert len(outcome.snapshots) == 2


@pytest.mark.parametrize(
    ("action", "args"),
    [
        ("write_file", {"path": "mathx/core.py", "content": "x = 1\n"}),
        ("edit_file", {"path": "mathx/core.py", "old": "def add", "new": "def plus"}),
    ],
)
def test_a_write_is_snapshotted_before_the_file_changes(
    workspace: Path, snapshots: SnapshotRecorder, action: str, args: dict[str, Any]
) -> None:
    """A crash between the two must leave the snapshots (recovery reads them), never a changed
    file without them."""
    original = (workspace / "mathx" / "core.py").read_text()
    seen: list[str] = []

    def snapshot(rel: str, before: str | None, after: str | None) -> list[str]:
        seen.append((workspace / rel).read_text())
        return snapshots(rel, before, after)

    env = make_env(workspace, snapshots)
    env = ActionEnv(workspace=workspace, spec=env.spec, step=7, snapshot=snapshot)
    assert execute(action, args, env).result == "success"
    assert seen == [original]  # the file as it was when the snapshot was taken
    assert (workspace / "mathx" / "core.py").read_text() != original


def test_a_write_that_fails_takes_its_snapshots_back(
    workspace: Path, snapshots: SnapshotRecorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    from forgetui.engine.workspace.safe_write import WriteTarget

    def disk_full(self: WriteTarget, text: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(WriteTarget, "replace", disk_full)
    discarded: list[list[str]] = []
    env = ActionEnv(
        workspace=workspace,
        spec=make_env(workspace, snapshots).spec,
        step=7,
        snapshot=snapshots,
        discard_snapshots=discarded.append,
    )
    outcome = execute("write_file", {"path": "mathx/core.py", "content": "x = 1\n"}, env)
    assert outcome.result == "failure" and not outcome.snapshots
    assert snapshots.calls and discarded == [
        ["snapshots/001-before-mathx__core.py", "snapshots/001-after-mathx__core.py"]
    ]


def test_write_file_with_the_same_content_changes_nothing(
    env: ActionEnv, snapshots: SnapshotRecorder
) -> None:
    outcome = execute("write_file", {"path": "README.md", "content": "hello\n"}, env)
    assert outcome.result == "success"
    assert not outcome.changed_workspace
    assert snapshots.calls == []


@pytest.mark.parametrize(
    "path", ["../escape.py", "/tmp/forgetui-escape.py", ".agentforge/tasks/t1/state.yaml"]
)
def test_write_file_refusals(
    env: ActionEnv, workspace: Path, snapshots: SnapshotRecorder, path: str
) -> None:
    outcome = execute("write_file", {"path": path, "content": "x"}, env)
    assert outcome.result == "refused"
    assert not outcome.changed_workspace
    assert snapshots.calls == []
    assert not (workspace.parent / "escape.py").exists()
    assert not Path("/tmp/forgetui-escape.py").exists()
    assert (workspace / ".agentforge" / "tasks" / "t1" / "state.yaml").read_text() == "step: 0\n"


def test_write_file_through_a_symlink_out_is_refused(env: ActionEnv, workspace: Path) -> None:
    (workspace / "out").symlink_to(workspace.parent, target_is_directory=True)
    outcome = execute("write_file", {"path": "out/planted.py", "content": "x"}, env)
    assert outcome.result == "refused"
    assert not (workspace.parent / "planted.py").exists()


def test_edit_file_replaces_exactly_one_occurrence(
    env: ActionEnv, workspace: Path, snapshots: SnapshotRecorder
) -> None:
    args = {"path": "mathx/core.py", "old": "util.check(a) + b", "new": "a + b"}
    outcome = execute("edit_file", args, env)
    assert outcome.result == "success"
    assert outcome.summary == "edited mathx/core.py at line 5 (-1 +1 lines)"
    assert "return a + b" in (workspace / "mathx" / "core.py").read_text()
    rel, before, after = snapshots.calls[0]
    assert rel == "mathx/core.py"
    assert before and "util.check(a)" in before
    assert after and "util.check(a)" not in after
    assert outcome.files_changed == ["mathx/core.py"]


@pytest.mark.parametrize(("old", "count"), [("not in the file", 0), ("a", 3)])
def test_edit_file_needs_exactly_one_occurrence(
    env: ActionEnv, workspace: Path, snapshots: SnapshotRecorder, old: str, count: int
) -> None:
    (workspace / "x.py").write_text("a = 1\na = 2\na = 3\n")
    outcome = execute("edit_file", {"path": "x.py", "old": old, "new": "b"}, env)
    assert outcome.result == "failure"
    assert f"occurs {count} times" in (outcome.error or "")
    assert (workspace / "x.py").read_text() == "a = 1\na = 2\na = 3\n"
    assert snapshots.calls == []


def test_edit_file_failures(env: ActionEnv) -> None:
    missing = execute("edit_file", {"path": "nope.py", "old": "a", "new": "b"}, env)
    assert missing.error == "no such file: nope.py"
    same = execute("edit_file", {"path": "README.md", "old": "hello", "new": "hello"}, env)
    assert same.result == "failure" and "nothing to change" in (same.error or "")
    empty = execute("edit_file", {"path": "README.md", "old": "", "new": "x"}, env)
    assert empty.result == "failure"
    assert "argument 'old' of 'edit_file' must not be empty" in (empty.error or "")


# ----------------------------------------------------------------------------- commands


def test_run_cmd_success(env: ActionEnv) -> None:
    outcome = execute("run_cmd", {"cmd": "python -c \"print('hi')\""}, env)
    assert outcome.result == "success"
    assert outcome.output == "hi\n"
    assert outcome.summary == "python exited 0: hi"
    assert outcome.command is not None
    assert (outcome.command.cmd, outcome.command.exit_code, outcome.command.step) == (
        "python -c \"print('hi')\"",
        0,
        7,
    )


def test_run_cmd_failure_summarises_pytest(env: ActionEnv) -> None:
    outcome = execute(
        "run_cmd", {"cmd": ["python", "-c", "print('1 failed, 2 passed in 0.1s'); exit(1)"]}, env
    )
    assert outcome.result == "failure"
    assert outcome.summary == "python exited 1: 1 failed, 2 passed"
    assert outcome.error == "exit code 1"


@pytest.mark.parametrize("cmd", ["rm -rf mathx", "pytest; rm -rf mathx", ["bash", "-c", "ls"]])
def test_run_cmd_refusals_are_outcomes(env: ActionEnv, workspace: Path, cmd: Any) -> None:
    outcome = execute("run_cmd", {"cmd": cmd}, env)
    assert outcome.result == "refused"
    assert outcome.summary.startswith("run_cmd refused:")
    assert outcome.command is not None and outcome.command.exit_code is None
    assert (workspace / "mathx" / "core.py").exists()


def test_run_cmd_timeout(env: ActionEnv) -> None:
    env.command_timeout_s = 0.5
    outcome = execute("run_cmd", {"cmd": "python -c 'import time; time.sleep(60)'"}, env)
    assert outcome.result == "failure"
    assert outcome.error == "timed out after 0.5s"
    assert outcome.command is not None and outcome.command.exit_code is None


def test_run_check_returns_the_new_verification(
    workspace: Path, snapshots: SnapshotRecorder
) -> None:
    env = make_env(
        workspace,
        snapshots,
        checks=[
            {"name": "module", "kind": "file_exists", "path": "mathx/__init__.py"},
            {"name": "docs", "kind": "file_exists", "path": "docs/api.md"},
        ],
    )
    outcome = execute("run_check", {}, env)
    assert outcome.result == "success"
    assert outcome.summary == "checks: 1/2 passing (failing: docs)"
    assert outcome.verification is not None
    assert outcome.verification.step == 7
    assert outcome.output and "FAIL docs: docs/api.md does not exist" in outcome.output

    env.verification = outcome.verification
    only = execute("run_check", {"name": "module"}, env)
    assert only.verification is not None and set(only.verification.checks) == {"module", "docs"}


def test_run_check_failures(workspace: Path, snapshots: SnapshotRecorder, env: ActionEnv) -> None:
    unknown = execute("run_check", {"name": "nope"}, env)
    assert unknown.result == "failure" and "checks: tests" in (unknown.error or "")
    bare = make_env(workspace, snapshots)
    assert execute("run_check", {}, bare).error == "this task defines no checks"


# ----------------------------------------------------------------------------- load_context


def test_load_full_file(env: ActionEnv) -> None:
    outcome = execute("load_context", {"item": "full_file:mathx/util.py"}, env)
    assert outcome.result == "success"
    item = outcome.memory_item
    assert item is not None
    assert (item.type, item.key, item.step, item.expires_after_steps) == (
        "loaded_context",
        "full_file:mathx/util.py",
        7,
        3,
    )
    assert item.content == "def check(x):\n    return x\n"
    assert outcome.summary == "loaded full_file:mathx/util.py (2 lines)"


def test_load_full_file_failures(env: ActionEnv) -> None:
    assert (
        execute("load_context", {"item": "full_file:nope.py"}, env).error == "no such file: nope.py"
    )
    assert execute("load_context", {"item": "full_file:../outside.txt"}, env).result == "refused"
    assert execute("load_context", {"item": "full_file"}, env).result == "failure"


def test_load_related_files(env: ActionEnv) -> None:
    outcome = execute("load_context", {"item": "related_files"}, env)
    assert outcome.result == "success"
    assert outcome.memory_item is not None and outcome.memory_item.key == "related_files"
    assert outcome.memory_item.content == (
        "target: mathx/core.py\n"
        "imports: mathx/__init__.py, mathx/util.py\n"
        "imported by: mathx/__init__.py, tests/test_core.py"
    )


def test_load_related_files_needs_a_target(workspace: Path, snapshots: SnapshotRecorder) -> None:
    outcome = execute("load_context", {"item": "related_files"}, make_env(workspace, snapshots))
    assert outcome.result == "failure"
    assert "target_files is empty" in (outcome.error or "")


def test_imported_modules_resolves_relative_imports() -> None:
    text = "import os, json as j\nfrom . import core\nfrom ..shared.io import read, write\n"
    found = imported_modules(text, "pkg/sub/mod.py")
    assert {"os", "json", "pkg.sub", "pkg.sub.core", "pkg.shared.io", "pkg.shared.io.read"} <= found


@pytest.mark.usefixtures("fast_child_pytest")
def test_load_test_output_runs_the_first_command_check(env: ActionEnv) -> None:
    outcome = execute("load_context", {"item": "test_output"}, env)
    assert outcome.result == "success"
    assert outcome.memory_item is not None and outcome.memory_item.key == "test_output"
    assert "1 passed" in str(outcome.memory_item.content)
    assert "pytest exited 0: 1 passed" in outcome.summary


def test_load_test_output_needs_a_command_check(
    workspace: Path, snapshots: SnapshotRecorder
) -> None:
    bare = make_env(workspace, snapshots)
    assert "no command check" in (
        execute("load_context", {"item": "test_output"}, bare).error or ""
    )


def test_load_spec_section_from_a_spec_file(workspace: Path, snapshots: SnapshotRecorder) -> None:
    env = make_env(workspace, snapshots, spec="docs/spec.md")
    by_number = execute("load_context", {"item": "spec_section:2"}, env)
    assert by_number.memory_item is not None
    assert by_number.memory_item.key == "spec_section:2"
    assert by_number.memory_item.content == (
        "## 2. Functions\n### 2.1 add\nadd(a, b) returns the sum.\n\n```\n# not a heading\n```"
    )
    by_name = execute("load_context", {"item": "spec_section:errors"}, env)
    assert by_name.memory_item is not None
    assert by_name.memory_item.content == "## 3. Errors\nRaise ValueError on bad input."


def test_load_spec_section_from_inline_spec_and_inputs(
    workspace: Path, snapshots: SnapshotRecorder
) -> None:
    inputs = workspace / ".agentforge" / "tasks" / "t1" / "artifacts" / "inputs"
    inputs.mkdir(parents=True)
    (inputs / "report.md").write_text("# Violation report\n\n## Details\nline 3 lacks help\n")
    env = make_env(workspace, snapshots, spec="# Inline\n\n## Usage\nrun it\n")
    inline = execute("load_context", {"item": "spec_section:usage"}, env)
    assert inline.memory_item is not None and inline.memory_item.content == "## Usage\nrun it"
    from_inputs = execute("load_context", {"item": "spec_section:Details"}, env)
    assert from_inputs.memory_item is not None
    assert from_inputs.memory_item.content == "## Details\nline 3 lacks help"
    assert "inputs/report.md" in from_inputs.summary


def test_load_spec_section_unknown_lists_the_sections(
    workspace: Path, snapshots: SnapshotRecorder
) -> None:
    env = make_env(workspace, snapshots, spec="docs/spec.md")
    outcome = execute("load_context", {"item": "spec_section:nope"}, env)
    assert outcome.result == "failure"
    assert "no section 'nope' (sections: Mathx, 1. Overview, 2. Functions" in (outcome.error or "")
    bare = execute("load_context", {"item": "spec_section:x"}, make_env(workspace, snapshots))
    assert bare.error == "the task has no spec or input files with sections"


def test_markdown_sections_end_at_the_next_heading_of_the_same_level() -> None:
    titles = [title for title, _ in markdown_sections(SPEC_TEXT)]
    assert titles == ["Mathx", "1. Overview", "2. Functions", "2.1 add", "3. Errors"]


def test_load_error_details(env: ActionEnv) -> None:
    assert execute("load_context", {"item": "error_details"}, env).error == (
        "no error has been recorded yet"
    )
    env.last_error = "Traceback ...\nValueError: bad"
    outcome = execute("load_context", {"item": "error_details"}, env)
    assert outcome.memory_item is not None
    assert outcome.memory_item.content == "Traceback ...\nValueError: bad"


def test_load_context_unknown_item_lists_the_forms(env: ActionEnv) -> None:
    outcome = execute("load_context", {"item": "everything"}, env)
    assert outcome.result == "failure"
    assert "full_file:PATH, related_files" in (outcome.error or "")


# ----------------------------------------------------------------------------- note


def test_note_is_returned_for_the_scratchpad(env: ActionEnv) -> None:
    outcome = execute("note", {"text": "  util.check is a no-op; inline it  "}, env)
    assert outcome.result == "success"
    assert outcome.note == "util.check is a no-op; inline it"
    assert outcome.summary == "noted: util.check is a no-op; inline it"
    assert not outcome.changed_workspace


# ----------------------------------------------------------------------------- arguments


@pytest.mark.parametrize(
    ("action", "args", "message"),
    [
        ("fly", {}, "unknown action 'fly'"),
        ("read_file", {}, "missing required argument(s) 'path' for 'read_file'"),
        (
            "read_file",
            {"path": "a", "colour": "red"},
            "unknown argument(s) 'colour' for 'read_file'",
        ),
        ("read_file", {"path": " "}, "argument 'path' of 'read_file' must not be empty"),
        (
            "read_file",
            {"path": "a", "start_line": 0},
            "argument 'start_line' of 'read_file' must be a line number (1 or more), got 0",
        ),
        ("read_file", {"path": "a", "start_line": True}, "must be an integer, got True"),
        ("read_file", {"path": "a", "start_line": 5, "end_line": 2}, "end_line 2 is before"),
        (
            "write_file",
            {"path": "a", "content": ["x"]},
            "'content' of 'write_file' must be a string",
        ),
        ("run_cmd", {"cmd": []}, "argument 'cmd' of 'run_cmd' must be a command string"),
        ("complete", {"summary": " "}, "argument 'summary' of 'complete' must not be empty"),
        ("complete", {"summary": None}, "missing required argument(s) 'summary'"),
        (
            "escalate",
            {"question": "?", "options": {"a": "b"}},
            "'options' of 'escalate' must be a list",
        ),
        ("mark_subtask_complete", {"success": "maybe", "reason": "x"}, "must be true or false"),
        ("set_plan", {"plan": "do it"}, "argument 'plan' of 'set_plan' must be a mapping"),
        (
            "set_plan",
            {"plan": {"tasks": []}},
            "argument 'plan' of 'set_plan' is not a valid plan: goal: Field required",
        ),
    ],
)
def test_invalid_arguments_are_named(action: str, args: dict[str, Any], message: str) -> None:
    with pytest.raises(ActionArgsError, match=re.escape(message)):
        validate_args(action, args)


def test_arguments_are_normalised() -> None:
    assert validate_args("read_file", {"path": "a", "start_line": "3", "end_line": None}) == {
        "path": "a",
        "start_line": 3,
    }
    assert validate_args("read_file", {"path": "a", "end_line": 7.0}) == {
        "path": "a",
        "end_line": 7,
    }
    for word, flag in (("true", True), ("on", True), ("1", True), (0, False), ("No", False)):
        args = {"success": word, "reason": "done"}
        assert validate_args("mark_subtask_complete", args) == {"success": flag, "reason": "done"}
    plan = {"goal": "g", "tasks": [{"title": "t", "subtasks": [{"title": "s"}]}]}
    assert validate_args("set_plan", {"plan": plan}) == {"plan": plan}
    assert validate_args("set_plan", {"plan": json.dumps(plan)}) == {"plan": plan}
    assert validate_args("escalate", {"question": "which?", "options": ["a", "b"]})["options"] == [
        "a",
        "b",
    ]
    # a scalar where a list or a string is expected is what the model obviously meant
    assert validate_args("escalate", {"question": "?", "options": "a, b"})["options"] == ["a, b"]
    assert validate_args("write_file", {"path": "a", "content": 3})["content"] == "3"


def test_invalid_arguments_through_execute_are_a_failure(env: ActionEnv) -> None:
    outcome = execute("read_file", {"file": "a.py"}, env)
    assert outcome.result == "failure"
    assert "missing argument 'path'" in (outcome.error or "") or "unknown argument" in (
        outcome.error or ""
    )
    assert execute("teleport", {}, env).result == "failure"


def test_action_signature_is_canonical() -> None:
    one = action_signature("read_file", {"path": "a.py", "start_line": 1})
    two = action_signature("read_file", {"start_line": 1, "path": "a.py", "end_line": None})
    assert one == two == 'read_file({"path":"a.py","start_line":1})'
    assert action_signature("read_file", {"path": "b.py"}) != action_signature(
        "read_file", {"path": "a.py"}
    )
    assert action_signature("note", {"text": "é"}) == 'note({"text":"é"})'


# ----------------------------------------------------------------------------- one rule

# (action, args, None if accepted else a piece of the error): the parser and the executor read
# the same table, so each input is accepted or refused by both, with the same message.
AGREEMENT: list[tuple[str, dict[str, Any], str | None]] = [
    ("read_file", {"path": "mathx/core.py", "start_line": "2", "end_line": 3.0}, None),
    ("read_file", {"path": "mathx/core.py", "end_line": None}, None),
    ("read_file", {"path": "mathx/core.py", "start_line": 0}, "must be a line number"),
    ("read_file", {"path": "mathx/core.py", "start_line": "two"}, "must be an integer"),
    ("read_file", {"path": "mathx/core.py", "start_line": 3, "end_line": 2}, "is before"),
    ("read_file", {"path": ""}, "must not be empty"),
    ("list_dir", {"path": "."}, None),
    ("search", {"pattern": 42}, None),
    ("search", {"pattern": ["def"]}, "must be a string"),
    ("write_file", {"path": "notes.txt", "content": 3}, None),
    ("edit_file", {"path": "README.md", "old": "", "new": "x"}, "must not be empty"),
    ("run_cmd", {"cmd": []}, "must be a command string"),
    ("run_check", {"name": " "}, "must not be empty"),
    ("load_context", {"item": "error_details", "extra": 1}, "unknown argument(s) 'extra'"),
    ("note", {"text": True}, None),
    ("note", {"text": "  "}, "must not be empty"),
    ("mark_subtask_complete", {"success": "on", "reason": "done"}, None),
    ("mark_subtask_complete", {"success": 1, "reason": 42}, None),
    ("mark_subtask_complete", {"success": "maybe", "reason": "x"}, "must be true or false"),
    ("escalate", {"question": "which?", "options": "A"}, None),
    ("escalate", {"question": "which?", "options": {"a": 1}}, "must be a list of strings"),
    ("set_plan", {"plan": '{"goal": "g", "tasks": []}'}, None),
    ("set_plan", {"plan": {"tasks": []}}, "is not a valid plan"),
    ("complete", {"summary": None}, "missing required argument(s) 'summary'"),
    ("complete", "done", "must be a mapping"),
]


@pytest.mark.parametrize(("action", "args", "problem"), AGREEMENT)
def test_parser_and_executor_agree_on_arguments(
    env: ActionEnv, action: str, args: Any, problem: str | None
) -> None:
    parsed = validate_action(action, args)
    error: str | None = None
    if action in CONTROL_ACTIONS:  # the executor checks these with validate_args, then runs them
        try:
            validate_args(action, args)
        except ActionArgsError as exc:
            error = exc.message
    else:
        outcome = execute(action, args, env)
        error = None if outcome.result == "success" else outcome.error
    if problem is None:
        assert (parsed.error, error) == (None, None)
    else:
        assert parsed.error is not None and problem in parsed.error
        assert error == parsed.error
