"""Hostile or damaged task files: every YAML read is bounded (no alias bomb expands,
no nesting overflows libyaml, no file is read past 16 MiB, no FIFO blocks), every refusal is
one line naming the file, and every writer lets go of the lock whatever raised."""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from forgetui.engine.base import yamlio
from forgetui.engine.base.errors import ForgeError, LockHeldError, StateFileError
from forgetui.engine.folder import consistency
from forgetui.engine.folder.action_log import ActionLog, encode_record
from forgetui.engine.folder.lock import TaskLock
from forgetui.engine.folder.records import IntentRecord, OperatorRecord, ResultRecord
from forgetui.engine.folder.task_folder import TaskFolder
from forgetui.engine.folder.task_state import TaskState
from forgetui.engine.operator import verbs as operator
from forgetui.engine.step.executor import Executor
from tests.engine.helpers import act, make_task, replay

ROOT = Path(__file__).resolve().parents[2]


def billion_laughs(key: str = "lol", levels: int = 9) -> str:
    """The classic shape: each level is nine aliases of the one before; ~0.6 KB on disk, 9**9
    strings once expanded."""
    lines = [f'{key}0: &{key}0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for n in range(1, levels):
        prev = f"*{key}{n - 1}"
        lines.append(f"{key}{n}: &{key}{n} [{', '.join([prev] * 9)}]")
    return "\n".join(lines) + "\n"


def stepped(tmp_path: Path, steps: int = 2) -> TaskFolder:
    """A task that ran `steps` steps of a three-step script."""
    folder = make_task(
        tmp_path,
        [
            act("write_file", path="out.txt", content="hi\n"),
            act("list_dir", path="."),
            act("complete", summary="done"),
        ],
    )
    with Executor(folder, replay(folder)) as executor:
        for _ in range(steps):
            executor.step()
    return folder


def files_of(path: Path) -> dict[str, bytes]:
    return {p.relative_to(path).as_posix(): p.read_bytes() for p in path.rglob("*") if p.is_file()}


def assert_unlocked(path: Path) -> None:
    assert not (path / "lock").exists()
    assert not list(path.glob(".lock.*")), list(path.glob(".lock.*"))
    assert TaskLock(path).holder() is None


def _python(code: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    """Run code in a fresh interpreter: a bound that broke would hang or kill that process, not
    the test run (the timeout raises)."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
    )


# -- the one YAML reader ---------------------------------------------------------------------


@pytest.mark.parametrize("aliases", [False, True])
def test_an_alias_bomb_is_refused_before_anything_is_built(tmp_path: Path, aliases: bool) -> None:
    path = tmp_path / "state.yaml"
    path.write_text("task_id: t\n" + billion_laughs())
    proc = _python(
        f"""
        from pathlib import Path
        from forgetui.engine.base.yamlio import parse_yaml
        from forgetui.engine.base.errors import StateFileError
        path = Path({str(path)!r})
        try:
            parse_yaml(path.read_text(), path, aliases={aliases})
        except StateFileError as exc:
            print(exc)
        """
    )
    assert proc.returncode == 0, proc.stderr
    if aliases:  # a replay script may alias, but not this much
        assert (
            proc.stdout.strip()
            == f"{path}:8: YAML aliases here would expand to over 1,000,000 values"
        )
    else:
        assert proc.stdout.strip() == (
            f"{path}:2: YAML anchors and aliases are not allowed in forgetui's files"
        )


def test_anchors_inside_strings_are_text_not_syntax() -> None:
    text = "a: 'x &y *z'\nb: x & y * z\nc: \"&anchor *alias\"\nd: |\n  &not *either\n"
    assert yamlio.safe_load(text) == {
        "a": "x &y *z",
        "b": "x & y * z",
        "c": "&anchor *alias",
        "d": "&not *either\n",
    }


def test_a_replay_script_may_repeat_a_response_by_alias() -> None:
    """PyYAML writes `&id001` for a response used twice: that small expansion is fine."""
    response = {"action": "list_dir", "args": {"path": "."}}
    text = yaml.safe_dump([response, response, response])
    assert "&id001" in text
    assert yamlio.parse_yaml(text, Path("replay.yaml"), aliases=True) == [response] * 3
    with pytest.raises(StateFileError, match="anchors and aliases are not allowed"):
        yamlio.parse_yaml(text, Path("state.yaml"))


def test_an_alias_loop_is_refused() -> None:
    with pytest.raises(StateFileError, match=r"replay.yaml:1: a YAML alias inside the node"):
        yamlio.parse_yaml("a: &a [1, *a]\n", Path("replay.yaml"), aliases=True)


def test_forgetui_never_writes_an_anchor() -> None:
    shared = {"path": "a.py"}
    text = yamlio.dump_yaml({"one": shared, "two": shared, "list": [shared, shared]})
    assert "&" not in text and "*" not in text
    assert yamlio.safe_load(text)["list"] == [shared, shared]


def _bounded(memory_bytes: int, cpu_s: int) -> Callable[[], None]:
    """A child's limits: past them the kernel kills it (SIGXCPU, or a MemoryError that is not
    the one line asserted), so a parser gone quadratic or a runaway build fails the test rather
    than the machine."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s))

    return limit


@pytest.mark.parametrize("depth", [300, 1_000_000])
@pytest.mark.parametrize("command", ["run", "status"])
def test_deep_nesting_is_one_line_not_a_segfault(tmp_path: Path, depth: int, command: str) -> None:
    """libyaml's composer overflows the C stack near 30,000 levels (the process dies) and its
    parser slows quadratically with depth. 300 levels passes libyaml's own bound and meets
    forgetui's; a million meets whichever bound comes first. Either way the user sees the same
    thing: one line naming the file, exit 2, the task as it was and unlocked."""
    folder = stepped(tmp_path)
    path = folder.path / "working_memory.yaml"
    path.write_text("items: " + "[" * depth + "]" * depth + "\n")
    before = files_of(folder.path)
    model = ["--model", "replay"] if command == "run" else []
    proc = subprocess.run(
        [sys.executable, "-m", "forgetui", command, str(folder.path), *model],
        capture_output=True,
        text=True,
        timeout=120,  # a hang guard, not a measurement: the CPU limit fails it far sooner
        cwd=ROOT,
        env={**os.environ, "FORGETUI_HOME": str(tmp_path / "home"), "NO_COLOR": "1"},
        preexec_fn=_bounded(memory_bytes=1 << 30, cpu_s=60),
    )
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr[-2000:]
    assert lines[0].startswith(f"forgetui: {path}:1: "), lines[0]
    assert_unlocked(folder.path)
    assert files_of(folder.path) == before


def test_a_file_over_the_limit_is_refused_without_reading_it(tmp_path: Path) -> None:
    path = tmp_path / "state.yaml"
    with open(path, "wb") as handle:
        handle.truncate(yamlio.MAX_YAML_BYTES + 1)  # sparse: nothing to read, in any case
    with pytest.raises(StateFileError) as caught:
        yamlio.load_model(path, TaskState)
    assert str(caught.value) == (
        f"{path}: 16,777,217 bytes, over the 16 MiB forgetui reads: not a file forgetui wrote"
    )


def test_not_utf8_names_the_byte_and_its_offset(tmp_path: Path) -> None:
    path = tmp_path / "state.yaml"
    path.write_bytes(b"task_id: t\nphase: \xffexecution\n")
    with pytest.raises(StateFileError) as caught:
        yamlio.load_model(path, TaskState)
    assert str(caught.value) == f"{path}: not UTF-8 text: byte 0xff at offset 18"


def test_a_directory_or_a_fifo_in_a_files_place(tmp_path: Path) -> None:
    (tmp_path / "state.yaml").mkdir()
    with pytest.raises(StateFileError) as caught:
        yamlio.load_model(tmp_path / "state.yaml", TaskState)
    assert str(caught.value) == f"{tmp_path / 'state.yaml'}: a directory where a file should be"
    fifo = tmp_path / "memory.yaml"
    os.mkfifo(fifo)  # reading it would wait for a writer forever
    proc = _python(
        f"""
        from pathlib import Path
        from forgetui.engine.folder.memory import WorkingMemory
        from forgetui.engine.base.yamlio import load_model
        from forgetui.engine.base.errors import StateFileError
        try:
            load_model(Path({str(fifo)!r}), WorkingMemory)
        except StateFileError as exc:
            print(exc)
        """
    )
    assert proc.stdout.strip() == f"{fifo}: not a regular file"


def test_empty_state_files_are_errors_but_a_fresh_task_writes_none(tmp_path: Path) -> None:
    folder = make_task(tmp_path, [])
    for name in ("state.yaml", "working_memory.yaml", "task.yaml"):
        assert (folder.path / name).stat().st_size > 0, name
    (folder.path / "working_memory.yaml").write_bytes(b"")
    with pytest.raises(StateFileError) as caught:
        folder.load_memory()
    assert str(caught.value) == (
        f"{folder.path / 'working_memory.yaml'}: empty (0 bytes): it was truncated; "
        f"`forgetui repair {folder.path}` can rewrite it"
    )
    (folder.path / "state.yaml").write_text("# nothing\n\n")
    with pytest.raises(StateFileError, match=r"state.yaml: holds no YAML \(11 bytes\)"):
        folder.load_state()


def test_every_yaml_load_goes_through_yamlio() -> None:
    """One reader, so the bounds hold everywhere. context/validate.py re-reads forgetui's own
    rendering of the context (written by forgetui's dumper: no anchors), nothing foreign."""
    pattern = re.compile(r"yaml\.(safe_load|load|full_load|unsafe_load|compose)\(")
    allowed = {"forgetui/engine/base/yamlio.py", "forgetui/engine/context/validate.py"}
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sorted((ROOT / "forgetui").rglob("*.py"))
        if path.relative_to(ROOT).as_posix() not in allowed
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert found == []


# -- the log's lines ---------------------------------------------------------------------------


def _record(step: int, kind: str = "result") -> bytes:
    if kind == "intent":
        return encode_record(IntentRecord(step=step, at="t", action="list_dir"))
    return encode_record(
        ResultRecord(step=step, at="t", action="list_dir", result="success", summary="ok")
    )


def test_the_index_notes_lines_without_a_records_shape_anywhere(tmp_path: Path) -> None:
    path = tmp_path / "actions.yaml"
    lines = [_record(n, kind) for n in range(1, 301) for kind in ("intent", "result")]
    lines.insert(3, b"garbage\n")  # line 4, far from the tail
    lines.insert(10, b'--- {"step": 5, "at": "t", "kind": "res\n')  # cut short: no closing }
    lines.insert(20, b'--- {"step": x}\n')  # the shape of a record, not JSON: only parsing says
    path.write_bytes(b"".join(lines))
    log = ActionLog(path)
    tail_only = log.bad_lines(decoded=50)
    assert [(bad.line, bad.size) for bad in tail_only] == [(4, 8), (11, 40)]
    assert "must start with '--- '" in tail_only[0].problem
    everything = log.bad_lines(decoded=None)
    assert [bad.line for bad in everything] == [4, 11, 21]
    assert everything[2].problem.startswith("not JSON")
    assert log.last_of_kind("result", skip={bad.offset for bad in everything}).step == 300


def test_a_directory_in_place_of_the_log_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "actions.yaml").mkdir()
    log = ActionLog(tmp_path / "actions.yaml")
    for read in (log.refresh, lambda: log.tail(3), log.torn_tail):
        with pytest.raises(StateFileError, match=r"actions.yaml: a directory where a file should"):
            read()


# -- what a writer checks --------------------------------------------------------------------


def _state(step: int, last: int | None) -> TaskState:
    saved = {"step": last, "kind": "result"} if last is not None else None
    return TaskState(task_id="t", phase="execution", step=step, last_result=saved)


def _result(step: int) -> ResultRecord:
    return ResultRecord(step=step, at="t", action="list_dir", result="success", summary="ok")


@pytest.mark.parametrize(
    ("state", "logged", "problem"),
    [
        (_state(4, 4), 4, None),
        (_state(0, None), None, None),
        (_state(5, 5), 4, None),  # killed between saving state.yaml and the log: recovery's
        (_state(8, None), None, None),  # a hand-written state.yaml over an empty log
        (_state(7, 4), 4, "state.yaml says step 7 but actions.yaml's last result is step 4"),
        (_state(3, 3), 5, "state.yaml says step 3 but actions.yaml's last result is step 5"),
        (_state(6, 6), 4, "state.yaml says step 6 but actions.yaml's last result is step 4"),
        (_state(2, 2), None, "state.yaml says step 2 but actions.yaml has no result"),
    ],
)
def test_which_steps_disagree(state: TaskState, logged: int | None, problem: str | None) -> None:
    last = _result(logged) if logged is not None else None
    assert consistency.step_mismatch(state, last) == problem


# -- the lock is let go on every error path -----------------------------------------------------


def _set(name: str, data: bytes | str) -> Callable[[Path], None]:
    def damage(path: Path) -> None:
        target = path / name
        if isinstance(data, str):
            target.write_text(data)
        else:
            target.write_bytes(data)

    return damage


def _edit(name: str, old: str, new: str) -> Callable[[Path], None]:
    def damage(path: Path) -> None:
        text = (path / name).read_text()
        assert old in text
        (path / name).write_text(text.replace(old, new, 1))

    return damage


def _directory(name: str) -> Callable[[Path], None]:
    def damage(path: Path) -> None:
        (path / name).unlink()
        (path / name).mkdir()

    return damage


def _garbage_in_the_middle(path: Path) -> None:
    lines = (path / "actions.yaml").read_bytes().splitlines(keepends=True)
    (path / "actions.yaml").write_bytes(b"".join([lines[0], b"garbage\n", *lines[1:]]))


def _not_utf8(path: Path) -> None:
    data = (path / "state.yaml").read_bytes()
    (path / "state.yaml").write_bytes(data.replace(b"phase:", b"ph\xffase:", 1))


def _bomb(name: str) -> Callable[[Path], None]:
    def damage(path: Path) -> None:
        with open(path / name, "a") as handle:
            handle.write(billion_laughs("x"))

    return damage


DAMAGES: dict[str, tuple[Callable[[Path], None], str]] = {
    "invalid state.yaml": (
        _edit("state.yaml", "step: 2", "step: two"),
        r"state.yaml:\d+: field 'step'",
    ),
    "invalid working_memory.yaml": (
        _edit("working_memory.yaml", "max_items: 5", "max_items: many"),
        r"working_memory.yaml:\d+: field 'max_items'",
    ),
    "empty working_memory.yaml": (_set("working_memory.yaml", b""), r"empty \(0 bytes\)"),
    "empty state.yaml": (_set("state.yaml", b""), r"state.yaml: empty \(0 bytes\)"),
    "garbage in the log": (_garbage_in_the_middle, r"actions.yaml:2: a record line must start"),
    "state.yaml a directory": (_directory("state.yaml"), "state.yaml: a directory"),
    "working_memory.yaml a directory": (_directory("working_memory.yaml"), "yaml: a directory"),
    "actions.yaml a directory": (_directory("actions.yaml"), "actions.yaml: a directory"),
    "non-UTF-8 state.yaml": (_not_utf8, "state.yaml: not UTF-8 text: byte 0xff at offset"),
    "alias bomb in state.yaml": (_bomb("state.yaml"), "anchors and aliases are not allowed"),
    "alias bomb in memory": (_bomb("working_memory.yaml"), "anchors and aliases are not allowed"),
    "state ahead of the log": (
        _edit("state.yaml", "step: 2\n", "step: 7\n"),
        "state.yaml says step 7 but actions.yaml's last result is step 2",
    ),
    "task.yaml changed": (
        _edit("task.yaml", "goal: Write out.txt", "goal: Write more"),
        r"task.yaml changed \(goal\) since it was accepted",
    ),
}


@pytest.mark.parametrize("case", sorted(DAMAGES))
def test_a_writer_that_cannot_open_lets_go_of_the_lock(tmp_path: Path, case: str) -> None:
    folder = stepped(tmp_path)
    damage, message = DAMAGES[case]
    damage(folder.path)
    before = files_of(folder.path)
    executor = Executor(TaskFolder.open(folder.path), replay(folder))
    with pytest.raises(ForgeError, match=message):
        executor.open()
    assert_unlocked(folder.path)
    assert files_of(folder.path) == before
    executor.close()  # harmless after a failed open


def test_the_workbench_session_lets_go_too(tmp_path: Path) -> None:
    from forgetui.engine.api import TaskService as StepSession

    folder = stepped(tmp_path)
    (folder.path / "working_memory.yaml").write_bytes(b"")
    session = StepSession(folder.path, "replay", None)
    with pytest.raises(StateFileError, match="empty"):
        session.step(lambda event: None)
    assert_unlocked(folder.path)
    session.close()


@pytest.mark.parametrize(
    ("damage", "change"),
    [
        (lambda p: None, lambda f: operator.answer(f, "yes")),  # no escalation to answer
        (_set("working_memory.yaml", b""), lambda f: operator.pin(f, "out.txt")),
        (_directory("working_memory.yaml"), lambda f: operator.add_note(f, "hello")),
        (_set("state.yaml", b""), lambda f: operator.set_limits(f, 5, None)),
        (_bomb("task.yaml"), operator.accept_task_change),
        (_directory("actions.yaml"), lambda f: operator.evict(f, "#1")),
    ],
)
def test_operator_changes_let_go_of_the_lock(
    tmp_path: Path, damage: Callable[[Path], None], change: Callable[[TaskFolder], object]
) -> None:
    folder = stepped(tmp_path)
    damage(folder.path)
    with pytest.raises(ForgeError):
        change(folder)
    assert_unlocked(folder.path)


def test_laying_out_a_hand_written_task_lets_go_when_it_cannot(tmp_path: Path) -> None:
    task = tmp_path / "ws" / ".agentforge" / "tasks" / "by-hand"
    task.mkdir(parents=True)
    (task / "task.yaml").write_text("id: by-hand\ngoal: g\n")
    (task / "artifacts").write_text("a file where the artifacts folder goes")
    with pytest.raises(
        ForgeError, match=r"artifacts/inputs: cannot lay out task by-hand: Not a directory"
    ):
        TaskFolder.open(task)
    assert_unlocked(task)
    assert not (task / "state.yaml").exists()


def test_recovery_removes_what_a_killed_write_left(tmp_path: Path) -> None:
    folder = stepped(tmp_path)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    left = [
        folder.path / ".state.yaml.k3j9x2ab.tmp",
        folder.contexts_dir / ".step-000003.yaml.aa11bb22.tmp",
        folder.path / f".lock.{dead}.0a1b2c3d.tmp",
    ]
    live = folder.path / f".lock.{os.getpid()}.0a1b2c3d.tmp"  # a would-be writer's, in flight
    for path in [*left, live]:
        path.write_text("partial")
    with Executor(TaskFolder.open(folder.path), replay(folder)):
        pass
    assert [path.exists() for path in left] == [False, False, False]
    assert live.exists()


# -- unlock ------------------------------------------------------------------------------------


def _write_lock(path: Path, pid: int, host: str) -> bytes:
    info = {
        "pid": pid,
        "host": host,
        "started_at": "2025-01-01T00:00:00Z",
        "command": "forgetui run",
    }
    data = json.dumps(info).encode()
    (path / "lock").write_bytes(data)
    return data


def test_unlock_removes_another_hosts_lock_but_not_a_live_local_one(tmp_path: Path) -> None:
    folder = tmp_path / "task"
    folder.mkdir()
    lock = TaskLock(folder)
    assert lock.unlock().removed is False
    _write_lock(folder, 4242, "elsewhere.example")
    with pytest.raises(LockHeldError, match=r"locked by pid 4242 on elsewhere\.example"):
        lock.acquire()  # another host's pid cannot be checked: it blocks
    gone = lock.unlock()
    assert gone.removed and gone.info is not None and gone.info.host == "elsewhere.example"
    assert not (folder / "lock").exists()

    writer = TaskLock(folder)
    writer.acquire(command="forgetui run")  # a live writer holds it (a live pid alone does not)
    data = (folder / "lock").read_bytes()
    with pytest.raises(LockHeldError) as caught:
        lock.unlock()
    assert str(caught.value) == (
        f"task task: pid {os.getpid()} (forgetui run) holds the lock on this host; stop it first"
    )
    assert (folder / "lock").read_bytes() == data
    writer.release()

    (folder / "lock").write_bytes(b"\x00not json")
    gone = lock.unlock()
    assert gone.removed and gone.info is None


def test_a_repair_record_is_an_operator_record(tmp_path: Path) -> None:
    """The log keeps what `forgetui repair --apply` did, in a record `log` already reads."""
    from forgetui.engine.integrity import repair

    folder = stepped(tmp_path)
    _edit("state.yaml", "step: 2\n", "step: 7\n")(folder.path)
    done = repair.apply(TaskFolder.open(folder.path))
    assert [fix.kind for fix in done.fixes] == ["step"]
    last = TaskFolder.open(folder.path).log.record_at(-1)
    assert isinstance(last, OperatorRecord) and last.op == "repair"
    assert last.text == "set state.yaml step 7 → 2, the step of actions.yaml's last result"
    assert last.detail["backups"] == done.backups and len(done.backups) == 1
    assert_unlocked(folder.path)
