"""File actions against a hostile workspace: hard links and symlinks planted to reach files
outside, a directory swapped for a symlink while writes run, symlink loops and unreadable
entries in walks, and a regex that backtracks for ever."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from forgetui.engine.actions import ActionEnv, ActionOutcome, execute
from forgetui.engine.actions import files as file_actions
from forgetui.engine.base import timed_regex
from forgetui.engine.checks.verify import run_checks
from forgetui.engine.context.target_files import target_files
from forgetui.engine.folder.task_spec import TaskSpec
from forgetui.engine.folder.task_state import Verification
from forgetui.engine.workspace import safe_write

SECRET = b"outside secret\n"


class Snapshots:
    def __init__(self) -> None:
        self.calls: list[tuple[str, str | None, str | None]] = []

    def __call__(self, rel: str, before: str | None, after: str | None) -> list[str]:
        self.calls.append((rel, before, after))
        return []


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.txt").write_bytes(SECRET)
    return folder


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "lib").mkdir(parents=True)
    (root / "lib" / "real.py").write_text("value = 1\n")
    (root / ".agentforge" / "tasks" / "t1").mkdir(parents=True)
    (root / ".agentforge" / "tasks" / "t1" / "state.yaml").write_text("step: 0\n")
    return root


@pytest.fixture
def snapshots() -> Snapshots:
    return Snapshots()


def make_env(workspace: Path, snapshots: Snapshots, **spec: Any) -> ActionEnv:
    fields = {"id": "t1", "goal": "g", **spec}
    return ActionEnv(
        workspace=workspace, spec=TaskSpec.model_validate(fields), step=1, snapshot=snapshots
    )


@pytest.fixture
def env(workspace: Path, snapshots: Snapshots) -> ActionEnv:
    return make_env(workspace, snapshots)


def files_under(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))


def write(env: ActionEnv, path: str, content: str = "pwned\n") -> ActionOutcome:
    return execute("write_file", {"path": path, "content": content}, env)


def edit(env: ActionEnv, path: str) -> ActionOutcome:
    return execute("edit_file", {"path": path, "old": "secret", "new": "pwned"}, env)


# ----------------------------------------------------------------------------- planted links


def test_a_hard_link_to_an_outside_file_is_never_written(
    env: ActionEnv, workspace: Path, outside: Path, snapshots: Snapshots
) -> None:
    os.link(outside / "secret.txt", workspace / "planted.txt")
    for outcome in (write(env, "planted.txt"), edit(env, "planted.txt")):
        assert outcome.result == "refused"
        assert outcome.error == (
            "path 'planted.txt' has 2 hard links; "
            "forgetui will not write a file shared with another path"
        )
    assert (outside / "secret.txt").read_bytes() == SECRET
    assert (workspace / "planted.txt").read_bytes() == SECRET
    assert snapshots.calls == []


def test_a_symlinked_directory_out_of_the_workspace_is_not_written_through(
    env: ActionEnv, workspace: Path, outside: Path
) -> None:
    (workspace / "out").symlink_to(outside, target_is_directory=True)
    outcomes = [
        write(env, "out/new.py"),
        write(env, "out/secret.txt"),
        edit(env, "out/secret.txt"),
        write(env, "out/deeper/new.py"),
    ]
    for outcome in outcomes:
        assert outcome.result == "refused"
        assert outcome.error and "goes through a symlink (out -> " in outcome.error
        assert "writes do not follow links" in outcome.error
    assert files_under(outside) == ["secret.txt"]
    assert (outside / "secret.txt").read_bytes() == SECRET


def test_a_symlinked_file_is_not_written_through(
    env: ActionEnv, workspace: Path, outside: Path
) -> None:
    (workspace / "link.txt").symlink_to(outside / "secret.txt")
    for outcome in (write(env, "link.txt"), edit(env, "link.txt")):
        assert outcome.result == "refused"
        assert outcome.error and outcome.error.startswith("path 'link.txt' is a symlink (-> ")
    assert (outside / "secret.txt").read_bytes() == SECRET
    assert (workspace / "link.txt").is_symlink()


def test_links_inside_the_workspace_are_refused_naming_the_real_path(
    env: ActionEnv, workspace: Path
) -> None:
    (workspace / "alias.py").symlink_to("lib/real.py")
    (workspace / "src").symlink_to("lib", target_is_directory=True)
    file_link = write(env, "alias.py")
    assert file_link.result == "refused"
    assert file_link.error == (
        "path 'alias.py' is a symlink (-> lib/real.py): writes do not follow links; "
        "write lib/real.py instead"
    )
    dir_link = write(env, "src/real.py")
    assert dir_link.error == (
        "path 'src/real.py' goes through a symlink (src -> lib): writes do not follow links; "
        "write lib/real.py instead"
    )
    assert (workspace / "lib" / "real.py").read_text() == "value = 1\n"
    # reads still follow a link that stays inside
    assert execute("read_file", {"path": "alias.py"}, env).result == "success"
    assert write(env, "lib/real.py", "value = 2\n").result == "success"


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("../escape.py", "escapes the workspace (..)"),
        ("lib/../../escape.py", "escapes the workspace (..)"),
        ("lib/../real.py", "contains '..'"),
        ("/tmp/forgetui-escape.py", "is an absolute path outside the workspace"),
        (".agentforge/tasks/t1/state.yaml", "the task's own state"),
        ("./.agentforge/new.yaml", "the task's own state"),
    ],
)
def test_paths_leaving_the_workspace_or_into_the_task_folder_are_refused(
    env: ActionEnv, workspace: Path, snapshots: Snapshots, path: str, reason: str
) -> None:
    before = files_under(workspace.parent)
    for outcome in (write(env, path), edit(env, path)):
        assert outcome.result == "refused"
        assert reason in (outcome.error or "")
    assert files_under(workspace.parent) == before
    assert not Path("/tmp/forgetui-escape.py").exists()
    assert (workspace / ".agentforge" / "tasks" / "t1" / "state.yaml").read_text() == "step: 0\n"
    assert snapshots.calls == []


def test_an_absolute_path_inside_the_workspace_is_written_there(
    env: ActionEnv, workspace: Path
) -> None:
    outcome = write(env, str(workspace / "pkg" / "new.py"), "x = 1\n")
    assert outcome.summary == "wrote pkg/new.py (1 line, new file)"
    assert (workspace / "pkg" / "new.py").read_text() == "x = 1\n"


def test_a_write_keeps_the_mode_snapshots_what_it_replaced_and_leaves_no_temp_file(
    env: ActionEnv, workspace: Path, snapshots: Snapshots
) -> None:
    script = workspace / "run.sh"
    script.write_text("echo old\n")
    script.chmod(0o750)
    assert write(env, "run.sh", "echo new\n").result == "success"
    assert edit(env, "run.sh").result == "failure"  # no "secret" in it: exactly-once rule
    assert stat.S_IMODE(script.stat().st_mode) == 0o750
    assert script.read_text() == "echo new\n"
    assert snapshots.calls == [("run.sh", "echo old\n", "echo new\n")]
    assert sorted(os.listdir(workspace)) == [".agentforge", "lib", "run.sh"]


def test_a_write_that_fails_midway_leaves_the_file_and_no_temp_file(
    env: ActionEnv, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def disk_error(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(safe_write.os, "fsync", disk_error)
    outcome = write(env, "lib/real.py", "value = 2\n")
    assert outcome.result == "failure"
    assert outcome.error == "Input/output error"
    assert (workspace / "lib" / "real.py").read_text() == "value = 1\n"
    assert os.listdir(workspace / "lib") == ["real.py"]


def test_content_that_is_not_text_is_a_failure_not_a_crash(env: ActionEnv, workspace: Path) -> None:
    outcome = write(env, "lib/real.py", "value = '\ud800'\n")
    assert outcome.result == "failure"
    assert "unpaired surrogate" in (outcome.error or "")
    assert os.listdir(workspace / "lib") == ["real.py"]


# ----------------------------------------------------------------------------- the race

SWAPPER = textwrap.dedent(
    """
    import ctypes, os, sys
    libc = ctypes.CDLL(None, use_errno=True)
    a, b, stop = sys.argv[1].encode(), sys.argv[2].encode(), sys.argv[3]
    swaps = 0
    print("ready", flush=True)
    while not os.path.exists(stop):
        for _ in range(200):
            # RENAME_EXCHANGE: the two names trade places atomically, no gap
            if libc.renameat2(-100, a, -100, b, 2) != 0:
                sys.exit("renameat2: " + os.strerror(ctypes.get_errno()))
            swaps += 1
    print(swaps, flush=True)
    """
)


def test_a_directory_swapped_for_a_symlink_during_writes_never_lets_one_out(
    env: ActionEnv, workspace: Path, outside: Path, tmp_path: Path
) -> None:
    """A separate process swaps ws/sub (a real directory) with ws/swap (a symlink to outside)
    as fast as it can while 400 writes to sub/f.txt run: each write lands in the real
    directory or is refused, and nothing ever appears outside."""
    (workspace / "sub").mkdir()
    (workspace / "swap").symlink_to(outside, target_is_directory=True)
    stop = tmp_path / "stop"
    swapper = subprocess.Popen(
        [sys.executable, "-c", SWAPPER, workspace / "sub", workspace / "swap", stop],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert swapper.stdout is not None
        assert swapper.stdout.readline() == "ready\n", swapper.stderr
        results: dict[str, int] = {}
        last_landed = None
        for index in range(400):
            outcome = write(env, "sub/f.txt", f"write {index}\n")
            results[outcome.result] = results.get(outcome.result, 0) + 1
            if outcome.result == "success":
                last_landed = index
            else:
                assert outcome.result == "refused", outcome.error
                assert "writes do not follow links" in (outcome.error or "")
    finally:
        stop.touch()
        out, err = swapper.communicate(timeout=30)
    assert swapper.returncode == 0, err
    print(f"\nrace: {results} over {out.strip()} swaps")
    assert sum(results.values()) == 400
    assert files_under(outside) == ["secret.txt"]
    assert (outside / "secret.txt").read_bytes() == SECRET
    real = next(p for p in (workspace / "sub", workspace / "swap") if not p.is_symlink())
    if last_landed is None:
        assert os.listdir(real) == []
    else:
        assert os.listdir(real) == ["f.txt"]  # and no temp file left behind
        assert (real / "f.txt").read_text() == f"write {last_landed}\n"


# ----------------------------------------------------------------------------- loops


@pytest.fixture
def looped(workspace: Path, snapshots: Snapshots) -> ActionEnv:
    """ws/loop -> loop and ws/a/b -> ../a, around ordinary files."""
    (workspace / "a").mkdir()
    (workspace / "a" / "mod.py").write_text("from lib import real\nneedle = 1\n")
    (workspace / "lib" / "real.py").write_text("needle = 2\n")
    (workspace / "loop").symlink_to("loop")
    (workspace / "a" / "b").symlink_to("../a", target_is_directory=True)
    return make_env(workspace, snapshots, target_files=["lib/real.py"])


def test_search_skips_symlink_loops_and_says_so(looped: ActionEnv) -> None:
    outcome = execute("search", {"pattern": "needle"}, looped)
    assert outcome.result == "success"
    assert outcome.summary.startswith("search /needle/: 2 matches in 2 files; skipped 2 entries")
    assert (outcome.output or "").splitlines() == [
        "a/mod.py:2: needle = 1",
        "lib/real.py:1: needle = 2",
        "skipped 2 entries: a/b -> ../a (symlink loop); loop -> loop (symlink loop)",
    ]


def test_search_names_broken_links_and_links_out(
    env: ActionEnv, workspace: Path, outside: Path
) -> None:
    (workspace / "broken").symlink_to("nowhere")
    (workspace / "lib" / "peek.txt").symlink_to(outside / "secret.txt")
    outcome = execute("search", {"pattern": "secret"}, env)
    assert outcome.result == "success"
    assert "no matches" in outcome.summary
    assert outcome.output == (
        "skipped 2 entries: broken -> nowhere (broken symlink); "
        f"lib/peek.txt -> {outside / 'secret.txt'} (points outside the workspace)"
    )


def test_target_files_glob_and_a_looping_target_do_not_crash_the_context(
    looped: ActionEnv,
) -> None:
    element = target_files(looped.workspace, ["**/*.py", "loop"], lambda elastic: 0)
    assert element is not None
    shown = [
        (dict(item.attrs).get("path"), dict(item.attrs).get("status")) for item in element.items
    ]
    assert shown == [
        ("a/mod.py", None),
        ("lib/real.py", None),
        ("loop", "symlink loop"),
        (None, None),
    ]
    assert element.items[-1].text == (
        "skipped 2 entries: a/b -> ../a (symlink loop); loop -> loop (symlink loop)"
    )


LOOP_NOTE = "skipped 1 entry: loop -> loop (symlink loop)"


def test_list_dir_skips_a_symlink_loop_and_says_so(looped: ActionEnv) -> None:
    outcome = execute("list_dir", {"path": "."}, looped)
    assert outcome.result == "success"
    assert outcome.output == f"a/\nlib/\n{LOOP_NOTE}"
    assert outcome.summary == f"listed .: 2 dirs, 0 files; {LOOP_NOTE}"


def test_related_files_skips_symlink_loops_and_says_so(looped: ActionEnv) -> None:
    outcome = execute("load_context", {"item": "related_files"}, looped)
    assert outcome.result == "success"
    assert outcome.output == (
        "target: lib/real.py\n"
        "imports: (none in the workspace)\n"
        "imported by: a/mod.py\n"
        "skipped 2 entries: a/b -> ../a (symlink loop); loop -> loop (symlink loop)"
    )


def test_regex_and_file_exists_checks_skip_symlink_loops_and_say_so(looped: ActionEnv) -> None:
    spec = TaskSpec.model_validate(
        {
            "id": "t1",
            "goal": "g",
            "checks": [
                {"name": "r", "kind": "regex", "path": "**/*.py", "must_match": "^needle = 2"},
                {"name": "f", "kind": "file_exists", "path": "**/*.py"},
            ],
        }
    )
    checks = run_checks(spec, looped.workspace, Verification(), step=1).checks
    note = "skipped 2 entries: a/b -> ../a (symlink loop); loop -> loop (symlink loop)"
    assert checks["r"].passing
    assert checks["r"].details == f"/^needle = 2/ found at lib/real.py:1; {note}"
    assert checks["f"].passing
    assert checks["f"].details == f"a/mod.py, lib/real.py exists; {note}"


def test_a_named_pipe_never_hangs_a_read_a_search_or_a_write(
    env: ActionEnv, workspace: Path
) -> None:
    """Opening a FIFO for reading blocks until a writer comes: none of these may open it."""
    os.mkfifo(workspace / "lib" / "pipe")
    search = execute("search", {"pattern": "value"}, env)
    assert (
        search.output == "lib/real.py:1: value = 1\nskipped 1 entry: lib/pipe (not a regular file)"
    )
    read = execute("read_file", {"path": "lib/pipe"}, env)
    assert read.error == "lib/pipe is not a regular file (a pipe, socket or device)"
    written = write(env, "lib/pipe")
    assert written.result == "refused"
    assert written.error == (
        "path 'lib/pipe' is not a regular file; forgetui writes only regular files"
    )


# ----------------------------------------------------------------------------- unreadable

UNREADABLE_PROBE = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    from forgetui.engine.actions import ActionEnv, execute
    from forgetui.engine.folder.task_state import Verification
    from forgetui.engine.folder.task_spec import TaskSpec
    from forgetui.engine.checks.verify import run_checks
    ws = Path(sys.argv[1])
    spec = TaskSpec.model_validate({
        "id": "t", "goal": "g", "target_files": ["mod.py"],
        "checks": [{"name": "r", "kind": "regex", "path": "**/*.py", "must_match": "needle"}],
    })
    env = ActionEnv(workspace=ws, spec=spec, step=1, snapshot=lambda *a: [])
    search = execute("search", {"pattern": "needle"}, env)
    related = execute("load_context", {"item": "related_files"}, env)
    check = run_checks(spec, ws, Verification(), step=1).checks["r"]
    print(json.dumps({
        "search": [search.result, search.summary, search.output],
        "related": [related.result, related.output],
        "check": [check.passing, check.details],
    }))
    """
)


def test_unreadable_directories_and_files_are_skipped_and_named(tmp_path: Path) -> None:
    """Root reads through permission bits, so when running as root the probe runs in bwrap
    with every capability dropped: uid 0 without CAP_DAC_OVERRIDE obeys mode 000."""
    prefix: list[str] = []
    if os.geteuid() == 0:
        bwrap = shutil.which("bwrap")
        if bwrap is None:
            pytest.skip("running as root and bwrap is missing: mode 000 cannot stop root")
        prefix = [bwrap, "--bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        prefix += ["--cap-drop", "ALL", "--"]
    ws = tmp_path / "ws"
    (ws / "closed").mkdir(parents=True)
    (ws / "closed" / "hidden.py").write_text("needle = 0\n")
    (ws / "mod.py").write_text("import locked\nneedle = 1\n")
    (ws / "locked.py").write_text("import mod\nneedle = 2\n")
    (ws / "closed").chmod(0)
    (ws / "locked.py").chmod(0)
    try:
        probe = subprocess.run(
            [*prefix, sys.executable, "-c", UNREADABLE_PROBE, str(ws)],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=Path(__file__).parents[2],
        )
    finally:
        (ws / "closed").chmod(0o755)
        (ws / "locked.py").chmod(0o644)
    assert probe.returncode == 0, probe.stderr
    seen = json.loads(probe.stdout)
    note = (
        "skipped 2 entries: closed (unreadable directory: Permission denied); "
        "locked.py (unreadable: Permission denied)"
    )
    assert seen["search"] == [
        "success",
        f"search /needle/: 1 matches in 1 files; {note}",
        f"mod.py:2: needle = 1\n{note}",
    ]
    assert seen["related"] == [
        "success",
        f"target: mod.py\nimports: locked.py\nimported by: (none)\n{note}",
    ]
    assert seen["check"] == [True, f"/needle/ found at mod.py:2; {note}"]


# ----------------------------------------------------------------------------- slow patterns

SLOW_LINE = "a" * 30 + "b"


@pytest.fixture
def short_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """Half a second instead of two, to keep the suite quick; the outcome is the same."""
    monkeypatch.setattr(file_actions, "SEARCH_BUDGET_S", 0.5)
    monkeypatch.setattr(timed_regex, "DEFAULT_BUDGET_S", 0.5)


def test_a_backtracking_pattern_gives_up_with_a_reason(
    env: ActionEnv, workspace: Path, short_budget: None
) -> None:
    (workspace / "src").mkdir()
    (workspace / "src" / "x.py").write_text(f"{SLOW_LINE}\n")
    # The `regex` engine answers the classic (a+)+$ at once; overlapping alternatives defeat it.
    quick = execute("search", {"pattern": "(a+)+$"}, env)
    assert quick.result == "success" and "no matches" in quick.summary
    slow = execute("search", {"pattern": "(a|a)+$"}, env)
    assert slow.result == "failure"
    assert slow.error == (
        "pattern too slow: /(a|a)+$/ gave up after 0.5 s in src/x.py; "
        "simplify it (avoid nested quantifiers and overlapping alternatives)"
    )
    found = execute("search", {"pattern": r"a{30}b$"}, env)
    assert found.output == f"src/x.py:1: {SLOW_LINE}"


def test_a_backtracking_regex_check_fails_with_a_reason(
    workspace: Path, short_budget: None
) -> None:
    (workspace / "x.py").write_text(f"{SLOW_LINE}\n")
    spec = TaskSpec.model_validate(
        {
            "id": "t1",
            "goal": "g",
            "checks": [
                {"name": "slow", "kind": "regex", "path": "x.py", "must_not_match": "(a|a)+$"},
                {"name": "fine", "kind": "regex", "path": "x.py", "must_match": "a+b$"},
            ],
        }
    )
    checks = run_checks(spec, workspace, Verification(), step=1).checks
    assert not checks["slow"].passing
    assert checks["slow"].details.startswith("pattern too slow: /(a|a)+$/ gave up after 0.5 s")
    assert "in x.py" in checks["slow"].details
    assert checks["fine"].passing
